// evaluate_phash.cu -- bulk evaluation with the perfect-hash evaluator (phash.cuh).
//
// The same entry points as evaluate.cu, for the second, independent algorithm: results are
// bit-identical to the bitmask kernels (the tests check it), so either can serve as the
// other's reference on the device.
#ifndef GE_EVALUATE_PHASH_CU
#define GE_EVALUATE_PHASH_CU

#include "ge_common.cuh"
#include "phash.cuh"
#include "eval_entries.cuh"

struct GePhashEval {
    static GE_DEVICE ge_u32 eval(ge_u64 mask) { return ge_phash_eval(ge_phash_tables, mask); }
};

GE_GLOBAL void ge_phash_eval_masks(const ge_u64* __restrict__ masks, ge_u16* __restrict__ out,
                                   ge_u64 n) {
    ge_eval_masks_loop<GePhashEval>(masks, out, n);
}

GE_GLOBAL void ge_phash_eval_ids(const ge_u8* __restrict__ ids, int k,
                                 ge_u16* __restrict__ out, ge_u64 n) {
    ge_eval_ids_loop<GePhashEval>(ids, k, out, n);
}

GE_GLOBAL void ge_phash_eval_deadhorse(const ge_i32* __restrict__ cards, int k,
                                       ge_u16* __restrict__ out, ge_u64 n) {
    ge_eval_deadhorse_loop<GePhashEval>(cards, k, out, n);
}

#endif  // GE_EVALUATE_PHASH_CU
