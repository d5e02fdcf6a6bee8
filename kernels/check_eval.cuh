// check_eval.cuh -- validate and evaluate device inputs in one pass, for any evaluator.
//
// One read of the input per hand: stray mask bits or card ids out of range, cards the game's
// deck does not hold (`forbidden` mask bits, e.g. short deck's 2..5), the card count (a card
// used twice makes a row of k ids short) and the strength, written as 0 for a bad row. The
// first bad row of each kind is found with atomicMin into first_bad[3] (initialised to ~0 by
// the caller): [0] stray bits / an id out of range, [1] a forbidden card, [2] a wrong card
// count; a row counts under the first kind it has. The host reads those 24 bytes back in one
// copy and words the error from that row, as the NumPy path would (kinds in that order).
// mask_invalid != 0 (invalid="mask") skips the atomics: bad rows just read 0.
//
// (N, k) ids are staged through shared memory (as in eval_entries.cuh): a block's rows are
// one contiguous run of blockDim.x * k bytes, which consecutive threads load byte by byte (a
// warp reads 32 consecutive bytes per instruction: coalesced).
//
// An evaluator is an object with `ge_u32 eval(ge_u64 mask) const` (or a static eval).
#ifndef GE_CHECK_EVAL_CUH
#define GE_CHECK_EVAL_CUH

#include "ge_common.cuh"
#include "bitmask.cuh"

#define GE_CHECK_MAX_BLOCK 256  // launches use at most this many threads per block
#ifndef GE_CHECK_SYNC  // the block emulator of tests/equity_host.py defines its own barrier
#define GE_CHECK_SYNC() __syncthreads()
#endif
#define GE_CHECK_VALID_BITS 0x1FFF1FFF1FFF1FFFull

GE_DEVICE void ge_check_store(ge_u64 i, bool range_bad, bool forbidden_bad, bool count_bad,
                              ge_u32 strength, int mask_invalid, ge_u16* __restrict__ out,
                              unsigned long long* __restrict__ first_bad) {
    const bool bad = range_bad || forbidden_bad || count_bad;
    out[i] = bad ? (ge_u16)0 : (ge_u16)strength;
    if (bad && !mask_invalid) {
        atomicMin(first_bad + (range_bad ? 0 : forbidden_bad ? 1 : 2), (unsigned long long)i);
    }
}

template <class Eval>
GE_DEVICE void ge_check_eval_masks_loop(const ge_u64* __restrict__ masks, ge_u64 n, int lo,
                                        int hi, ge_u64 forbidden, int mask_invalid,
                                        ge_u16* __restrict__ out,
                                        unsigned long long* __restrict__ first_bad,
                                        const Eval& ev) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        const ge_u64 raw = GE_LDG(masks + i);
        const ge_u64 m = raw & GE_CHECK_VALID_BITS;
        const int c = __popcll(m);
        const bool stray = raw != m;
        const bool forbidden_bad = (m & forbidden) != 0;
        const bool count_bad = c < lo || c > hi;
        ge_u32 s = 0;
        if (!stray && !forbidden_bad && !count_bad) s = ev.eval(m);
        ge_check_store(i, stray, forbidden_bad, count_bad, s, mask_invalid, out, first_bad);
    }
}

template <class Eval, int K>
GE_DEVICE void ge_check_eval_ids_k(const ge_u8* __restrict__ ids, ge_u64 n, int lo, int hi,
                                   ge_u64 forbidden, int mask_invalid, ge_u16* __restrict__ out,
                                   unsigned long long* __restrict__ first_bad, const Eval& ev,
                                   ge_u8* tile) {
    const ge_u64 rows = blockDim.x;
    // Uniform trip count per block: every thread reaches both barriers.
    for (ge_u64 r0 = (ge_u64)blockIdx.x * rows; r0 < n; r0 += (ge_u64)gridDim.x * rows) {
        const ge_u64 m = n - r0 < rows ? n - r0 : rows;
        const ge_u8* src = ids + r0 * K;
        for (ge_u64 j = threadIdx.x; j < m * K; j += blockDim.x) tile[j] = src[j];
        GE_CHECK_SYNC();
        if (threadIdx.x < m) {
            const ge_u8* row = tile + threadIdx.x * K;
            ge_u64 mask = 0;
            bool range_bad = false;
            GE_UNROLL
            for (int j = 0; j < K; ++j) {
                const ge_u32 id = row[j];
                range_bad |= id > 51u;
                mask |= ge_card_bit(id);
            }
            const int c = __popcll(mask);
            const bool forbidden_bad = (mask & forbidden) != 0;
            const bool count_bad = c < lo || c > hi || c != K;
            ge_u32 s = 0;
            if (!range_bad && !forbidden_bad && !count_bad) s = ev.eval(mask);
            ge_check_store(r0 + threadIdx.x, range_bad, forbidden_bad, count_bad, s,
                           mask_invalid, out, first_bad);
        }
        GE_CHECK_SYNC();
    }
}

// k = KMIN..9, KMIN 4 or 5 (the caller takes another path for other k).
template <class Eval, int KMIN>
GE_DEVICE void ge_check_eval_ids_loop(const ge_u8* __restrict__ ids, int k, ge_u64 n, int lo,
                                      int hi, ge_u64 fb, int mi, ge_u16* __restrict__ out,
                                      unsigned long long* __restrict__ first_bad,
                                      const Eval& ev) {
    __shared__ ge_u8 tile[GE_CHECK_MAX_BLOCK * 9];  // one block's rows (k <= 9 ids each)
    if constexpr (KMIN <= 4) {  // badugi: four cards
        if (k == 4) {
            ge_check_eval_ids_k<Eval, 4>(ids, n, lo, hi, fb, mi, out, first_bad, ev, tile);
            return;
        }
    }
    switch (k) {
        case 5: ge_check_eval_ids_k<Eval, 5>(ids, n, lo, hi, fb, mi, out, first_bad, ev, tile); break;
        case 6: ge_check_eval_ids_k<Eval, 6>(ids, n, lo, hi, fb, mi, out, first_bad, ev, tile); break;
        case 7: ge_check_eval_ids_k<Eval, 7>(ids, n, lo, hi, fb, mi, out, first_bad, ev, tile); break;
        case 8: ge_check_eval_ids_k<Eval, 8>(ids, n, lo, hi, fb, mi, out, first_bad, ev, tile); break;
        case 9: ge_check_eval_ids_k<Eval, 9>(ids, n, lo, hi, fb, mi, out, first_bad, ev, tile); break;
        default: break;
    }
}

#if GE_IS_DEVICE
#define GE_CHECK_BOUNDS __launch_bounds__(GE_CHECK_MAX_BLOCK)
#else
#define GE_CHECK_BOUNDS
#endif

// The two kernels of one evaluator, with one signature for every game: `param` is handed to
// MAKE_EVAL (e.g. short deck's variant; unused by hold'em). Ids rows hold KMIN..9 cards.
#define GE_CHECK_KERNELS_FROM(PREFIX, EVAL, MAKE_EVAL, KMIN)                                     \
    GE_GLOBAL void GE_CHECK_BOUNDS PREFIX##check_eval_masks(                                     \
            const ge_u64* __restrict__ masks, ge_u64 n, int lo, int hi, ge_u64 forbidden,       \
            int param, int mask_invalid, ge_u16* __restrict__ out,                               \
            unsigned long long* __restrict__ first_bad) {                                        \
        ge_check_eval_masks_loop<EVAL>(masks, n, lo, hi, forbidden, mask_invalid, out,           \
                                       first_bad, MAKE_EVAL(param));                             \
    }                                                                                            \
    GE_GLOBAL void GE_CHECK_BOUNDS PREFIX##check_eval_ids(                                       \
            const ge_u8* __restrict__ ids, int k, ge_u64 n, int lo, int hi, ge_u64 forbidden,   \
            int param, int mask_invalid, ge_u16* __restrict__ out,                               \
            unsigned long long* __restrict__ first_bad) {                                        \
        ge_check_eval_ids_loop<EVAL, KMIN>(ids, k, n, lo, hi, forbidden, mask_invalid, out,      \
                                           first_bad, MAKE_EVAL(param));                         \
    }
// Hands of five to nine cards (hold'em, short deck).
#define GE_CHECK_KERNELS(PREFIX, EVAL, MAKE_EVAL) GE_CHECK_KERNELS_FROM(PREFIX, EVAL, MAKE_EVAL, 5)

#endif  // GE_CHECK_EVAL_CUH
