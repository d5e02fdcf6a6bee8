// eval_entries.cuh -- the grid-stride bulk-evaluation loops, written once for any evaluator.
//
// An evaluator is a type with `ge_u32 eval(ge_u64 mask)` (static, or a const member of an
// object passed in as `ev` when it carries a parameter, e.g. short deck's variant);
// evaluate.cu and evaluate_phash.cu instantiate these loops for the bitmask and perfect-hash
// evaluators, variants.cu for short deck, so they share every input path (masks, (N, k) ids,
// (N, k) DeadHorse ints) and the one switch over k.
// Inputs are validated in Python before launch; the loops trust them and cover [0, n)
// whatever gridDim/blockDim are.
#ifndef GE_EVAL_ENTRIES_CUH
#define GE_EVAL_ENTRIES_CUH

#include "ge_common.cuh"
#include "bitmask.cuh"  // ge_mask_from_ids / ge_mask_from_deadhorse

template <class Eval>
GE_DEVICE void ge_eval_masks_loop(const ge_u64* __restrict__ masks, ge_u16* __restrict__ out,
                                  ge_u64 n, const Eval& ev = Eval()) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        out[i] = (ge_u16)ev.eval(GE_LDG(masks + i));
    }
}

#define GE_IDS_TILE_ROWS 256  // (N, k) id launches use at most this many threads per block
#ifndef GE_IDS_SYNC  // the block emulator of tests/equity_host.py defines its own barrier
#define GE_IDS_SYNC() __syncthreads()
#endif

// A block's rows are one contiguous run of blockDim.x * K bytes: consecutive threads stage it
// in shared memory byte by byte (a warp reads 32 consecutive bytes per load: coalesced),
// then each thread reads its own row from there; reading the rows directly, a warp's load
// of one card touches K sectors (rows are K bytes apart). The trip count is uniform across
// the block, so every thread reaches both barriers.
template <class Eval, int K>
GE_DEVICE void ge_eval_ids_loop_k(const ge_u8* __restrict__ ids, ge_u16* __restrict__ out,
                                  ge_u64 n, const Eval& ev, ge_u8* tile) {
    const ge_u64 rows = blockDim.x;
    for (ge_u64 r0 = (ge_u64)blockIdx.x * rows; r0 < n; r0 += (ge_u64)gridDim.x * rows) {
        const ge_u64 m = n - r0 < rows ? n - r0 : rows;
        const ge_u8* src = ids + r0 * K;
        for (ge_u64 j = threadIdx.x; j < m * K; j += blockDim.x) tile[j] = src[j];
        GE_IDS_SYNC();
        if (threadIdx.x < m) {
            out[r0 + threadIdx.x] = (ge_u16)ev.eval(ge_mask_from_ids<K>(tile + threadIdx.x * K));
        }
        GE_IDS_SYNC();
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
                                ge_u16* __restrict__ out, ge_u64 n, const Eval& ev = Eval()) {
    __shared__ ge_u8 tile[GE_IDS_TILE_ROWS * 9];  // one block's rows, k <= 9 ids each
    switch (k) {
        case 5: ge_eval_ids_loop_k<Eval, 5>(ids, out, n, ev, tile); break;
        case 6: ge_eval_ids_loop_k<Eval, 6>(ids, out, n, ev, tile); break;
        case 7: ge_eval_ids_loop_k<Eval, 7>(ids, out, n, ev, tile); break;
        case 8: ge_eval_ids_loop_k<Eval, 8>(ids, out, n, ev, tile); break;
        case 9: ge_eval_ids_loop_k<Eval, 9>(ids, out, n, ev, tile); break;
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
