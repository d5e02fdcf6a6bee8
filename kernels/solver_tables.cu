// solver_tables.cu -- the solver tables' device work (gpu_eval/solver_tables/cuda_engine.py).
//
// ge_tables_board_strengths: the strength of every hole pair (column) with each board, 0 where
// the pair touches the board: out[b * n_cols + j] (gpu_eval.solver_tables.board_strengths). A
// thread per (board, column) cell, cells in row-major order (coalesced stores), any grid.
//
// ge_tables_river_counts: per 5-card board, every column's wins and ties against the opponent
// pairs that share no card with it (gpu_eval.solver_tables.river_counts' integers). A block per
// board (blocks stride over the boards): the board's column strengths go to shared memory, a
// shared histogram of the strengths is turned into running counts by a block scan (how many
// valid columns are weaker than each strength, and how many equal), and each thread then
// counts, for its heroes {a, b}, the weaker and equal columns through a and through b (the
// deck's other cards, deck - 1 reads each) and subtracts them: inclusion-exclusion on the two
// cards, not C x C comparisons.
//
// The game's tables (hold'em or short deck, one layout) are in ge_bitmask_tables; the deck is
// the cards low .. 51 (n = 52 - low of them), column j the colex pair j of the deck's cards.
// Launch with blockDim.x a multiple of 32, at most 256.
#ifndef GE_SOLVER_TABLES_CU
#define GE_SOLVER_TABLES_CU

#include "ge_common.cuh"
#include "bitmask.cuh"

#ifndef GE_TABLES_SYNC  // the block emulator of tests/emulation defines its own barrier
#define GE_TABLES_SYNC() __syncthreads()
#endif

#define GE_TABLES_MAX_COLS 1326
#define GE_TABLES_MAX_THREADS 256

// The colex column of the deck-relative cards x != y.
GE_DEVICE ge_u32 ge_tables_column(ge_u32 x, ge_u32 y) {
    const ge_u32 hi = x > y ? x : y, lo = x > y ? y : x;
    return hi * (hi - 1u) / 2u + lo;
}

GE_GLOBAL void ge_tables_board_strengths(const ge_u64* __restrict__ boards, ge_u32 n_boards,
                                         const ge_u64* __restrict__ pair_masks, ge_u32 n_cols,
                                         ge_u16* __restrict__ out) {
    const GeBitmaskTables& t = ge_bitmask_tables;
    const ge_u64 n = (ge_u64)n_boards * n_cols;
    const ge_u64 step = (ge_u64)gridDim.x * blockDim.x;
    for (ge_u64 i = (ge_u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const ge_u64 board = GE_LDG(boards + i / n_cols);
        const ge_u64 pair = GE_LDG(pair_masks + i % n_cols);
        out[i] = (board & pair) ? (ge_u16)0 : (ge_u16)ge_bitmask_eval(t, board | pair);
    }
}

// boards: n_boards 5-card masks; pair_masks / pair_cards: each column's mask and its two
// deck-relative cards (card - low, packed as a | b << 8); deck: n cards; n_strengths: the
// scale's top strength + 1 (7463 hold'em, 1405 short deck). wins / ties: (n_boards, n_cols).
GE_GLOBAL void ge_tables_river_counts(const ge_u64* __restrict__ boards, ge_u32 n_boards,
                                      const ge_u64* __restrict__ pair_masks,
                                      const ge_u16* __restrict__ pair_cards, ge_u32 n_cols,
                                      ge_u32 deck, ge_u32 n_strengths,
                                      ge_u16* __restrict__ wins, ge_u16* __restrict__ ties) {
    __shared__ ge_u16 s[GE_TABLES_MAX_COLS];
    __shared__ ge_u32 below[GE_NUM_STRENGTHS + 1];   // histogram, then running counts
    __shared__ ge_u32 part[GE_TABLES_MAX_THREADS];
    const GeBitmaskTables& t = ge_bitmask_tables;
    const ge_u32 tid = threadIdx.x, nt = blockDim.x;
    for (ge_u32 b = blockIdx.x; b < n_boards; b += gridDim.x) {
        const ge_u64 board = GE_LDG(boards + b);
        for (ge_u32 v = tid; v <= n_strengths; v += nt) below[v] = 0;
        GE_TABLES_SYNC();
        for (ge_u32 j = tid; j < n_cols; j += nt) {
            const ge_u64 pair = GE_LDG(pair_masks + j);
            const ge_u16 v = (board & pair) ? (ge_u16)0 : (ge_u16)ge_bitmask_eval(t, board | pair);
            s[j] = v;
            if (v) atomicAdd(&below[v], 1u);
        }
        GE_TABLES_SYNC();
        // Exclusive scan of below[0 .. n_strengths]: each thread a contiguous segment.
        const ge_u32 seg = (n_strengths + 1u + nt - 1u) / nt;
        const ge_u32 lo = tid * seg;
        const ge_u32 hi = lo + seg < n_strengths + 1u ? lo + seg : n_strengths + 1u;
        ge_u32 sum = 0;
        for (ge_u32 v = lo; v < hi; ++v) sum += below[v];
        part[tid] = sum;
        GE_TABLES_SYNC();
        if (tid == 0) {
            ge_u32 run = 0;
            for (ge_u32 i = 0; i < nt; ++i) {
                const ge_u32 x = part[i];
                part[i] = run;
                run += x;
            }
        }
        GE_TABLES_SYNC();
        ge_u32 run = part[tid];
        for (ge_u32 v = lo; v < hi; ++v) {
            const ge_u32 x = below[v];
            below[v] = run;
            run += x;
        }
        GE_TABLES_SYNC();
        for (ge_u32 j = tid; j < n_cols; j += nt) {
            const ge_u32 v = s[j];
            ge_u16 w = 0, e = 0;
            if (v) {
                const ge_u16 ab = GE_LDG(pair_cards + j);
                const ge_u32 a = ab & 0xFFu, c = ab >> 8;
                ge_i32 less = (ge_i32)below[v];
                ge_i32 equal = (ge_i32)(below[v + 1] - below[v]) + 1;   // h itself: in a and c
                for (ge_u32 x = 0; x < deck; ++x) {
                    if (x != a) {
                        const ge_u32 sx = s[ge_tables_column(a, x)];
                        less -= sx && sx < v;
                        equal -= sx == v;
                    }
                    if (x != c) {
                        const ge_u32 sx = s[ge_tables_column(c, x)];
                        less -= sx && sx < v;
                        equal -= sx == v;
                    }
                }
                w = (ge_u16)less;
                e = (ge_u16)equal;
            }
            wins[(ge_u64)b * n_cols + j] = w;
            ties[(ge_u64)b * n_cols + j] = e;
        }
        GE_TABLES_SYNC();   // s and below are rewritten for the next board
    }
}

#endif  // GE_SOLVER_TABLES_CU
