// evaluate_phash.cu -- bulk evaluation with the perfect-hash evaluator (phash.cuh).
//
// The same entry points as evaluate.cu, for the second, independent algorithm: results are
// bit-identical to the bitmask kernels (the tests check it), so either can serve as the
// other's reference on the device.
#ifndef GE_EVALUATE_PHASH_CU
#define GE_EVALUATE_PHASH_CU

#include "ge_common.cuh"
#include "bitmask.cuh"  // ge_mask_from_ids / ge_mask_from_deadhorse
#include "phash.cuh"

GE_GLOBAL void ge_phash_eval_masks(const ge_u64* __restrict__ masks, ge_u16* __restrict__ out,
                                   ge_u64 n) {
    const GePhashTables& t = ge_phash_tables;
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        out[i] = (ge_u16)ge_phash_eval(t, GE_LDG(masks + i));
    }
}

template <int K>
GE_DEVICE void ge_phash_eval_ids_k(const ge_u8* __restrict__ ids, ge_u16* __restrict__ out,
                                   ge_u64 n) {
    const GePhashTables& t = ge_phash_tables;
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        out[i] = (ge_u16)ge_phash_eval(t, ge_mask_from_ids<K>(ids + i * K));
    }
}

template <int K>
GE_DEVICE void ge_phash_eval_deadhorse_k(const ge_i32* __restrict__ cards,
                                         ge_u16* __restrict__ out, ge_u64 n) {
    const GePhashTables& t = ge_phash_tables;
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        out[i] = (ge_u16)ge_phash_eval(t, ge_mask_from_deadhorse<K>(cards + i * K));
    }
}

GE_GLOBAL void ge_phash_eval_ids(const ge_u8* __restrict__ ids, int k,
                                 ge_u16* __restrict__ out, ge_u64 n) {
    switch (k) {
        case 5: ge_phash_eval_ids_k<5>(ids, out, n); break;
        case 6: ge_phash_eval_ids_k<6>(ids, out, n); break;
        case 7: ge_phash_eval_ids_k<7>(ids, out, n); break;
        case 8: ge_phash_eval_ids_k<8>(ids, out, n); break;
        case 9: ge_phash_eval_ids_k<9>(ids, out, n); break;
        default: break;
    }
}

GE_GLOBAL void ge_phash_eval_deadhorse(const ge_i32* __restrict__ cards, int k,
                                       ge_u16* __restrict__ out, ge_u64 n) {
    switch (k) {
        case 5: ge_phash_eval_deadhorse_k<5>(cards, out, n); break;
        case 6: ge_phash_eval_deadhorse_k<6>(cards, out, n); break;
        case 7: ge_phash_eval_deadhorse_k<7>(cards, out, n); break;
        case 8: ge_phash_eval_deadhorse_k<8>(cards, out, n); break;
        case 9: ge_phash_eval_deadhorse_k<9>(cards, out, n); break;
        default: break;
    }
}

#endif  // GE_EVALUATE_PHASH_CU
