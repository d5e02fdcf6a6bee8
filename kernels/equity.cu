// equity.cu -- the equity kernels (gpu_eval/equity_engine/holdem/cuda_engine.py launches them).
//
// Exact showdowns over a list of boards (the contract of gpu_eval/equity_engine/holdem/numpy_engine.py's
// showdown_counts), in two steps per chunk of boards:
//   ge_eq_strengths   S[b][p] = strength of pool hand p on board b (0 when they share a card):
//                     each distinct hole combo is evaluated once per board;
//   ge_eq_showdown_N  per matchup (N pool indices), integer wins / ties / tie units / valid
//                     boards, compared from S. A warp takes 32 matchups x a slice of boards;
//                     each lane keeps its counters in registers and adds them to the 64-bit
//                     totals once per slice.
// Monte Carlo (gpu_eval.equity_engine.holdem.numpy_engine.sample_counts): ge_eq_sample_N draws sample s from its
// own Philox stream (equity.cuh), so totals depend only on the seed and the sample range.
// The preflop matrix: ge_eq_strengths over all 1326 combos and a chunk of the C(52, 5) boards,
// then ge_eq_pairs, a 64 x 64 tiled count of wins and ties of every combo pair.
// Launch with blockDim.x a multiple of 32 (ge_eq_pairs: exactly 256); any grid.
#ifndef GE_EQUITY_CU
#define GE_EQUITY_CU

#include "ge_common.cuh"
#include "bitmask.cuh"
#include "equity.cuh"

#if GE_IS_DEVICE
typedef uint4 ge_v4;
typedef uint2 ge_v2;
#else
struct alignas(16) ge_v4 {
    ge_u32 x, y, z, w;
};
struct alignas(8) ge_v2 {
    ge_u32 x, y;
};
#endif

// ---------------------------------------------------------------------------------------------
// Strengths of pool hands on boards.
// ---------------------------------------------------------------------------------------------
#define GE_EQ_TILE_BOARDS 256

// S[b * ld + p] for b < n_boards, p < n_pool (other entries untouched). Board b is
// boards[b] | base, or, when boards is null, the colex k-subset number first + b of
// deck_ids (binom: gpu_eval.combinatorics.BINOM) | base.
GE_GLOBAL void ge_eq_strengths(const ge_u64* __restrict__ pool, ge_u32 n_pool,
                               const ge_u64* __restrict__ boards,
                               const ge_u8* __restrict__ deck_ids, int k, ge_u64 first,
                               const ge_u64* __restrict__ binom, ge_u64 base, ge_u32 n_boards,
                               ge_u16* __restrict__ S, ge_u32 ld) {
    __shared__ ge_u64 s_board[GE_EQ_TILE_BOARDS];
    const GeBitmaskTables& t = ge_bitmask_tables;
    // Boards per tile: ~8 (board, hand) cells per thread, so a tile of a large pool has few
    // boards (their unranking is spread over threads) and a tile of a small pool many.
    ge_u32 tile = (blockDim.x * 8u) / n_pool;
    tile = tile < 8u ? 8u : (tile > GE_EQ_TILE_BOARDS ? GE_EQ_TILE_BOARDS : tile);
    const ge_u32 n_tiles = (n_boards + tile - 1) / tile;
    // Cells (b, p) of a tile are numbered b * n_pool + p (p fastest: coalesced stores); each
    // thread walks them blockDim.x apart without dividing.
    const ge_u32 step_b = blockDim.x / n_pool, step_p = blockDim.x % n_pool;
    for (ge_u32 ti = blockIdx.x; ti < n_tiles; ti += gridDim.x) {
        const ge_u32 b0 = ti * tile;
        const ge_u32 nb = ge_eq_min_u32(tile, n_boards - b0);
        ge_eq_sync();  // the previous tile's boards are no longer read
        for (ge_u32 i = threadIdx.x; i < nb; i += blockDim.x) {
            const ge_u64 b = boards ? GE_LDG(boards + b0 + i)
                                    : ge_colex_board(deck_ids, k, first + b0 + i, binom);
            s_board[i] = b | base;
        }
        ge_eq_sync();
        ge_u32 b = threadIdx.x / n_pool, p = threadIdx.x % n_pool;
        while (b < nb) {
            const ge_u64 board = s_board[b];
            const ge_u64 h = GE_LDG(pool + p);
            S[(ge_u64)(b0 + b) * ld + p] =
                (h & board) ? (ge_u16)0 : (ge_u16)ge_bitmask_eval(t, h | board);
            p += step_p;
            b += step_b;
            if (p >= n_pool) {
                p -= n_pool;
                ++b;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Exact showdowns per matchup.
// ---------------------------------------------------------------------------------------------

// matchups: (n_matchups, N) int32 pool indices. Adds to wins/ties/units (n_matchups, N) and
// valid (n_matchups) exactly what gpu_eval.equity_engine.holdem.numpy_engine.showdown_counts counts on S's boards:
// a board counts for a matchup when no hand of it has strength 0 (shares a card with the
// board); the best hands win (one: a win; several: a tie each and lcm(1..N) / c units).
// A task is (32 matchups, per_task boards); task t of a warp covers matchup group t % groups.
// When the group has fewer than 32 matchups, mt (a power of two) lanes cover them and the
// 32 / mt replicas split the boards, then the replicas' counters are summed by shuffles.
template <int N>
GE_DEVICE void ge_showdown(const ge_u16* __restrict__ S, ge_u32 ld, ge_u32 n_boards,
                           const ge_i32* __restrict__ matchups, ge_u32 n_matchups,
                           ge_u32 per_task, unsigned long long* __restrict__ wins,
                           unsigned long long* __restrict__ ties,
                           unsigned long long* __restrict__ units,
                           unsigned long long* __restrict__ valid) {
    constexpr ge_u32 SCALE = GePotUnits<N>::value;
    const ge_u32 lane = threadIdx.x % GE_WARP;
    const ge_u64 n_warps = ge_thread_count() / GE_WARP;
    const ge_u32 groups = (n_matchups + GE_WARP - 1) / GE_WARP;
    const ge_u32 slices = (n_boards + per_task - 1) / per_task;
    const ge_u64 n_tasks = (ge_u64)groups * slices;
    for (ge_u64 task = ge_thread_index() / GE_WARP; task < n_tasks; task += n_warps) {
        // Warp-uniform from here to the shuffles.
        const ge_u32 g = (ge_u32)(task % groups);
        const ge_u32 y = (ge_u32)(task / groups);
        const ge_u32 m0 = g * GE_WARP;
        const ge_u32 cnt = ge_eq_min_u32(GE_WARP, n_matchups - m0);
        ge_u32 mt = 1;
        while (mt < cnt) mt <<= 1;
        const ge_u32 lm = lane & (mt - 1);
        const bool active = lm < cnt;
        const ge_u64 m = m0 + (active ? lm : 0);
        int col[N];
        GE_UNROLL
        for (int j = 0; j < N; ++j) col[j] = GE_LDG(matchups + m * N + j);
        ge_u32 w[N], t[N], u[N], v = 0;
        GE_UNROLL
        for (int j = 0; j < N; ++j) w[j] = t[j] = u[j] = 0;
        const ge_u64 b_end = (ge_u64)y * per_task + per_task;
        const ge_u32 b_hi = b_end < n_boards ? (ge_u32)b_end : n_boards;
        const ge_u32 step = GE_WARP / mt;
        // Unrolled so several boards' loads are in flight at once (the loop is latency-bound).
        GE_EQ_UNROLL4
        for (ge_u32 b = y * per_task + lane / mt; active && b < b_hi; b += step) {
            const ge_u16* row = S + (ge_u64)b * ld;
            ge_u32 s[N];
            GE_UNROLL
            for (int j = 0; j < N; ++j) s[j] = GE_LDG(row + col[j]);
            if constexpr (N == 2) {
                const ge_u32 a = s[0], c = s[1];
                // a > c needs c valid (then a is too); a tie needs a valid (then c is too).
                w[0] += (a > c) & (c != 0);
                w[1] += (c > a) & (a != 0);
                t[0] += (a == c) & (a != 0);
                v += (a != 0) & (c != 0);
            } else {
                ge_u32 best = 0, low = 0xFFFFu;
                GE_UNROLL
                for (int j = 0; j < N; ++j) {
                    best = s[j] > best ? s[j] : best;
                    low = s[j] < low ? s[j] : low;
                }
                if (low != 0) {
                    ++v;
                    ge_u32 n_best = 0;
                    GE_UNROLL
                    for (int j = 0; j < N; ++j) n_best += s[j] == best;
                    if (n_best == 1) {
                        GE_UNROLL
                        for (int j = 0; j < N; ++j) w[j] += s[j] == best;
                    } else {
                        const ge_u32 share = SCALE / n_best;
                        GE_UNROLL
                        for (int j = 0; j < N; ++j) {
                            if (s[j] == best) {
                                t[j] += 1;
                                u[j] += share;
                            }
                        }
                    }
                }
            }
        }
        for (ge_u32 off = mt; off < GE_WARP; off <<= 1) {
            GE_UNROLL
            for (int j = 0; j < N; ++j) {
                w[j] += ge_eq_shfl_xor(w[j], (int)off);
                t[j] += ge_eq_shfl_xor(t[j], (int)off);
                if (N > 2) u[j] += ge_eq_shfl_xor(u[j], (int)off);
            }
            v += ge_eq_shfl_xor(v, (int)off);
        }
        if (N == 2) {  // heads-up: both players tie together, one unit each (lcm(1, 2) / 2)
            t[N - 1] = t[0];
            u[0] = u[N - 1] = t[0];
        }
        if (active && lane < mt) {
            GE_UNROLL
            for (int j = 0; j < N; ++j) {
                if (w[j]) atomicAdd(wins + m * N + j, (unsigned long long)w[j]);
                if (t[j]) atomicAdd(ties + m * N + j, (unsigned long long)t[j]);
                if (u[j]) atomicAdd(units + m * N + j, (unsigned long long)u[j]);
            }
            if (v) atomicAdd(valid + m, (unsigned long long)v);
        }
    }
}

#define GE_EQ_SHOWDOWN_KERNEL(N)                                                              \
    GE_GLOBAL void ge_eq_showdown_##N(                                                        \
        const ge_u16* __restrict__ S, ge_u32 ld, ge_u32 n_boards,                             \
        const ge_i32* __restrict__ matchups, ge_u32 n_matchups, ge_u32 per_task,              \
        unsigned long long* __restrict__ wins, unsigned long long* __restrict__ ties,         \
        unsigned long long* __restrict__ units, unsigned long long* __restrict__ valid) {     \
        ge_showdown<N>(S, ld, n_boards, matchups, n_matchups, per_task, wins, ties, units,    \
                       valid);                                                                \
    }
GE_FOR_PLAYERS_2_TO_10(GE_EQ_SHOWDOWN_KERNEL)

// ---------------------------------------------------------------------------------------------
// Monte Carlo.
// ---------------------------------------------------------------------------------------------

// Samples [start, stop), grid-stride. totals (4 N uint64) gains, per player: outright wins,
// split pots, pot units won (lcm(1..N) per pot, wins included) and the sum of squared
// per-sample units. A sample whose ranges never fitted in max_tries sets *failures (and the
// others then stop early: the run is lost anyway, and the host raises).
template <int N>
GE_DEVICE void ge_sample(const ge_u64* __restrict__ combos, const ge_u32* __restrict__ offsets,
                         const double* __restrict__ cum, const ge_u8* __restrict__ modes,
                         const ge_u64* __restrict__ deck, ge_u32 n_deck, ge_u64 base, int k,
                         ge_u32 key0, ge_u32 key1, ge_u64 start, ge_u64 stop,
                         ge_u32 max_tries, unsigned long long* __restrict__ totals,
                         unsigned long long* __restrict__ failures) {
    __shared__ unsigned long long s_tot[4 * GE_EQ_MAX_PLAYERS];
    constexpr ge_u32 SCALE = GePotUnits<N>::value;
    const GeBitmaskTables& tb = ge_bitmask_tables;
    for (ge_u32 i = threadIdx.x; i < 4 * N; i += blockDim.x) s_tot[i] = 0;
    ge_eq_sync();
    ge_u32 w[N], t[N];
    ge_u64 u[N], q[N];
    GE_UNROLL
    for (int p = 0; p < N; ++p) {
        w[p] = t[p] = 0;
        u[p] = q[p] = 0;
    }
    const ge_u64 stride = ge_thread_count();
    // failures doubles as the stop flag: the first sample that cannot be dealt stops all.
    const volatile unsigned long long* stop_flag = failures;
    for (ge_u64 s = start + ge_thread_index(); s < stop; s += stride) {
        if (*stop_flag) break;
        GeRng r;
        ge_rng_init(r, key0, key1, s);
        ge_u64 hole[N];
        ge_u64 board;
        if (!ge_mc_draw<N>(r, combos, offsets, cum, modes, deck, n_deck, N, k, max_tries, hole,
                           board, stop_flag)) {
            if (!*stop_flag) atomicAdd(failures, 1ull);  // raise the flag at once
            break;
        }
        board |= base;
        ge_u32 st[N], best = 0;
        GE_UNROLL
        for (int p = 0; p < N; ++p) {
            st[p] = ge_bitmask_eval(tb, hole[p] | board);
            best = st[p] > best ? st[p] : best;
        }
        ge_u32 n_best = 0;
        GE_UNROLL
        for (int p = 0; p < N; ++p) n_best += st[p] == best;
        const ge_u32 share = n_best == 1 ? SCALE : SCALE / n_best;
        GE_UNROLL
        for (int p = 0; p < N; ++p) {
            if (st[p] == best) {
                if (n_best == 1) ++w[p];
                else ++t[p];
                u[p] += share;
                q[p] += (ge_u64)share * share;
            }
        }
    }
    // Warp sums, then one shared atomic per warp and counter, then one global one per block.
    for (int off = 1; off < GE_WARP; off <<= 1) {
        GE_UNROLL
        for (int p = 0; p < N; ++p) {
            w[p] += ge_eq_shfl_xor(w[p], off);
            t[p] += ge_eq_shfl_xor(t[p], off);
            u[p] += ge_eq_shfl_xor64(u[p], off);
            q[p] += ge_eq_shfl_xor64(q[p], off);
        }
    }
    if (threadIdx.x % GE_WARP == 0) {
        GE_UNROLL
        for (int p = 0; p < N; ++p) {
            if (w[p]) atomicAdd(s_tot + p, (unsigned long long)w[p]);
            if (t[p]) atomicAdd(s_tot + N + p, (unsigned long long)t[p]);
            if (u[p]) atomicAdd(s_tot + 2 * N + p, (unsigned long long)u[p]);
            if (q[p]) atomicAdd(s_tot + 3 * N + p, (unsigned long long)q[p]);
        }
    }
    ge_eq_sync();
    for (ge_u32 i = threadIdx.x; i < 4 * N; i += blockDim.x) {
        const unsigned long long x = s_tot[i];
        if (x) atomicAdd(totals + i, x);
    }
}

// Heads-up and 3-way runs are the common ones: 3 blocks of 256 per SM (up to 80 registers)
// keep enough warps in flight to hide the table lookups without spilling (4 blocks capped
// them at 64 registers, and ptxas spilled 20 B (N = 2) and 160 B (N = 3) of them; CI checks
// the spill counts: tests/test_kernel_resources.py). Larger N get what they need.
#if GE_IS_DEVICE
#define GE_EQ_BOUNDS(N) __launch_bounds__(256, (N) <= 3 ? 3 : 0)
#else
#define GE_EQ_BOUNDS(N)
#endif

#define GE_EQ_SAMPLE_KERNEL(N)                                                                \
    GE_GLOBAL void GE_EQ_BOUNDS(N) ge_eq_sample_##N(                                          \
        const ge_u64* __restrict__ combos, const ge_u32* __restrict__ offsets,                \
        const double* __restrict__ cum, const ge_u8* __restrict__ modes,                      \
        const ge_u64* __restrict__ deck, ge_u32 n_deck, ge_u64 base, int k, ge_u32 key0,      \
        ge_u32 key1, ge_u64 start, ge_u64 stop, ge_u32 max_tries,                             \
        unsigned long long* __restrict__ totals, unsigned long long* __restrict__ failures) { \
        ge_sample<N>(combos, offsets, cum, modes, deck, n_deck, base, k, key0, key1, start,   \
                     stop, max_tries, totals, failures);                                      \
    }
GE_FOR_PLAYERS_2_TO_10(GE_EQ_SAMPLE_KERNEL)

// The draws of samples [start, start + count) of n players (for tests against the NumPy
// twin): holes (count, n), boards (count; without base), ok (count).
GE_GLOBAL void ge_eq_mc_draws(int n, const ge_u64* __restrict__ combos,
                              const ge_u32* __restrict__ offsets,
                              const double* __restrict__ cum, const ge_u8* __restrict__ modes,
                              const ge_u64* __restrict__ deck, ge_u32 n_deck, int k,
                              ge_u32 key0, ge_u32 key1, ge_u64 start, ge_u64 count,
                              ge_u32 max_tries, ge_u64* __restrict__ holes,
                              ge_u64* __restrict__ boards, ge_u8* __restrict__ ok) {
    for (ge_u64 i = ge_thread_index(); i < count; i += ge_thread_count()) {
        GeRng r;
        ge_rng_init(r, key0, key1, start + i);
        ge_u64 hole[GE_EQ_MAX_PLAYERS];
        ge_u64 board = 0;
        ok[i] = ge_mc_draw<GE_EQ_MAX_PLAYERS>(r, combos, offsets, cum, modes, deck, n_deck, n, k,
                                              max_tries, hole, board);
        for (int p = 0; p < n; ++p) holes[i * n + p] = hole[p];
        boards[i] = board;
    }
}

// Philox4x32-10 of n (counter, key) pairs: ctr (n, 4), key (n, 2), out (n, 4) uint32.
GE_GLOBAL void ge_eq_philox(const ge_u32* __restrict__ ctr, const ge_u32* __restrict__ key,
                            ge_u32* __restrict__ out, ge_u64 n) {
    for (ge_u64 i = ge_thread_index(); i < n; i += ge_thread_count()) {
        ge_u32 c[4] = {ctr[4 * i], ctr[4 * i + 1], ctr[4 * i + 2], ctr[4 * i + 3]};
        ge_philox4x32_10(c, key[2 * i], key[2 * i + 1]);
        for (int j = 0; j < 4; ++j) out[4 * i + j] = c[j];
    }
}

// ---------------------------------------------------------------------------------------------
// The all-hands heads-up matrix.
// ---------------------------------------------------------------------------------------------
#define GE_PAIR_TILE 64    // hands per tile side
#define GE_PAIR_BOARDS 32  // boards staged in shared memory at a time

// Swaps every 16-bit strength 0 (hand touches the board) for 0xFFFF: on the column side an
// invalid hand then never loses to (0xFFFF > a is false for a <= 7462) nor ties with a row
// hand, and a row hand's 0 never beats or ties a valid column hand, so a win is a > b and a
// tie a == b with no validity test in the inner loop.
GE_DEVICE ge_u32 ge_pair_lift(ge_u32 x) {
    const ge_u32 lo = (x & 0xFFFFu) ? (x & 0xFFFFu) : 0xFFFFu;
    const ge_u32 hi = (x >> 16) ? (x >> 16) : 0xFFFFu;
    return lo | (hi << 16);
}

// S: (boards, ld) strengths of n_hands hands (columns n_hands .. ld - 1 are 0; ld is a
// multiple of 64). Block x is one tile pair (ti <= tj, upper triangle, row-major); block y
// one slice of the boards [0, n_boards). Adds, for i in tile ti and j in tile tj, the boards
// where hand i beats hand j to wins[i * n_hands + j] and the ties to ties[...]. Pairs that
// share a card are counted as if they did not (the caller zeroes them); the lower triangle
// follows from the upper one (the caller fills it). blockDim.x must be 256: a 16 x 16 grid of
// threads, each with a 4 x 4 block of pairs in registers.
GE_GLOBAL void ge_eq_pairs(const ge_u16* __restrict__ S, ge_u32 ld, ge_u32 n_boards,
                           ge_u32 n_hands, ge_u32* __restrict__ wins,
                           ge_u32* __restrict__ ties) {
    __shared__ ge_v4 s_a[GE_PAIR_BOARDS * GE_PAIR_TILE / 8];
    __shared__ ge_v4 s_b[GE_PAIR_BOARDS * GE_PAIR_TILE / 8];
    const ge_u32 n_tiles = (n_hands + GE_PAIR_TILE - 1) / GE_PAIR_TILE;
    ge_u32 rest = blockIdx.x, ti = 0;
    while (ti < n_tiles && rest >= n_tiles - ti) {
        rest -= n_tiles - ti;
        ++ti;
    }
    if (ti >= n_tiles) return;  // (block-uniform) more blocks than tile pairs
    const ge_u32 tj = ti + rest;
    const ge_u32 i0 = ti * GE_PAIR_TILE, j0 = tj * GE_PAIR_TILE;
    const ge_u32 lo = (ge_u32)((ge_u64)n_boards * blockIdx.y / gridDim.y);
    const ge_u32 hi = (ge_u32)((ge_u64)n_boards * (blockIdx.y + 1) / gridDim.y);
    const ge_u32 tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const ge_u16* sa = reinterpret_cast<const ge_u16*>(s_a);
    const ge_u16* sb = reinterpret_cast<const ge_u16*>(s_b);

    ge_u32 w[4][4], t[4][4];
    GE_UNROLL
    for (int r = 0; r < 4; ++r) {
        GE_UNROLL
        for (int c = 0; c < 4; ++c) w[r][c] = t[r][c] = 0;
    }
    for (ge_u32 b0 = lo; b0 < hi; b0 += GE_PAIR_BOARDS) {
        ge_eq_sync();  // everyone is done with the previous boards
        // Stage GE_PAIR_BOARDS rows of 64 strengths per side: 8 16-byte vectors a row, so 8
        // consecutive threads read one 128-byte row segment (coalesced). Rows past the slice
        // get 0 (row side) and 0xFFFF (column side): they count nothing.
        for (ge_u32 v = threadIdx.x; v < GE_PAIR_BOARDS * 8; v += blockDim.x) {
            const ge_u32 b = b0 + v / 8, c = (v % 8) * 8;
            ge_v4 a, bb;
            if (b < hi) {
                const ge_u16* row = S + (ge_u64)b * ld;
                a = *reinterpret_cast<const ge_v4*>(row + i0 + c);
                bb = *reinterpret_cast<const ge_v4*>(row + j0 + c);
                bb.x = ge_pair_lift(bb.x);
                bb.y = ge_pair_lift(bb.y);
                bb.z = ge_pair_lift(bb.z);
                bb.w = ge_pair_lift(bb.w);
            } else {
                a.x = a.y = a.z = a.w = 0u;
                bb.x = bb.y = bb.z = bb.w = 0xFFFFFFFFu;
            }
            s_a[v] = a;
            s_b[v] = bb;
        }
        ge_eq_sync();
        GE_UNROLL
        for (int r = 0; r < GE_PAIR_BOARDS; ++r) {
            // Row hands ty*4 .. +3 and column hands tx*4 .. +3: one 8-byte load each (the 16
            // threads of a row read the same word: a broadcast).
            const ge_v2 av = *reinterpret_cast<const ge_v2*>(sa + r * GE_PAIR_TILE + ty * 4);
            const ge_v2 bv = *reinterpret_cast<const ge_v2*>(sb + r * GE_PAIR_TILE + tx * 4);
            const ge_u32 a[4] = {av.x & 0xFFFFu, av.x >> 16, av.y & 0xFFFFu, av.y >> 16};
            const ge_u32 c[4] = {bv.x & 0xFFFFu, bv.x >> 16, bv.y & 0xFFFFu, bv.y >> 16};
            // Both sides are below 2^16, so the sign bit of c - a is [a > c] and that of
            // c - a - 1 = c + ~a is [a >= c]: one add and one shift-add each (IADD3 +
            // LEA.HI), where comparisons compile to compare, add and select.
            GE_UNROLL
            for (int ii = 0; ii < 4; ++ii) {
                const ge_u32 na = ~a[ii];
                GE_UNROLL
                for (int jj = 0; jj < 4; ++jj) {
                    w[ii][jj] += (c[jj] - a[ii]) >> 31;
                    t[ii][jj] += (c[jj] + na) >> 31;  // wins + ties, until the end
                }
            }
        }
    }
    GE_UNROLL
    for (int ii = 0; ii < 4; ++ii) {
        const ge_u32 i = i0 + ty * 4 + ii;
        GE_UNROLL
        for (int jj = 0; jj < 4; ++jj) {
            const ge_u32 j = j0 + tx * 4 + jj;
            t[ii][jj] -= w[ii][jj];
            if (i < n_hands && j < n_hands) {
                if (w[ii][jj]) atomicAdd(wins + (ge_u64)i * n_hands + j, w[ii][jj]);
                if (t[ii][jj]) atomicAdd(ties + (ge_u64)i * n_hands + j, t[ii][jj]);
            }
        }
    }
}

#endif  // GE_EQUITY_CU
