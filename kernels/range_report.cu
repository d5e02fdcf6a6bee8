// range_report.cu -- the range report's device counting (gpu_eval/range_reports/cuda.py).
//
// ge_report_counts: per complete (5-card) board, every selected column's weight of opponent
// columns it beats and ties, against one or two weight vectors: the integers (0/1 weights) and
// weighted sums of gpu_eval.range_reports.showdowns.count_boards, board by board. A block per
// board (blocks stride over the boards):
//   1. the columns' strengths (0 where a column touches the board) and keys strength << 11 |
//      column go to shared memory, and a bitonic sort orders the keys;
//   2. a block scan gives, per vector, the running weight of the sorted columns (a column
//      touching the board weighs nothing);
//   3. each thread, for its columns h = {a, b}, finds its strength's run in the sorted keys by
//      binary search (weight below it, weight tied with it) and subtracts the columns through a
//      and through b that are weaker or tied (their member lists, at most deck - 1 each):
//      inclusion-exclusion on the two cards, never C x C comparisons.
//
// The game's tables (hold'em or short deck) are in ge_bitmask_tables. Columns are the caller's
// selection of the deck's hole pairs (at most 1,326); pair_cards packs each column's two
// deck-relative cards (a | b << 8); mates[card_start[x] .. card_start[x + 1]) are the selected
// columns through card x (a column is in both of its cards' lists). weights: n_vecs (1 or 2)
// rows of n_cols doubles. less / equal: (n_boards, n_vecs, n_cols) doubles, 0 where the column
// touches the board. Sums of 0/1 weights are whole numbers, exact in doubles. Launch with
// blockDim.x a power of two from 32 to 256.
#ifndef GE_RANGE_REPORT_CU
#define GE_RANGE_REPORT_CU

#include "ge_common.cuh"
#include "bitmask.cuh"

#ifndef GE_REPORT_SYNC  // the block emulator of tests/emulation defines its own barrier
#define GE_REPORT_SYNC() __syncthreads()
#endif

#define GE_REPORT_MAX_COLS 1326
#define GE_REPORT_SORT 2048          // keys sorted: a power of two above GE_REPORT_MAX_COLS
#define GE_REPORT_MAX_VECS 2
#define GE_REPORT_MAX_THREADS 256

// First position p in key[0 .. n) (sorted) with key[p] >= x.
GE_DEVICE ge_u32 ge_report_lower_bound(const ge_u32* key, ge_u32 n, ge_u32 x) {
    ge_u32 lo = 0, hi = n;
    while (lo < hi) {
        const ge_u32 mid = (lo + hi) >> 1;
        if (key[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

GE_GLOBAL void ge_report_counts(const ge_u64* __restrict__ boards, ge_u32 n_boards,
                                const ge_u64* __restrict__ pair_masks,
                                const ge_u16* __restrict__ pair_cards, ge_u32 n_cols,
                                const ge_u16* __restrict__ card_start,
                                const ge_u16* __restrict__ mates,
                                const double* __restrict__ weights, ge_u32 n_vecs,
                                double* __restrict__ less, double* __restrict__ equal) {
    __shared__ ge_u32 key[GE_REPORT_SORT];
    __shared__ ge_u16 s[GE_REPORT_MAX_COLS];
    __shared__ double run[GE_REPORT_MAX_VECS][GE_REPORT_MAX_COLS + 1];
    __shared__ double part[GE_REPORT_MAX_VECS][GE_REPORT_MAX_THREADS];
    const GeBitmaskTables& t = ge_bitmask_tables;
    const ge_u32 tid = threadIdx.x, nt = blockDim.x;
    for (ge_u32 b = blockIdx.x; b < n_boards; b += gridDim.x) {
        const ge_u64 board = GE_LDG(boards + b);
        for (ge_u32 j = tid; j < GE_REPORT_SORT; j += nt) {
            if (j < n_cols) {
                const ge_u64 pair = GE_LDG(pair_masks + j);
                const ge_u16 v = (board & pair) ? (ge_u16)0 : (ge_u16)ge_bitmask_eval(t, board | pair);
                s[j] = v;
                key[j] = ((ge_u32)v << 11) | j;
            } else {
                key[j] = 0xFFFFFFFFu;
            }
        }
        GE_REPORT_SYNC();
        for (ge_u32 k = 2; k <= GE_REPORT_SORT; k <<= 1) {       // bitonic sort, ascending
            for (ge_u32 h = k >> 1; h > 0; h >>= 1) {
                for (ge_u32 i = tid; i < GE_REPORT_SORT; i += nt) {
                    const ge_u32 o = i ^ h;
                    if (o > i) {
                        const ge_u32 x = key[i], y = key[o];
                        if ((x > y) == ((i & k) == 0)) {
                            key[i] = y;
                            key[o] = x;
                        }
                    }
                }
                GE_REPORT_SYNC();
            }
        }
        // Exclusive running weights of the sorted columns: each thread a contiguous segment.
        const ge_u32 seg = (n_cols + nt - 1u) / nt;
        const ge_u32 lo = tid * seg < n_cols ? tid * seg : n_cols;
        const ge_u32 hi = lo + seg < n_cols ? lo + seg : n_cols;
        for (ge_u32 vec = 0; vec < n_vecs; ++vec) {
            const double* w = weights + (ge_u64)vec * n_cols;
            double sum = 0.0;
            for (ge_u32 p = lo; p < hi; ++p) {
                const ge_u32 j = key[p] & 0x7FFu;
                if (s[j]) sum += GE_LDG(w + j);
            }
            part[vec][tid] = sum;
        }
        GE_REPORT_SYNC();
        if (tid == 0) {
            for (ge_u32 vec = 0; vec < n_vecs; ++vec) {
                double acc = 0.0;
                for (ge_u32 i = 0; i < nt; ++i) {
                    const double x = part[vec][i];
                    part[vec][i] = acc;
                    acc += x;
                }
                run[vec][n_cols] = acc;
            }
        }
        GE_REPORT_SYNC();
        for (ge_u32 vec = 0; vec < n_vecs; ++vec) {
            const double* w = weights + (ge_u64)vec * n_cols;
            double acc = part[vec][tid];
            for (ge_u32 p = lo; p < hi; ++p) {
                run[vec][p] = acc;
                const ge_u32 j = key[p] & 0x7FFu;
                if (s[j]) acc += GE_LDG(w + j);
            }
        }
        GE_REPORT_SYNC();
        for (ge_u32 j = tid; j < n_cols; j += nt) {
            const ge_u32 v = s[j];
            const ge_u64 at = (ge_u64)b * n_vecs * n_cols + j;
            if (!v) {
                for (ge_u32 vec = 0; vec < n_vecs; ++vec) {
                    less[at + (ge_u64)vec * n_cols] = 0.0;
                    equal[at + (ge_u64)vec * n_cols] = 0.0;
                }
                continue;
            }
            const ge_u32 p0 = ge_report_lower_bound(key, n_cols, v << 11);
            const ge_u32 p1 = ge_report_lower_bound(key, n_cols, (v + 1u) << 11);
            const ge_u16 ab = GE_LDG(pair_cards + j);
            const ge_u32 cards[2] = {(ge_u32)(ab & 0xFFu), (ge_u32)(ab >> 8)};
            for (ge_u32 vec = 0; vec < n_vecs; ++vec) {
                const double* w = weights + (ge_u64)vec * n_cols;
                double l = run[vec][p0];
                double e = run[vec][p1] - run[vec][p0] + GE_LDG(w + j);   // h: in both lists
                for (ge_u32 c = 0; c < 2; ++c) {
                    const ge_u32 end = GE_LDG(card_start + cards[c] + 1);
                    for (ge_u32 m = GE_LDG(card_start + cards[c]); m < end; ++m) {
                        const ge_u32 x = GE_LDG(mates + m);
                        const ge_u32 sx = s[x];
                        if (sx && sx < v) l -= GE_LDG(w + x);
                        else if (sx == v) e -= GE_LDG(w + x);
                    }
                }
                less[at + (ge_u64)vec * n_cols] = l;
                equal[at + (ge_u64)vec * n_cols] = e;
            }
        }
        GE_REPORT_SYNC();   // key, s and run are rewritten for the next board
    }
}

#endif  // GE_RANGE_REPORT_CU
