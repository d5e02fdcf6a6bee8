// equity_batch.cu -- exact equity of many independent hold'em spots (gpu_eval/equity_engine/batch/cuda_engine.py).
//
// A spot is N hole-card masks, its known board and the cards still free (the deck less every
// hole, board and dead card). ge_batch_N enumerates every completion of the board from the free
// cards (k = 5 - board cards: 2 on the flop, 1 on the turn), evaluates every player's 7-card
// hand with the bitmask evaluator and counts, per player, outright wins, split pots and split
// pot units (lcm(1..N) / c for a c-way split): the integers of
// gpu_eval.equity_engine.batch.api's NumPy path. The enumeration order differs (free cards taken in
// hand-mask bit order), which sums do not see.
//
// Flop and turn (k = 1, 2): a warp per spot, each lane counting completions lane, lane + 32, ...
// in registers, then a shuffle reduction; lane 0 stores the spot's counts (no atomics: a warp
// owns its spot). River (k = 0): a thread per spot, one evaluation per player.
// Launch with blockDim.x a multiple of 32; any grid (warps and threads stride over the spots).
#ifndef GE_EQUITY_BATCH_CU
#define GE_EQUITY_BATCH_CU

#include "ge_common.cuh"
#include "bitmask.cuh"
#include "equity.cuh"

// The bit of the n-th (from 0) set bit of m, n < popcount(m): a binary search on popcounts.
GE_DEVICE ge_u64 ge_batch_select(ge_u64 m, ge_u32 n) {
    ge_u32 pos = 0;
    GE_UNROLL
    for (int width = 32; width >= 1; width >>= 1) {
        const ge_u64 low = m & ((1ull << width) - 1ull);
        const ge_u32 c = (ge_u32)__popcll(low);
        if (n >= c) {
            n -= c;
            m >>= width;
            pos += (ge_u32)width;
        } else {
            m = low;
        }
    }
    return 1ull << pos;
}

// Completion idx (colex over the free cards' positions) of k <= 2 cards from `free`.
GE_DEVICE ge_u64 ge_batch_completion(ge_u64 free, int k, ge_u32 idx) {
    if (k == 1) return ge_batch_select(free, idx);
    // k = 2: pair (i, j), i < j, idx = C(j, 2) + i; j from the root of 8 idx + 1, corrected.
    ge_u32 j = (ge_u32)((1.0 + sqrt(8.0 * (double)idx + 1.0)) * 0.5);
    while (j * (j - 1) / 2 > idx) --j;
    while ((j + 1) * j / 2 <= idx) ++j;
    const ge_u32 i = idx - j * (j - 1) / 2;
    return ge_batch_select(free, i) | ge_batch_select(free, j);
}

// Counts one completed board (7-card hands hole[p] | board) into w, t, u.
template <int N>
GE_DEVICE void ge_batch_count(const GeBitmaskTables& tb, const ge_u64 (&hole)[N], ge_u64 board,
                              ge_u32 (&w)[N], ge_u32 (&t)[N], ge_u32 (&u)[N]) {
    constexpr ge_u32 SCALE = GePotUnits<N>::value;
    ge_u32 s[N], best = 0;
    GE_UNROLL
    for (int p = 0; p < N; ++p) {
        s[p] = ge_bitmask_eval(tb, hole[p] | board);
        best = s[p] > best ? s[p] : best;
    }
    ge_u32 n_best = 0;
    GE_UNROLL
    for (int p = 0; p < N; ++p) n_best += s[p] == best;
    if (n_best == 1) {
        GE_UNROLL
        for (int p = 0; p < N; ++p) w[p] += s[p] == best;
    } else {
        const ge_u32 share = SCALE / n_best;
        GE_UNROLL
        for (int p = 0; p < N; ++p) {
            const ge_u32 top = s[p] == best;
            t[p] += top;
            u[p] += top * share;
        }
    }
}

// hole (n_spots, N), board (n_spots), free (n_spots) hand masks; k cards to come (0, 1, 2).
// wins / ties / units (n_spots, N) are overwritten with the spot's counts.
template <int N>
GE_DEVICE void ge_batch(const ge_u64* __restrict__ hole, const ge_u64* __restrict__ board,
                        const ge_u64* __restrict__ free_cards, ge_u32 n_spots, int k,
                        ge_u32* __restrict__ wins, ge_u32* __restrict__ ties,
                        ge_u32* __restrict__ units) {
    const GeBitmaskTables& tb = ge_bitmask_tables;
    if (k == 0) {  // the river: a thread per spot
        for (ge_u64 s = ge_thread_index(); s < n_spots; s += ge_thread_count()) {
            ge_u64 h[N];
            ge_u32 w[N], t[N], u[N];
            GE_UNROLL
            for (int p = 0; p < N; ++p) {
                h[p] = GE_LDG(hole + s * N + p);
                w[p] = t[p] = u[p] = 0;
            }
            ge_batch_count<N>(tb, h, GE_LDG(board + s), w, t, u);
            GE_UNROLL
            for (int p = 0; p < N; ++p) {
                wins[s * N + p] = w[p];
                ties[s * N + p] = t[p];
                units[s * N + p] = u[p];
            }
        }
        return;
    }
    const ge_u32 lane = threadIdx.x % GE_WARP;
    const ge_u64 n_warps = ge_thread_count() / GE_WARP;
    // Warp-uniform loop: every lane of a warp reaches the shuffles.
    for (ge_u64 s = ge_thread_index() / GE_WARP; s < n_spots; s += n_warps) {
        ge_u64 h[N];
        ge_u32 w[N], t[N], u[N];
        GE_UNROLL
        for (int p = 0; p < N; ++p) {
            h[p] = GE_LDG(hole + s * N + p);
            w[p] = t[p] = u[p] = 0;
        }
        const ge_u64 known = GE_LDG(board + s);
        const ge_u64 free = GE_LDG(free_cards + s);
        const ge_u32 r = (ge_u32)__popcll(free);
        const ge_u32 n_c = k == 1 ? r : r * (r - 1) / 2;
        for (ge_u32 idx = lane; idx < n_c; idx += GE_WARP) {
            ge_batch_count<N>(tb, h, known | ge_batch_completion(free, k, idx), w, t, u);
        }
        for (int off = 1; off < GE_WARP; off <<= 1) {
            GE_UNROLL
            for (int p = 0; p < N; ++p) {
                w[p] += ge_eq_shfl_xor(w[p], off);
                t[p] += ge_eq_shfl_xor(t[p], off);
                if (N > 2) u[p] += ge_eq_shfl_xor(u[p], off);
            }
        }
        if (lane == 0) {
            GE_UNROLL
            for (int p = 0; p < N; ++p) {
                wins[s * N + p] = w[p];
                ties[s * N + p] = t[p];
                units[s * N + p] = N == 2 ? t[p] : u[p];  // heads-up: a split is one unit
            }
        }
    }
}

#define GE_BATCH_KERNEL(N)                                                                    \
    GE_GLOBAL void ge_batch_##N(const ge_u64* __restrict__ hole,                              \
                                const ge_u64* __restrict__ board,                             \
                                const ge_u64* __restrict__ free_cards, ge_u32 n_spots, int k, \
                                ge_u32* __restrict__ wins, ge_u32* __restrict__ ties,         \
                                ge_u32* __restrict__ units) {                                 \
        ge_batch<N>(hole, board, free_cards, n_spots, k, wins, ties, units);                  \
    }
GE_FOR_PLAYERS_2_TO_10(GE_BATCH_KERNEL)

#endif  // GE_EQUITY_BATCH_CU
