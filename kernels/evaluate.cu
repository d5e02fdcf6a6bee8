// evaluate.cu -- bulk hand evaluation kernels (bitmask evaluator).
//
// One thread per hand in a grid-stride loop; outputs are uint16 strengths (1..7462 for
// standard hands). Inputs are validated in Python before launch; these kernels trust them.
// Launch with any grid: every kernel covers [0, n) whatever gridDim/blockDim are.
#ifndef GE_EVALUATE_CU
#define GE_EVALUATE_CU

#include "ge_common.cuh"
#include "bitmask.cuh"

// masks: n uint64 hand masks (5 to 9 cards each).
GE_GLOBAL void ge_eval_masks(const ge_u64* __restrict__ masks, ge_u16* __restrict__ out,
                             ge_u64 n) {
    const GeBitmaskTables& t = ge_bitmask_tables;
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        out[i] = (ge_u16)ge_bitmask_eval(t, GE_LDG(masks + i));
    }
}

template <int K>
GE_DEVICE void ge_eval_ids_k(const ge_u8* __restrict__ ids, ge_u16* __restrict__ out,
                             ge_u64 n) {
    const GeBitmaskTables& t = ge_bitmask_tables;
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        out[i] = (ge_u16)ge_bitmask_eval(t, ge_mask_from_ids<K>(ids + i * K));
    }
}

template <int K>
GE_DEVICE void ge_eval_deadhorse_k(const ge_i32* __restrict__ cards,
                                   ge_u16* __restrict__ out, ge_u64 n) {
    const GeBitmaskTables& t = ge_bitmask_tables;
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        out[i] = (ge_u16)ge_bitmask_eval(t, ge_mask_from_deadhorse<K>(cards + i * K));
    }
}

// ids: (n, k) uint8 card ids, row-major, k = 5..9. The switch picks an unrolled loop per k.
GE_GLOBAL void ge_eval_ids(const ge_u8* __restrict__ ids, int k, ge_u16* __restrict__ out,
                           ge_u64 n) {
    switch (k) {
        case 5: ge_eval_ids_k<5>(ids, out, n); break;
        case 6: ge_eval_ids_k<6>(ids, out, n); break;
        case 7: ge_eval_ids_k<7>(ids, out, n); break;
        case 8: ge_eval_ids_k<8>(ids, out, n); break;
        case 9: ge_eval_ids_k<9>(ids, out, n); break;
        default: break;  // rejected in Python
    }
}

// cards: (n, k) int32 DeadHorse card ints, row-major, k = 5..9.
GE_GLOBAL void ge_eval_deadhorse(const ge_i32* __restrict__ cards, int k,
                                 ge_u16* __restrict__ out, ge_u64 n) {
    switch (k) {
        case 5: ge_eval_deadhorse_k<5>(cards, out, n); break;
        case 6: ge_eval_deadhorse_k<6>(cards, out, n); break;
        case 7: ge_eval_deadhorse_k<7>(cards, out, n); break;
        case 8: ge_eval_deadhorse_k<8>(cards, out, n); break;
        case 9: ge_eval_deadhorse_k<9>(cards, out, n); break;
        default: break;
    }
}

#endif  // GE_EVALUATE_CU
