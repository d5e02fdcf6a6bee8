// pots.cuh -- one pot split among n players in integer units, the rule of every game here
// (gpu_eval/equity_engine/board_games/numpy_engine.py's pots(), on the device).
//
// The best high hand (or the hands tied for it) takes the pot; in a hi/lo game with a
// qualifying low (lo[j] > 0: the 8-or-better low, higher is better) the high takes half and
// the best low the other half. A pot is `scale` units (lcm(1..n), twice that for hi/lo), so
// every share is whole. Shared by equity_games.cu (Omaha, short deck) and equity_deals.cu
// (stud, razz, the draw games).
#ifndef GE_POTS_CUH
#define GE_POTS_CUH

#include "ge_common.cuh"
#include "equity.cuh"  // ge_eq_shfl_xor64, ge_eq_sync: the block sums before the atomics

// The 8-bit low mask of a hand mask: bit 0 the ace, bit i rank i + 1 (2..8).
GE_DEVICE ge_u32 ge_low8_mask(ge_u64 m) {
    const ge_u32 r = (ge_u32)((m | (m >> 16) | (m >> 32) | (m >> 48)) & 0x1FFFull);
    return ((r & 0x7Fu) << 1) | ((r >> 12) & 1u);
}

// A pot's split: pot.high(s[j]) and pot.low(lo[j]) are the units player j wins through the
// high and through the low. s: high strengths (every one > 0); lo: lows (0: none), read only
// when hilo. Inlined with a constant n, the loops unroll and the arrays stay in registers (lo
// is always an array, never a pointer chosen at run time, which would put it in local memory).
struct GePot {
    ge_u32 best, lbest, hshare, lshare;

    GE_DEVICE ge_u32 high(ge_u32 s) const { return s == best ? hshare : 0u; }
    GE_DEVICE ge_u32 low(ge_u32 lo) const { return (lbest && lo == lbest) ? lshare : 0u; }
};

GE_DEVICE GePot ge_pot(int n, const ge_u32* s, const ge_u32* lo, bool hilo, ge_u32 scale) {
    GePot pot;
    pot.best = 0;
    pot.lbest = 0;
    GE_UNROLL
    for (int j = 0; j < n; ++j) {
        pot.best = s[j] > pot.best ? s[j] : pot.best;
        if (hilo) pot.lbest = lo[j] > pot.lbest ? lo[j] : pot.lbest;
    }
    ge_u32 n_best = 0, n_low = 0;
    GE_UNROLL
    for (int j = 0; j < n; ++j) {
        n_best += s[j] == pot.best;
        n_low += pot.lbest && lo[j] == pot.lbest;
    }
    // Ties are rare: the integer division (a long instruction sequence) only runs for them.
    const ge_u32 half = scale / 2, high = pot.lbest ? half : scale;
    pot.hshare = n_best == 1 ? high : high / n_best;
    pot.lshare = !pot.lbest ? 0u : n_low == 1 ? half : half / n_low;
    return pot;
}

// Block-wide sums before the global atomics. Every thread holds its own counters; adding them
// straight to the totals would be one same-address 64-bit atomic per counter and thread (about
// 1.6 million a launch on a full H200 grid). Instead a value is summed over its warp by
// shuffles (every lane gets the sum), lane 0 adds it to the block's `scratch` slot in shared
// memory, and after a barrier one thread per slot adds the block's sum to its total: one
// global atomic per counter and block. Every thread of the block must take part (barriers and
// full-warp shuffles); blockDim.x is a multiple of 32.
GE_DEVICE void ge_warp_to_shared(ge_u64 x, unsigned long long* scratch_slot) {
    GE_UNROLL
    for (int off = 1; off < GE_WARP; off <<= 1) x += ge_eq_shfl_xor64(x, off);
    if (threadIdx.x % GE_WARP == 0 && x) atomicAdd(scratch_slot, (unsigned long long)x);
}

// The block's slots to their totals (dest(i): the address of slot i's total), then the slots
// cleared for the next flush. Barriers on both sides: the warps' shared atomics are done before
// the slots are read, and every slot is zero again before any thread adds to it.
template <class Dest>
GE_DEVICE void ge_shared_to_global(unsigned long long* scratch, int count, const Dest& dest) {
    ge_eq_sync();
    for (int i = (int)threadIdx.x; i < count; i += (int)blockDim.x) {
        const unsigned long long x = scratch[i];
        if (x) atomicAdd(dest(i), x);
        scratch[i] = 0;
    }
    ge_eq_sync();
}

// Slots zeroed at the start of a kernel (before the first flush).
GE_DEVICE void ge_clear_shared(unsigned long long* scratch, int count) {
    for (int i = (int)threadIdx.x; i < count; i += (int)blockDim.x) scratch[i] = 0;
    ge_eq_sync();
}

// Where a slot's total is: slot i of an exact flush is entry i % n of array i / n (wins,
// ties, units, high, low; the deals, one entry, at slot 5 n), chosen by selects, never by
// indexing an array of pointers (which would live in local memory).
struct GeExactSlots {
    unsigned long long *wins, *ties, *units, *high, *low, *n_valid;
    int n;
    GE_DEVICE unsigned long long* operator()(int i) const {
        const int k = i / n, j = i % n;
        unsigned long long* a = k == 0 ? wins : k == 1 ? ties : k == 2 ? units
                                : k == 3 ? high : k == 4 ? low : n_valid;
        return a + j;
    }
};
// Slot i of a Monte Carlo flush is totals[i].
struct GeContiguousSlots {
    unsigned long long* totals;
    GE_DEVICE unsigned long long* operator()(int i) const { return totals + i; }
};

// Per-player exact counters of one thread over the deals (or boards) it walks: whole pots won
// alone, pots shared and their units, the high and low units, and the deals counted; U, the
// units' type (32 bits where the caller bounds the deals between flushes). flush() adds them
// to totals (N each, offset by the caller) with one atomic each, for a thread whose totals
// are its own (the showdown kernels: a matchup per thread); flush_block() sums them over the
// block first (every thread adds to the same totals: the deal grid).
// Shared by the exact kernels of equity_games.cu and equity_deals.cu.
template <int N, typename U>
struct GeExactTally {
    ge_u32 w[N], t[N], valid;
    U u[N], hu[N], lu[N];

    // Slots of flush_block: wins, ties, units, high, low (N each), then the deals.
    static constexpr int SLOTS = 5 * N + 1;

    GE_DEVICE void clear() {
        GE_UNROLL
        for (int j = 0; j < N; ++j) {
            w[j] = t[j] = 0;
            u[j] = hu[j] = lu[j] = 0;
        }
        valid = 0;
    }
    GE_DEVICE void add(const GePot& pot, const ge_u32* s, const ge_u32* lo, ge_u32 scale) {
        GE_UNROLL
        for (int j = 0; j < N; ++j) {
            const ge_u32 gh = pot.high(s[j]), gl = pot.low(lo[j]);
            const ge_u32 got = gh + gl;
            hu[j] += gh;
            lu[j] += gl;
            if (got == scale) {
                ++w[j];
            } else if (got) {
                ++t[j];
                u[j] += got;
            }
        }
        ++valid;
    }
    GE_DEVICE void flush(unsigned long long* wins, unsigned long long* ties,
                         unsigned long long* units, unsigned long long* high,
                         unsigned long long* low, bool hilo) const {
        GE_UNROLL
        for (int j = 0; j < N; ++j) {
            if (w[j]) atomicAdd(wins + j, (unsigned long long)w[j]);
            if (t[j]) atomicAdd(ties + j, (unsigned long long)t[j]);
            if (u[j]) atomicAdd(units + j, (unsigned long long)u[j]);
            if (hilo && hu[j]) atomicAdd(high + j, (unsigned long long)hu[j]);
            if (hilo && lu[j]) atomicAdd(low + j, (unsigned long long)lu[j]);
        }
    }
    // Counter i of flush_block's slots (i / N: wins, ties, units, high, low; slot 5 N: the
    // deals), picked by selects over constant indices: the registers stay registers.
    GE_DEVICE ge_u64 slot(int i) const {
        const int kind = i / N, j = i % N;
        ge_u64 v = valid;
        GE_UNROLL
        for (int q = 0; q < N; ++q) {
            if (q == j) {
                v = kind == 0 ? (ge_u64)w[q] : kind == 1 ? (ge_u64)t[q] : kind == 2 ? (ge_u64)u[q]
                  : kind == 3 ? (ge_u64)hu[q] : kind == 4 ? (ge_u64)lu[q] : v;
            }
        }
        return v;
    }
    // scratch: SLOTS shared words, zero (ge_clear_shared); every thread of the block calls it.
    // The high and low units count only in a hi/lo game (hilo), as in flush(). One slot at a
    // time (a loop, not unrolled: NVRTC's time and the code stay small; it runs once a flush).
    GE_DEVICE void flush_block(unsigned long long* wins, unsigned long long* ties,
                               unsigned long long* units, unsigned long long* high,
                               unsigned long long* low, unsigned long long* n_valid, bool hilo,
                               unsigned long long* scratch) const {
        GE_EQ_NO_UNROLL
        for (int i = 0; i < SLOTS; ++i) {
            const bool units_of_halves = i >= 3 * N && i < 5 * N;
            ge_warp_to_shared(units_of_halves && !hilo ? 0 : slot(i), scratch + i);
        }
        ge_shared_to_global(scratch, SLOTS,
                            GeExactSlots{wins, ties, units, high, low, n_valid, N});
    }
};

// Per-player Monte Carlo counters of one thread over its samples, N players: whole pots won
// alone, pots shared, pot units won (wins included), the sum of squared per-sample units, and
// the high and low units; flush_block() adds them to totals (6 N uint64, in that order) with
// one global atomic per counter and block. Shared by the samplers of equity_games.cu and
// equity_deals.cu.
template <int N>
struct GeMcTally {
    ge_u32 w[N], t[N];
    ge_u64 u[N], q[N], hu[N], lu[N];

    static constexpr int SLOTS = 6 * N;

    GE_DEVICE void clear() {
        GE_UNROLL
        for (int j = 0; j < N; ++j) {
            w[j] = t[j] = 0;
            u[j] = q[j] = hu[j] = lu[j] = 0;
        }
    }
    GE_DEVICE void add(const GePot& pot, const ge_u32* s, const ge_u32* lo, ge_u32 scale) {
        GE_UNROLL
        for (int j = 0; j < N; ++j) {
            const ge_u32 gh = pot.high(s[j]), gl = pot.low(lo[j]);
            const ge_u32 got = gh + gl;
            if (got == scale) ++w[j];
            else if (got) ++t[j];
            u[j] += got;
            q[j] += (ge_u64)got * got;
            hu[j] += gh;
            lu[j] += gl;
        }
    }
    // Counter i of flush_block's slots (i / N: wins, ties, units, units squared, high, low),
    // picked by selects over constant indices.
    GE_DEVICE ge_u64 slot(int i) const {
        const int kind = i / N, j = i % N;
        ge_u64 v = 0;
        GE_UNROLL
        for (int p = 0; p < N; ++p) {
            if (p == j) {
                v = kind == 0 ? (ge_u64)w[p] : kind == 1 ? (ge_u64)t[p] : kind == 2 ? u[p]
                  : kind == 3 ? q[p] : kind == 4 ? hu[p] : lu[p];
            }
        }
        return v;
    }
    // scratch: SLOTS shared words, zero (ge_clear_shared); every thread of the block calls it.
    // The high and low units count only in a hi/lo game (hilo). One slot at a time.
    GE_DEVICE void flush_block(unsigned long long* totals, bool hilo,
                               unsigned long long* scratch) const {
        GE_EQ_NO_UNROLL
        for (int i = 0; i < SLOTS; ++i) {
            ge_warp_to_shared(i >= 4 * N && !hilo ? 0 : slot(i), scratch + i);
        }
        ge_shared_to_global(scratch, SLOTS, GeContiguousSlots{totals});
    }
};

#endif  // GE_POTS_CUH
