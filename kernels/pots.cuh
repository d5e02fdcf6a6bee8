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

// Per-player exact counters of one thread over the deals (or boards) it walks: whole pots won
// alone, pots shared and their units, the high and low units, and the deals counted; U, the
// units' type (32 bits where the caller bounds the deals between flushes). flush() adds them
// to totals (N each, offset by the caller) with one atomic each; the deals are the caller's.
// Shared by the exact kernels of equity_games.cu and equity_deals.cu.
template <int N, typename U>
struct GeExactTally {
    ge_u32 w[N], t[N], valid;
    U u[N], hu[N], lu[N];

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
};

// Per-player Monte Carlo counters of one thread (CAP >= n players): whole pots won alone,
// pots shared, pot units won (wins included), the sum of squared per-sample units, and the
// high and low units; flush() adds them to totals (6 n uint64) with one atomic each. Shared
// by the samplers of equity_games.cu and equity_deals.cu.
template <int CAP>
struct GeMcTally {
    ge_u32 w[CAP], t[CAP];
    ge_u64 u[CAP], q[CAP], hu[CAP], lu[CAP];

    GE_DEVICE void clear() {
        for (int j = 0; j < CAP; ++j) {
            w[j] = t[j] = 0;
            u[j] = q[j] = hu[j] = lu[j] = 0;
        }
    }
    GE_DEVICE void add(int n, const GePot& pot, const ge_u32* s, const ge_u32* lo,
                       ge_u32 scale) {
        for (int j = 0; j < n; ++j) {
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
    GE_DEVICE void flush(int n, unsigned long long* totals, bool hilo) const {
        for (int j = 0; j < n; ++j) {
            if (w[j]) atomicAdd(totals + j, (unsigned long long)w[j]);
            if (t[j]) atomicAdd(totals + n + j, (unsigned long long)t[j]);
            if (u[j]) atomicAdd(totals + 2 * n + j, (unsigned long long)u[j]);
            if (q[j]) atomicAdd(totals + 3 * n + j, (unsigned long long)q[j]);
            if (hilo && hu[j]) atomicAdd(totals + 4 * n + j, (unsigned long long)hu[j]);
            if (hilo && lu[j]) atomicAdd(totals + 5 * n + j, (unsigned long long)lu[j]);
        }
    }
};

#endif  // GE_POTS_CUH
