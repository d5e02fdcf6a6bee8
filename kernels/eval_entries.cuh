// eval_entries.cuh -- the grid-stride bulk-evaluation loops, written once for any evaluator.
//
// An evaluator is a type with `GE_DEVICE static ge_u32 eval(ge_u64 mask)`; evaluate.cu and
// evaluate_phash.cu instantiate these loops for the bitmask and perfect-hash evaluators, so
// the two algorithms share every input path (masks, (N, k) ids, (N, k) DeadHorse ints).
// Inputs are validated in Python before launch; the loops trust them and cover [0, n)
// whatever gridDim/blockDim are.
#ifndef GE_EVAL_ENTRIES_CUH
#define GE_EVAL_ENTRIES_CUH

#include "ge_common.cuh"
#include "bitmask.cuh"  // ge_mask_from_ids / ge_mask_from_deadhorse

template <class Eval>
GE_DEVICE void ge_eval_masks_loop(const ge_u64* __restrict__ masks, ge_u16* __restrict__ out,
                                  ge_u64 n) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        out[i] = (ge_u16)Eval::eval(GE_LDG(masks + i));
    }
}

template <class Eval, int K>
GE_DEVICE void ge_eval_ids_loop_k(const ge_u8* __restrict__ ids, ge_u16* __restrict__ out,
                                  ge_u64 n) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        out[i] = (ge_u16)Eval::eval(ge_mask_from_ids<K>(ids + i * K));
    }
}

template <class Eval, int K>
GE_DEVICE void ge_eval_deadhorse_loop_k(const ge_i32* __restrict__ cards,
                                        ge_u16* __restrict__ out, ge_u64 n) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        out[i] = (ge_u16)Eval::eval(ge_mask_from_deadhorse<K>(cards + i * K));
    }
}

// ids: (n, k) uint8 card ids, row-major, k = 5..9. The switch picks an unrolled loop per k.
template <class Eval>
GE_DEVICE void ge_eval_ids_loop(const ge_u8* __restrict__ ids, int k,
                                ge_u16* __restrict__ out, ge_u64 n) {
    switch (k) {
        case 5: ge_eval_ids_loop_k<Eval, 5>(ids, out, n); break;
        case 6: ge_eval_ids_loop_k<Eval, 6>(ids, out, n); break;
        case 7: ge_eval_ids_loop_k<Eval, 7>(ids, out, n); break;
        case 8: ge_eval_ids_loop_k<Eval, 8>(ids, out, n); break;
        case 9: ge_eval_ids_loop_k<Eval, 9>(ids, out, n); break;
        default: break;  // rejected in Python
    }
}

// cards: (n, k) int32 DeadHorse card ints, row-major, k = 5..9.
template <class Eval>
GE_DEVICE void ge_eval_deadhorse_loop(const ge_i32* __restrict__ cards, int k,
                                      ge_u16* __restrict__ out, ge_u64 n) {
    switch (k) {
        case 5: ge_eval_deadhorse_loop_k<Eval, 5>(cards, out, n); break;
        case 6: ge_eval_deadhorse_loop_k<Eval, 6>(cards, out, n); break;
        case 7: ge_eval_deadhorse_loop_k<Eval, 7>(cards, out, n); break;
        case 8: ge_eval_deadhorse_loop_k<Eval, 8>(cards, out, n); break;
        case 9: ge_eval_deadhorse_loop_k<Eval, 9>(cards, out, n); break;
        default: break;
    }
}

#endif  // GE_EVAL_ENTRIES_CUH
