// equity_deals.cu -- equity of the games without a board (stud, stud hi/lo, razz, the draw
// games) on the device: the twin of gpu_eval/equity_engine/deals/numpy_engine.py's grid and Monte Carlo.
//
// A player holds known cards (a hand mask) and gets `need` more from one deck; the final hand
// is scored by `eval`: GE_DEALS_HIGH, the best five on the hold'em scale (bitmask.cuh: stud,
// five-card draw), or a low scale GE_LOW_* (lowball.cuh: razz's A-5, 2-7, badugi); hi/lo
// games add the 8-or-better low of the best five (`best5`: gpu_eval.games.eight_or_better's "BEST5"
// table, 256 bytes, by the hand's 8-bit low mask).
//
//   ge_deals_strengths  one player's completions: S[i] = eval(masks[i] | known), L[i] its low;
//   ge_deals_grid_N     every deal: the rows (disjoint tuples of the first N - 1 players'
//                       completions, built on the host) against the last player's
//                       completions. A block takes a row at a time (its strengths and card
//                       union read once), its threads stride over the last player's
//                       completions (consecutive threads, consecutive columns); a column
//                       sharing a card with the row is no deal. Integer wins (the whole pot
//                       alone), ties (part of it), split units, high and low units and deals,
//                       as deals.py's _grid counts them; heads-up (ge_deals_grid_2) a block
//                       takes a run of rows through shared memory instead, each thread one
//                       column at a time in registers (ge_deals_grid_hu);
//   ge_deals_sample_N   Monte Carlo: sample s deals each player's missing cards, in player
//                       order, from its own Philox stream (equity.cuh), so totals depend on the
//                       seed and the sample range only, never on the launch.
// Pots are scale units (pots.cuh); each kernel sums its counters over the block before adding
// them to the totals. Inputs are validated in Python; any grid, blocks of a multiple of 32.
#ifndef GE_EQUITY_DEALS_CU
#define GE_EQUITY_DEALS_CU

#include "ge_common.cuh"
#include "bitmask.cuh"
#include "lowball.cuh"
#include "pots.cuh"
#include "equity.cuh"  // Philox streams, dealing

#define GE_DEALS_HIGH 3  // eval code of the high hand (0..2 are lowball.cuh's GE_LOW_*)
// Per-thread counters are 32-bit: flushed to the totals after this many deals (a pot is at
// most 2 * 840 units, so no counter can pass 2^31 in between).
#define GE_DEALS_FLUSH (1u << 20)

GE_DEVICE ge_u32 ge_deals_eval(int eval, ge_u64 hand) {
    return eval == GE_DEALS_HIGH ? ge_bitmask_eval(ge_bitmask_tables, hand)
                                 : ge_low_eval(ge_low_tables, eval, hand);
}

GE_GLOBAL void ge_deals_strengths(const ge_u64* __restrict__ masks, ge_u32 n, ge_u64 known,
                                  int eval, const ge_u8* __restrict__ best5,
                                  ge_u16* __restrict__ S, ge_u8* __restrict__ L) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        const ge_u64 hand = GE_LDG(masks + i) | known;
        S[i] = (ge_u16)ge_deals_eval(eval, hand);
        if (L) L[i] = GE_LDG(best5 + ge_low8_mask(hand));
    }
}

// rows: (n_rows, N - 1) int32, player j's completion index in column j; unions: (n_rows,)
// the cards of each row; S, L: every player's completion strengths and lows (L null: high
// only), player j's from offsets[j]; last: the last player's n_last completion masks.
template <int N>
GE_DEVICE void ge_deals_grid(const ge_i32* __restrict__ rows, const ge_u64* __restrict__ unions,
                             ge_u32 n_rows, const ge_u16* __restrict__ S,
                             const ge_u8* __restrict__ L, const ge_u32* __restrict__ offsets,
                             const ge_u64* __restrict__ last, ge_u32 n_last, ge_u32 scale,
                             unsigned long long* __restrict__ wins,
                             unsigned long long* __restrict__ ties,
                             unsigned long long* __restrict__ units,
                             unsigned long long* __restrict__ high,
                             unsigned long long* __restrict__ low,
                             unsigned long long* __restrict__ n_valid) {
    __shared__ unsigned long long scratch[GeExactTally<N, ge_u32>::SLOTS];
    ge_clear_shared(scratch, GeExactTally<N, ge_u32>::SLOTS);
    GeExactTally<N, ge_u32> acc;
    acc.clear();
    const bool hilo = L != nullptr;
    const ge_u32 last_at = GE_LDG(offsets + (N - 1));
    // The same for every thread of the block (it depends on the block's rows only), so the
    // block flushes together: the flush has barriers.
    ge_u32 since_flush = 0;
    for (ge_u32 r = blockIdx.x; r < n_rows; r += gridDim.x) {
        const ge_u64 taken = GE_LDG(unions + r);
        ge_u32 s[N], lo[N];
        GE_UNROLL
        for (int j = 0; j < N - 1; ++j) {
            const ge_u32 at = GE_LDG(offsets + j) + (ge_u32)GE_LDG(rows + (ge_u64)r * (N - 1) + j);
            s[j] = GE_LDG(S + at);
            lo[j] = hilo ? GE_LDG(L + at) : 0u;
        }
        for (ge_u32 c = threadIdx.x; c < n_last; c += blockDim.x) {
            if (GE_LDG(last + c) & taken) continue;
            s[N - 1] = GE_LDG(S + (last_at + c));
            lo[N - 1] = hilo ? GE_LDG(L + (last_at + c)) : 0u;
            acc.add(ge_pot(N, s, lo, hilo, scale), s, lo, scale);
        }
        since_flush += (n_last + blockDim.x - 1) / blockDim.x;
        if (since_flush >= GE_DEALS_FLUSH) {
            acc.flush_block(wins, ties, units, high, low, n_valid, hilo, scratch);
            acc.clear();
            since_flush = 0;
        }
    }
    acc.flush_block(wins, ties, units, high, low, n_valid, hilo, scratch);
}

// Heads-up (N = 2): rows are the first player's completions alone. A block takes a
// contiguous run of rows and stages them in shared memory GE_DEALS_HU_TILE at a time (the
// card union, and strength | low << 16); each thread holds its column (the second player's
// completion: mask, strength, low) in registers and walks the staged rows, so a column is
// read once per tile instead of once per row. High-only games count three numbers per pair
// (won by the first, won by the second, dealt: about a dozen instructions, not the general
// pot's 75); hi/lo pays the general split. Units are 64-bit (no flush before the end); the
// counts are 32-bit, bounded by a launch's rows times its columns per thread
// (gpu_eval/equity_engine/deals/cuda_engine.py: ROWS_PER_LAUNCH).
#define GE_DEALS_HU_TILE 256
GE_DEVICE void ge_deals_grid_hu(const ge_i32* __restrict__ rows,
                                const ge_u64* __restrict__ unions, ge_u32 n_rows,
                                const ge_u16* __restrict__ S, const ge_u8* __restrict__ L,
                                const ge_u32* __restrict__ offsets,
                                const ge_u64* __restrict__ last, ge_u32 n_last, ge_u32 scale,
                                unsigned long long* __restrict__ wins,
                                unsigned long long* __restrict__ ties,
                                unsigned long long* __restrict__ units,
                                unsigned long long* __restrict__ high,
                                unsigned long long* __restrict__ low,
                                unsigned long long* __restrict__ n_valid) {
    __shared__ ge_u64 s_taken[GE_DEALS_HU_TILE];
    __shared__ ge_u32 s_row[GE_DEALS_HU_TILE];
    __shared__ unsigned long long scratch[GeExactTally<2, ge_u64>::SLOTS];
    ge_clear_shared(scratch, GeExactTally<2, ge_u64>::SLOTS);
    GeExactTally<2, ge_u64> acc;
    acc.clear();
    const bool hilo = L != nullptr;
    ge_u32 won0 = 0, won1 = 0, dealt = 0;  // high only
    const ge_u32 at0 = GE_LDG(offsets), at1 = GE_LDG(offsets + 1);
    const ge_u32 per_block = (n_rows + gridDim.x - 1) / gridDim.x;
    const ge_u32 r_lo = blockIdx.x * per_block < n_rows ? blockIdx.x * per_block : n_rows;
    const ge_u32 r_hi = r_lo + per_block < n_rows ? r_lo + per_block : n_rows;
    for (ge_u32 t0 = r_lo; t0 < r_hi; t0 += GE_DEALS_HU_TILE) {
        const ge_u32 m = r_hi - t0 < GE_DEALS_HU_TILE ? r_hi - t0 : GE_DEALS_HU_TILE;
        for (ge_u32 i = threadIdx.x; i < m; i += blockDim.x) {
            const ge_u32 at = at0 + (ge_u32)GE_LDG(rows + t0 + i);
            s_taken[i] = GE_LDG(unions + t0 + i);
            s_row[i] = (ge_u32)GE_LDG(S + at) | (hilo ? (ge_u32)GE_LDG(L + at) << 16 : 0u);
        }
        ge_eq_sync();
        for (ge_u32 c = threadIdx.x; c < n_last; c += blockDim.x) {
            const ge_u64 mask = GE_LDG(last + c);
            const ge_u32 s1 = GE_LDG(S + (at1 + c));
            if (!hilo) {
                GE_EQ_UNROLL4
                for (ge_u32 i = 0; i < m; ++i) {
                    const ge_u32 s0 = s_row[i];
                    const bool ok = (s_taken[i] & mask) == 0;
                    won0 += ok && s0 > s1;
                    won1 += ok && s1 > s0;
                    dealt += ok;
                }
            } else {
                ge_u32 s[2], lo[2];
                s[1] = s1;
                lo[1] = GE_LDG(L + (at1 + c));
                for (ge_u32 i = 0; i < m; ++i) {
                    if (s_taken[i] & mask) continue;
                    s[0] = s_row[i] & 0xFFFFu;
                    lo[0] = s_row[i] >> 16;
                    acc.add(ge_pot(2, s, lo, true, scale), s, lo, scale);
                }
            }
        }
        ge_eq_sync();  // every thread is done with the tile before the next one is staged
    }
    if (!hilo) {  // a tie splits the pot: half of it (scale / 2 units) to each
        const ge_u32 split = dealt - won0 - won1;
        acc.w[0] = won0;
        acc.w[1] = won1;
        acc.t[0] = acc.t[1] = split;
        acc.u[0] = acc.u[1] = (ge_u64)split * (scale / 2);
        acc.valid = dealt;
    }
    acc.flush_block(wins, ties, units, high, low, n_valid, hilo, scratch);
}

// The kernel of N players: heads-up takes the tiled path (ge_deals_grid_hu), more players
// the general grid.
template <int N>
GE_DEVICE void ge_deals_grid_any(const ge_i32* __restrict__ rows, const ge_u64* __restrict__ unions, ge_u32 n_rows,
    const ge_u16* __restrict__ S, const ge_u8* __restrict__ L,
    const ge_u32* __restrict__ offsets, const ge_u64* __restrict__ last, ge_u32 n_last,
    ge_u32 scale, unsigned long long* __restrict__ wins,
    unsigned long long* __restrict__ ties, unsigned long long* __restrict__ units,
    unsigned long long* __restrict__ high, unsigned long long* __restrict__ low,
    unsigned long long* __restrict__ n_valid) {
    ge_deals_grid<N>(rows, unions, n_rows, S, L, offsets, last, n_last, scale, wins, ties, units, high, low, n_valid);
}
template <>
GE_DEVICE void ge_deals_grid_any<2>(const ge_i32* __restrict__ rows, const ge_u64* __restrict__ unions, ge_u32 n_rows,
    const ge_u16* __restrict__ S, const ge_u8* __restrict__ L,
    const ge_u32* __restrict__ offsets, const ge_u64* __restrict__ last, ge_u32 n_last,
    ge_u32 scale, unsigned long long* __restrict__ wins,
    unsigned long long* __restrict__ ties, unsigned long long* __restrict__ units,
    unsigned long long* __restrict__ high, unsigned long long* __restrict__ low,
    unsigned long long* __restrict__ n_valid) {
    ge_deals_grid_hu(rows, unions, n_rows, S, L, offsets, last, n_last, scale, wins, ties, units, high, low, n_valid);
}

#define GE_DEALS_GRID_KERNEL(N)                                                               \
    GE_GLOBAL void ge_deals_grid_##N(                                                         \
        const ge_i32* __restrict__ rows, const ge_u64* __restrict__ unions, ge_u32 n_rows,    \
        const ge_u16* __restrict__ S, const ge_u8* __restrict__ L,                            \
        const ge_u32* __restrict__ offsets, const ge_u64* __restrict__ last, ge_u32 n_last,   \
        ge_u32 scale, unsigned long long* __restrict__ wins,                                  \
        unsigned long long* __restrict__ ties, unsigned long long* __restrict__ units,        \
        unsigned long long* __restrict__ high, unsigned long long* __restrict__ low,          \
        unsigned long long* __restrict__ n_valid) {                                           \
        ge_deals_grid_any<N>(rows, unions, n_rows, S, L, offsets, last, n_last, scale, wins,  \
                             ties, units, high, low, n_valid);                                \
    }
GE_FOR_PLAYERS_2_TO_8(GE_DEALS_GRID_KERNEL)

// Samples [start, stop), grid-stride. known (N): each player's cards; need (N): how many
// more; deck: the n_deck cards that can still come (hand-mask bits). totals (6 N uint64)
// gains, per player: whole pots won alone, pots shared, pot units won (wins included), the
// sum of squared per-sample units, and (best5 not null: hi/lo) the high and low units.
template <int N>
GE_DEVICE void ge_deals_sample_n(const ge_u64* __restrict__ known, const ge_u8* __restrict__ need,
                                 const ge_u64* __restrict__ deck, ge_u32 n_deck, int eval,
                                 const ge_u8* __restrict__ best5, ge_u32 scale, ge_u32 key0,
                                 ge_u32 key1, ge_u64 start, ge_u64 stop,
                                 unsigned long long* __restrict__ totals) {
    __shared__ unsigned long long scratch[GeMcTally<N>::SLOTS];
    ge_clear_shared(scratch, GeMcTally<N>::SLOTS);
    GeMcTally<N> tally;
    tally.clear();
    const bool hilo = best5 != nullptr;
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 smp = start + ge_thread_index(); smp < stop; smp += stride) {
        GeRng r;
        ge_rng_init(r, key0, key1, smp);
        ge_u64 used = 0;
        ge_u32 s[N], lo[N];
        GE_UNROLL
        for (int j = 0; j < N; ++j) {
            ge_u64 hand = GE_LDG(known + j);
            const int k = GE_LDG(need + j);
            GE_EQ_NO_UNROLL
            for (int c = 0; c < k; ++c) {
                const ge_u64 card = ge_deal_card(r, deck, n_deck, used);
                used |= card;
                hand |= card;
            }
            s[j] = ge_deals_eval(eval, hand);
            lo[j] = hilo ? GE_LDG(best5 + ge_low8_mask(hand)) : 0u;
        }
        tally.add(ge_pot(N, s, lo, hilo, scale), s, lo, scale);
    }
    tally.flush_block(totals, hilo, scratch);
}

// One kernel per player count (registers sized for it); see ge_deals_sample_n.
#define GE_DEALS_SAMPLE_KERNEL(N)                                                             \
    GE_GLOBAL void ge_deals_sample_##N(                                                       \
        const ge_u64* __restrict__ known, const ge_u8* __restrict__ need,                     \
        const ge_u64* __restrict__ deck, ge_u32 n_deck, int eval,                             \
        const ge_u8* __restrict__ best5, ge_u32 scale, ge_u32 key0, ge_u32 key1,              \
        ge_u64 start, ge_u64 stop, unsigned long long* __restrict__ totals) {                 \
        ge_deals_sample_n<N>(known, need, deck, n_deck, eval, best5, scale, key0, key1, start, \
                             stop, totals);                                                   \
    }
GE_FOR_PLAYERS_2_TO_8(GE_DEALS_SAMPLE_KERNEL)

#endif  // GE_EQUITY_DEALS_CU
