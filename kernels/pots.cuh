// pots.cuh -- one pot split among n players in integer units, the rule of every game here
// (gpu_eval/equity_engine/omaha_shortdeck.py's pots(), on the device).
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

#endif  // GE_POTS_CUH
