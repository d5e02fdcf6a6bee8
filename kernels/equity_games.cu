// equity_games.cu -- exact equity kernels for Omaha (4/5/6 cards, high and hi/lo) and short
// deck: the device twin of gpu_eval/equity_engine/game_equity.py's _tally (one chunk of an exact task).
//
// Two steps per chunk of boards, as for hold'em (equity.cu):
//   ge_games_strengths  S[b][p] = high strength of pool hand p on board b (0 when they share
//                       a card) and, for hi/lo, L[b][p] = its Omaha 2 + 3 low (0: none):
//                       each distinct hole hand is evaluated once per board, Omaha through
//                       omaha.cuh (all 60 / 100 / 150 two-plus-three hands in a few lookups),
//                       short deck through the bitmask evaluator with short-deck tables;
//   ge_games_showdown_N per matchup (N pool indices), integer wins (whole pot alone), ties
//                       (part of the pot), tie units, valid boards, and the pot units won
//                       through the high and the low half, compared from S (and L).
// Pots are scale units (lcm(1..N), twice that for hi/lo); with a qualifying low each half is
// scale / 2, divided among the players tied for it; without one the high takes the pot.
// Boards are (n_boards, 5) uint8 ids (the known board plus the completion).
// Monte Carlo: ge_games_sample_N (N players) draws sample s from its own Philox stream
// (equity.cuh: matchup by weight, the whole tuple redrawn on a clash, then H cards for each
// "dealt" player and the board completion one card at a time), so totals depend only on the
// seed and the sample range, not on the launch; a device flag stops a run whose ranges cannot
// be dealt. Inputs are validated in Python; any grid, blocks of a multiple of 32 threads.
#ifndef GE_EQUITY_GAMES_CU
#define GE_EQUITY_GAMES_CU

#include "ge_common.cuh"
#include "bitmask.cuh"
#include "shortdeck.cuh"
#include "omaha.cuh"
#include "pots.cuh"    // the pot split, the 8-bit low mask
#include "equity.cuh"  // Philox streams, uniform and weighted picks, dealing (Monte Carlo)

template <int H>
GE_DEVICE void ge_games_strengths_h(const ge_u8* __restrict__ pool_ids, ge_u32 n_pool,
                                    const ge_u8* __restrict__ boards, ge_u32 n_boards,
                                    int variant, const ge_u8* __restrict__ low_table,
                                    ge_u16* __restrict__ S, ge_u8* __restrict__ L, ge_u32 ld) {
    const ge_u64 n = (ge_u64)n_boards * n_pool;
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        const ge_u32 b = (ge_u32)(i / n_pool), p = (ge_u32)(i % n_pool);
        const ge_u8* hole = pool_ids + (ge_u64)p * H;
        const ge_u8* board = boards + (ge_u64)b * 5;
        ge_u64 hm = 0, bm = 0;
        GE_UNROLL
        for (int j = 0; j < H; ++j) hm |= ge_card_bit(GE_LDG(hole + j));
        GE_UNROLL
        for (int j = 0; j < 5; ++j) bm |= ge_card_bit(GE_LDG(board + j));
        ge_u32 s = 0, low = 0;
        if (!(hm & bm)) {
            if constexpr (H == 2) {
                s = ge_shortdeck_eval(variant, hm | bm);
            } else {
                ge_u8 h[H], bd[5];
                GE_UNROLL
                for (int j = 0; j < H; ++j) h[j] = GE_LDG(hole + j);
                GE_UNROLL
                for (int j = 0; j < 5; ++j) bd[j] = GE_LDG(board + j);
                s = ge_omaha_eval<H, 5>(ge_omaha_tables, h, bd);
            }
            if (L) low = GE_LDG(low_table + (ge_low8_mask(hm) * 256u +
                                             ge_low8_mask(bm)));
        }
        S[(ge_u64)b * ld + p] = (ge_u16)s;
        if (L) L[(ge_u64)b * ld + p] = (ge_u8)low;
    }
}

// pool_ids: (n_pool, h) uint8 ids, h = 2 (short deck; variant 0 "shortdeck", 1 Triton) or
// 4..6 (Omaha); low_table: gpu_eval.games.eight_or_better.low_tables()["OMAHA"] (65,536 uint8), read only
// when L is not null (hi/lo). Writes S and L at [b * ld + p].
GE_GLOBAL void ge_games_strengths(const ge_u8* __restrict__ pool_ids, int h, ge_u32 n_pool,
                                  const ge_u8* __restrict__ boards, ge_u32 n_boards,
                                  int variant, const ge_u8* __restrict__ low_table,
                                  ge_u16* __restrict__ S, ge_u8* __restrict__ L, ge_u32 ld) {
    switch (h) {
        case 2: ge_games_strengths_h<2>(pool_ids, n_pool, boards, n_boards, variant, low_table,
                                        S, L, ld); break;
        case 4: ge_games_strengths_h<4>(pool_ids, n_pool, boards, n_boards, variant, low_table,
                                        S, L, ld); break;
        case 5: ge_games_strengths_h<5>(pool_ids, n_pool, boards, n_boards, variant, low_table,
                                        S, L, ld); break;
        case 6: ge_games_strengths_h<6>(pool_ids, n_pool, boards, n_boards, variant, low_table,
                                        S, L, ld); break;
        default: break;  // rejected in Python
    }
}

// matchups: (n_matchups, N) int32 pool indices. A task is one matchup on per_task boards
// (grid-stride over tasks); its counters stay in registers and are added to the totals with
// one atomic each. out: wins, ties, units, high, low (n_matchups, N) and valid (n_matchups),
// uint64, added to. L null: a high-only game (high and low stay untouched).
template <int N>
GE_DEVICE void ge_games_showdown(const ge_u16* __restrict__ S, const ge_u8* __restrict__ L,
                                 ge_u32 ld, ge_u32 n_boards, const ge_i32* __restrict__ matchups,
                                 ge_u32 n_matchups, ge_u32 per_task, ge_u32 scale,
                                 unsigned long long* __restrict__ wins,
                                 unsigned long long* __restrict__ ties,
                                 unsigned long long* __restrict__ units,
                                 unsigned long long* __restrict__ valid,
                                 unsigned long long* __restrict__ high,
                                 unsigned long long* __restrict__ low) {
    const ge_u32 slices = (n_boards + per_task - 1) / per_task;
    const ge_u64 n_tasks = (ge_u64)n_matchups * slices;
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 task = ge_thread_index(); task < n_tasks; task += stride) {
        const ge_u64 m = task % n_matchups;
        const ge_u32 y = (ge_u32)(task / n_matchups);
        int col[N];
        GE_UNROLL
        for (int j = 0; j < N; ++j) col[j] = GE_LDG(matchups + m * N + j);
        GeExactTally<N, ge_u64> acc;
        acc.clear();
        const ge_u32 b_lo = y * per_task;
        const ge_u32 b_hi = b_lo + per_task < n_boards ? b_lo + per_task : n_boards;
        for (ge_u32 b = b_lo; b < b_hi; ++b) {
            const ge_u16* row = S + (ge_u64)b * ld;
            ge_u32 s[N], least = 0xFFFFu;
            GE_UNROLL
            for (int j = 0; j < N; ++j) {
                s[j] = GE_LDG(row + col[j]);
                least = s[j] < least ? s[j] : least;
            }
            if (least == 0) continue;  // a hand shares a card with this board
            ge_u32 lo[N];
            const ge_u8* lrow = L + (ge_u64)b * ld;
            GE_UNROLL
            for (int j = 0; j < N; ++j) lo[j] = L ? GE_LDG(lrow + col[j]) : 0u;
            acc.add(ge_pot(N, s, lo, L != nullptr, scale), s, lo, scale);
        }
        acc.flush(wins + m * N, ties + m * N, units + m * N, high + m * N, low + m * N,
                  L != nullptr);
        if (acc.valid) atomicAdd(valid + m, (unsigned long long)acc.valid);
    }
}

#define GE_GAMES_SHOWDOWN_KERNEL(N)                                                           \
    GE_GLOBAL void ge_games_showdown_##N(                                                     \
        const ge_u16* __restrict__ S, const ge_u8* __restrict__ L, ge_u32 ld,                 \
        ge_u32 n_boards, const ge_i32* __restrict__ matchups, ge_u32 n_matchups,              \
        ge_u32 per_task, ge_u32 scale, unsigned long long* __restrict__ wins,                 \
        unsigned long long* __restrict__ ties, unsigned long long* __restrict__ units,        \
        unsigned long long* __restrict__ valid, unsigned long long* __restrict__ high,        \
        unsigned long long* __restrict__ low) {                                               \
        ge_games_showdown<N>(S, L, ld, n_boards, matchups, n_matchups, per_task, scale, wins, \
                             ties, units, valid, high, low);                                  \
    }
GE_FOR_PLAYERS_2_TO_10(GE_GAMES_SHOWDOWN_KERNEL)

// Batch lows (gpu_eval.evaluate_low with backend="cuda"): out[i] = the 8-or-better low of
// hole[i] with board[i] (Omaha, exactly 2 + 3: table = low_tables()["OMAHA"], 65,536 bytes)
// or, when board is null, the best low of any five cards of hole[i] (table = "BEST5", 256).
// shared: GE_GAMES_LOW_ONE_BOARD, one board for every row; GE_GAMES_LOW_ONE_HOLE, one hand
// against every board (n rows out either way: the broadcast of the NumPy path).
#define GE_GAMES_LOW_ONE_BOARD 1
#define GE_GAMES_LOW_ONE_HOLE 2
GE_GLOBAL void ge_games_low(const ge_u64* __restrict__ hole, const ge_u64* __restrict__ board,
                            int shared, const ge_u8* __restrict__ table,
                            ge_u8* __restrict__ out, ge_u64 n) {
    const ge_u64 stride = ge_thread_count();
    const ge_u64 hole_step = (shared & GE_GAMES_LOW_ONE_HOLE) ? 0 : 1;
    const ge_u64 board_step = (shared & GE_GAMES_LOW_ONE_BOARD) ? 0 : 1;
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        const ge_u32 h = ge_low8_mask(GE_LDG(hole + i * hole_step));
        out[i] = board ? GE_LDG(table + (h * 256u +
                                         ge_low8_mask(GE_LDG(board + i * board_step))))
                       : GE_LDG(table + h);
    }
}

// ---------------------------------------------------------------------------------------------
// Monte Carlo.
// ---------------------------------------------------------------------------------------------

// The card ids of a hand mask of c <= C cards (bit 16 * suit + rank -> id 4 * rank + suit),
// lowest bit first, in out[0..c); a fixed trip count keeps `out` in registers.
template <int C>
GE_DEVICE void ge_games_mask_ids(ge_u64 m, ge_u8 (&out)[C]) {
    GE_UNROLL
    for (int j = 0; j < C; ++j) {
        const int b = m ? __ffsll((long long)m) - 1 : 0;
        m &= m - 1;
        out[j] = (ge_u8)(4 * (b & 15) + (b >> 4));
    }
}

// Most hole cards of a sampled hand (Omaha 6).
#define GE_GAMES_MAX_HOLE 6

// High strength of hole | board (no shared card; the board has 5 cards): h = 2 short deck,
// 4..6 Omaha. h is the same for every thread, so the branch never diverges, and one copy of
// each evaluator serves every h.
GE_DEVICE ge_u32 ge_games_high(ge_u64 hole, int h, ge_u64 board, int variant) {
    if (h == 2) return ge_shortdeck_eval(variant, hole | board);
    ge_u8 hi[GE_GAMES_MAX_HOLE], b[5];
    ge_games_mask_ids<GE_GAMES_MAX_HOLE>(hole, hi);
    ge_games_mask_ids<5>(board, b);
    return ge_omaha_eval_upto<GE_GAMES_MAX_HOLE, 5>(ge_omaha_tables, hi, h, b);
}

// a[p] = v and a[p] for a run-time p over an array of N registers: a select per entry (an
// index that is not a compile-time constant would move the array to local memory). The
// loops over players stay loops (one evaluator's code per kernel, not N), and these selects
// are all they pay for it.
template <int N, typename T>
GE_DEVICE void ge_games_put(T (&a)[N], int p, T v) {
    GE_UNROLL
    for (int q = 0; q < N; ++q) a[q] = q == p ? v : a[q];
}
template <int N, typename T>
GE_DEVICE T ge_games_get(const T (&a)[N], int p) {
    T v = a[0];
    GE_UNROLL
    for (int q = 1; q < N; ++q) v = q == p ? a[q] : v;
    return v;
}

// One Monte Carlo deal of N players: the ranged players' hands in player order, the whole
// tuple redrawn while two share a card (up to max_tries attempts, or until the device's stop
// flag is up: another sample has failed, the run is lost), then h cards for each dealt
// player in player order, then the board completion (k cards), one card at a time. False
// when no compatible tuple turned up (or the run was stopped).
template <int N>
GE_DEVICE bool ge_games_draw(GeRng& r, const ge_u64* __restrict__ combos,
                             const ge_u32* __restrict__ offsets, const double* __restrict__ cum,
                             const ge_u8* __restrict__ modes, const ge_u64* __restrict__ deck,
                             ge_u32 n_deck, int h, int k, ge_u32 max_tries,
                             const volatile unsigned long long* stop, ge_u64 (&hole)[N],
                             ge_u64& board) {
    ge_u64 used = 0;
    for (ge_u32 attempt = 0;; ++attempt) {
        if (attempt >= max_tries) return false;
        if (attempt % GE_MC_STOP_CHECK == GE_MC_STOP_CHECK - 1 && *stop) return false;
        used = 0;
        bool clash = false;
        GE_EQ_NO_UNROLL
        for (int p = 0; p < N; ++p) {
            ge_games_put<N>(hole, p, ge_mc_pick_hole(r, GE_LDG(modes + p), GE_LDG(offsets + p),
                                                     combos, offsets, p, cum, used, clash));
        }
        if (!clash) break;
    }
    int n_dealt = 0;
    GE_EQ_NO_UNROLL
    for (int p = 0; p < N; ++p) n_dealt += GE_LDG(modes + p) == GE_MC_DEALT;
    // One dealing site (the generator's code is inlined once per site): h cards for each dealt
    // player in player order, then the board's k cards.
    board = 0;
    ge_u64 hand = 0;
    int p = 0, got = 0;
    const int for_players = h * n_dealt;
    GE_EQ_NO_UNROLL
    for (int c = 0; c < for_players + k; ++c) {
        const ge_u64 card = ge_deal_card(r, deck, n_deck, used);
        used |= card;
        if (c >= for_players) {
            board |= card;
            continue;
        }
        hand |= card;
        if (++got == h) {
            while (GE_LDG(modes + p) != GE_MC_DEALT) ++p;
            ge_games_put<N>(hole, p, hand);
            ++p;
            hand = 0;
            got = 0;
        }
    }
    return true;
}

// Samples [start, stop) of N players with h hole cards each (2: short deck, 4..6: Omaha),
// grid-stride; totals (6 N uint64)
// gains, per player: whole pots won alone, pots shared, pot units won (wins included), the
// sum of squared per-sample units, and the units won through the high and the low half
// (hi/lo only: low_table not null), summed over the block before the atomics (pots.cuh).
// failures > 0 when a sample's ranges never fitted in max_tries; it doubles as the stop flag:
// the first failure stops every other sample at its next check (the host raises anyway).
// Modes as in equity.cuh (GE_MC_*); a dealt player gets h cards.
template <int N>
GE_DEVICE void ge_games_sample_n(const ge_u64* __restrict__ combos,
                                  const ge_u32* __restrict__ offsets,
                                  const double* __restrict__ cum,
                                  const ge_u8* __restrict__ modes,
                                  const ge_u64* __restrict__ deck, ge_u32 n_deck, ge_u64 base,
                                  int k, int h, int variant, const ge_u8* __restrict__ low_table,
                                  ge_u32 scale, ge_u32 key0, ge_u32 key1, ge_u64 start,
                                  ge_u64 stop, ge_u32 max_tries,
                                  unsigned long long* __restrict__ totals,
                                  unsigned long long* __restrict__ failures) {
    __shared__ unsigned long long scratch[GeMcTally<N>::SLOTS];
    ge_clear_shared(scratch, GeMcTally<N>::SLOTS);
    GeMcTally<N> tally;
    tally.clear();
    const bool hilo = low_table != nullptr;
    const volatile unsigned long long* stop_flag = failures;
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 s = start + ge_thread_index(); s < stop; s += stride) {
        if (*stop_flag) break;
        GeRng r;
        ge_rng_init(r, key0, key1, s);
        ge_u64 hole[N], board;
        GE_UNROLL
        for (int p = 0; p < N; ++p) hole[p] = 0;
        if (!ge_games_draw<N>(r, combos, offsets, cum, modes, deck, n_deck, h, k, max_tries,
                              stop_flag, hole, board)) {
            if (!*stop_flag) atomicAdd(failures, 1ull);  // raise the flag at once
            break;
        }
        board |= base;
        ge_u32 st[N], lo[N];
        GE_UNROLL
        for (int p = 0; p < N; ++p) st[p] = lo[p] = 0;
        GE_EQ_NO_UNROLL
        for (int p = 0; p < N; ++p) {
            const ge_u64 hp = ge_games_get<N>(hole, p);
            ge_games_put<N>(st, p, ge_games_high(hp, h, board, variant));
            ge_games_put<N>(lo, p, hilo ? (ge_u32)GE_LDG(low_table + (ge_low8_mask(hp) * 256u +
                                                                    ge_low8_mask(board)))
                                        : 0u);
        }
        tally.add(ge_pot(N, st, lo, hilo, scale), st, lo, scale);
    }
    tally.flush_block(totals, hilo, scratch);
}

// One sampler per player count N (its counters in registers: no stack frame); any grid,
// blocks of a multiple of 32 threads; h (2: short deck, 4..6: Omaha) checked in Python.
#define GE_GAMES_SAMPLE_KERNEL(N)                                                              \
    GE_GLOBAL void ge_games_sample_##N(                                                        \
        const ge_u64* __restrict__ combos, const ge_u32* __restrict__ offsets,                 \
        const double* __restrict__ cum, const ge_u8* __restrict__ modes,                       \
        const ge_u64* __restrict__ deck, ge_u32 n_deck, ge_u64 base, int k, int h, int variant, \
        const ge_u8* __restrict__ low_table, ge_u32 scale, ge_u32 key0, ge_u32 key1,           \
        ge_u64 start, ge_u64 stop, ge_u32 max_tries, unsigned long long* __restrict__ totals,  \
        unsigned long long* __restrict__ failures) {                                           \
        ge_games_sample_n<N>(combos, offsets, cum, modes, deck, n_deck, base, k, h, variant,   \
                             low_table, scale, key0, key1, start, stop, max_tries, totals,     \
                             failures);                                                        \
    }
GE_FOR_PLAYERS_2_TO_10(GE_GAMES_SAMPLE_KERNEL)

#endif  // GE_EQUITY_GAMES_CU
