// evaluate.cu -- bulk hand evaluation kernels (bitmask evaluator).
//
// One thread per hand in a grid-stride loop (eval_entries.cuh); outputs are uint16 strengths
// (1..7462 for standard hands). Inputs are validated in Python before launch.
#ifndef GE_EVALUATE_CU
#define GE_EVALUATE_CU

#include "ge_common.cuh"
#include "bitmask.cuh"
#include "eval_entries.cuh"

struct GeBitmaskEval {
    static GE_DEVICE ge_u32 eval(ge_u64 mask) { return ge_bitmask_eval(ge_bitmask_tables, mask); }
};

// masks: n uint64 hand masks (5 to 9 cards each).
GE_GLOBAL void ge_eval_masks(const ge_u64* __restrict__ masks, ge_u16* __restrict__ out,
                             ge_u64 n) {
    ge_eval_masks_loop<GeBitmaskEval>(masks, out, n);
}

// ids: (n, k) uint8 card ids, row-major, k = 5..9.
GE_GLOBAL void ge_eval_ids(const ge_u8* __restrict__ ids, int k, ge_u16* __restrict__ out,
                           ge_u64 n) {
    ge_eval_ids_loop<GeBitmaskEval>(ids, k, out, n);
}

// cards: (n, k) int32 DeadHorse card ints, row-major, k = 5..9.
GE_GLOBAL void ge_eval_deadhorse(const ge_i32* __restrict__ cards, int k,
                                 ge_u16* __restrict__ out, ge_u64 n) {
    ge_eval_deadhorse_loop<GeBitmaskEval>(cards, k, out, n);
}

#endif  // GE_EVALUATE_CU
