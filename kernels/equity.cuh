// equity.cuh -- device functions of the equity kernels (kernels/equity.cu).
//
// * A counter-based generator, Philox4x32-10 (Salmon et al., "Parallel random numbers: as
//   easy as 1, 2, 3", SC 2011; checked against Random123's known-answer vectors): the random
//   words of Monte Carlo sample s are Philox(counter = (s_lo, s_hi, j, 0), key), j = 0, 1,
//   2, ..., four words per j, used in order; the key is two words derived from the seed
//   (gpu_eval.equity_engine.holdem.cuda_engine.mc_key). A sample's draws depend only on the seed and
//   its index, never on which thread runs it, so results do not depend on the launch.
// * Uniform integers by Lemire's multiply-shift with rejection (exactly uniform), uniform
//   doubles from 53 random bits, weighted picks by binary search in cumulative weights, cards
//   dealt from a deck by rejection on a 52-bit mask.
// * One Monte Carlo showdown: matchup drawn by weight (whole tuple redrawn on a card clash),
//   "dealt" players and the board completion dealt from what is left.
// gpu_eval/equity_engine/holdem/cuda_engine.py holds a NumPy twin of all of this (same words, same draws).
//
// The same code compiles as host C++ for the tests, where a block runs as cooperative fibers
// (tests/equity_host.py): the block barrier and warp shuffles go through ge_eq_sync /
// ge_eq_shfl_xor, which the host emulator defines.
#ifndef GE_EQUITY_CUH
#define GE_EQUITY_CUH

#include "ge_common.cuh"
#include "bitmask.cuh"
#include "combinatorics.cuh"

#define GE_WARP 32
#define GE_EQ_MAX_PLAYERS 10

// Player modes of the Monte Carlo kernels (gpu_eval/equity_engine/holdem/cuda_engine.py: MODE_*).
#define GE_MC_FIXED 0     // a known hand: combos[offsets[p]]
#define GE_MC_UNIFORM 1   // a range with equal weights: uniform pick
#define GE_MC_WEIGHTED 2  // a weighted range: binary search in the cumulative weights
#define GE_MC_DEALT 3     // every combo left, equal weights: two cards dealt from the deck

// GE_EQ_NO_UNROLL: loops over players that must stay loops (unrolled N times they would
// multiply the code of the nine per-N kernels, and NVRTC's compile time, for little speed).
// GE_EQ_UNROLL4: latency-bound loops, a few iterations' loads in flight at once.
#if GE_IS_DEVICE
#define GE_EQ_NO_UNROLL _Pragma("unroll 1")
#define GE_EQ_UNROLL4 _Pragma("unroll 4")
#else
#define GE_EQ_NO_UNROLL _Pragma("GCC unroll 1")
#define GE_EQ_UNROLL4 _Pragma("GCC unroll 4")
#endif

GE_DEVICE ge_u32 ge_eq_min_u32(ge_u32 a, ge_u32 b) { return a < b ? a : b; }

// --- block barrier and warp shuffle -------------------------------------------------------
#if GE_IS_DEVICE
GE_DEVICE void ge_eq_sync() { __syncthreads(); }
GE_DEVICE ge_u32 ge_eq_shfl_xor(ge_u32 v, int lane_mask) {
    return __shfl_xor_sync(0xffffffffu, v, lane_mask);
}
GE_DEVICE ge_u64 ge_eq_shfl_xor64(ge_u64 v, int lane_mask) {
    return __shfl_xor_sync(0xffffffffu, v, lane_mask);
}
#else
// Defined by the host emulator (tests/equity_host.py), which runs a block's threads as fibers.
void ge_eq_emu_sync();
ge_u64 ge_eq_emu_shfl_xor(ge_u64 v, int lane_mask);
inline void ge_eq_sync() { ge_eq_emu_sync(); }
inline ge_u32 ge_eq_shfl_xor(ge_u32 v, int lane_mask) {
    return (ge_u32)ge_eq_emu_shfl_xor(v, lane_mask);
}
inline ge_u64 ge_eq_shfl_xor64(ge_u64 v, int lane_mask) {
    return ge_eq_emu_shfl_xor(v, lane_mask);
}
#endif

// --- Philox4x32-10 ------------------------------------------------------------------------
GE_DEVICE void ge_philox4x32_10(ge_u32 (&c)[4], ge_u32 k0, ge_u32 k1) {
    GE_UNROLL
    for (int r = 0; r < 10; ++r) {
        if (r) {  // the key schedule: Weyl increments between rounds
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const ge_u64 p0 = (ge_u64)0xD2511F53u * c[0];
        const ge_u64 p1 = (ge_u64)0xCD9E8D57u * c[2];
        const ge_u32 n0 = (ge_u32)(p1 >> 32) ^ c[1] ^ k0;
        const ge_u32 n2 = (ge_u32)(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0;
        c[1] = (ge_u32)p1;
        c[2] = n2;
        c[3] = (ge_u32)p0;
    }
}

// The random words of one sample: Philox blocks j = 0, 1, ... of counter (s_lo, s_hi, j, 0),
// consumed word 0 first. The four words are shifted out (no indexed array: stays in registers).
struct GeRng {
    ge_u32 key0, key1, ctr0, ctr1, block;
    ge_u32 w0, w1, w2, w3;
    int left;  // words of the current block not yet used
};

GE_DEVICE void ge_rng_init(GeRng& r, ge_u32 key0, ge_u32 key1, ge_u64 sample) {
    r.key0 = key0;
    r.key1 = key1;
    r.ctr0 = (ge_u32)sample;
    r.ctr1 = (ge_u32)(sample >> 32);
    r.block = 0;
    r.w0 = r.w1 = r.w2 = r.w3 = 0;
    r.left = 0;
}

GE_DEVICE void ge_rng_refill(GeRng& r) {
    ge_u32 c[4] = {r.ctr0, r.ctr1, r.block, 0u};
    ge_philox4x32_10(c, r.key0, r.key1);
    r.w0 = c[0];
    r.w1 = c[1];
    r.w2 = c[2];
    r.w3 = c[3];
    r.block += 1;
    r.left = 4;
}

GE_DEVICE ge_u32 ge_rng_next(GeRng& r) {
    if (r.left == 0) ge_rng_refill(r);
    const ge_u32 out = r.w0;
    r.w0 = r.w1;
    r.w1 = r.w2;
    r.w2 = r.w3;
    r.left -= 1;
    return out;
}

// Uniform integer in [0, n), n >= 1: Lemire's multiply-shift; the rare low products below
// 2^32 mod n are redrawn, which makes it exactly uniform. One call of ge_rng_next (whose
// refill, a whole Philox block, is inlined at every call site): the threshold is computed on
// the first draw, and only when its low product is below n (rare).
GE_DEVICE ge_u32 ge_rng_below(GeRng& r, ge_u32 n) {
    ge_u32 t = 0;
    for (bool first = true;; first = false) {
        const ge_u64 m = (ge_u64)ge_rng_next(r) * n;
        const ge_u32 low = (ge_u32)m;
        if (first && low < n) t = (0u - n) % n;
        if (low >= t) return (ge_u32)(m >> 32);
    }
}

// Uniform double in [0, 1) from 53 random bits (two words: 27 + 26 bits); every step is exact,
// so the host twin computes the same double. The two words come from one call site.
GE_DEVICE double ge_rng_unit(GeRng& r) {
    ge_u64 two = 0;
    GE_EQ_NO_UNROLL
    for (int i = 0; i < 2; ++i) two = (two << 32) | ge_rng_next(r);
    const ge_u32 a = (ge_u32)(two >> 32) >> 5;
    const ge_u32 b = (ge_u32)two >> 6;
    return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

// Index drawn with probability proportional to weight: the first i with cum[i] > u * total
// (numpy.searchsorted(cum, u * cum[-1], side="right")), clipped to n - 1.
GE_DEVICE ge_u32 ge_pick_weighted(const double* __restrict__ cum, ge_u32 n, double u) {
    const double target = u * GE_LDG(cum + (n - 1));
    ge_u32 lo = 0, hi = n;
    while (lo < hi) {
        const ge_u32 mid = (lo + hi) >> 1;
        if (GE_LDG(cum + mid) > target) hi = mid;
        else lo = mid + 1;
    }
    return lo < n ? lo : n - 1;
}

// One card from deck[0..n_deck) (hand-mask bits) not in `used`: uniform pick, redrawn while
// it is taken. Callers guarantee a free card; 0 after 2^20 misses flags a bug.
GE_DEVICE ge_u64 ge_deal_card(GeRng& r, const ge_u64* __restrict__ deck, ge_u32 n_deck,
                              ge_u64 used) {
    for (ge_u32 i = 0; i < (1u << 20); ++i) {
        const ge_u64 bit = GE_LDG(deck + ge_rng_below(r, n_deck));
        if (!(bit & used)) return bit;
    }
    return 0;
}

// One player's hole cards in a Monte Carlo attempt: the fixed hand (GE_MC_FIXED), 0 for a
// player dealt from the deck afterwards (GE_MC_DEALT), else a pick from the player's combos,
// uniform or by weight, which sets `clash` when it meets a card already `used`. Shared by the
// hold'em sampler below and the other games' sampler (equity_games.cu).
GE_DEVICE ge_u64 ge_mc_pick_hole(GeRng& r, int mode, ge_u32 lo, const ge_u64* __restrict__ combos,
                                 const ge_u32* __restrict__ offsets, int p,
                                 const double* __restrict__ cum, ge_u64& used, bool& clash) {
    if (mode == GE_MC_FIXED) return GE_LDG(combos + lo);
    if (mode == GE_MC_DEALT) return 0;
    const ge_u32 m = GE_LDG(offsets + p + 1) - lo;
    const ge_u32 i = (mode == GE_MC_UNIFORM) ? ge_rng_below(r, m)
                                             : ge_pick_weighted(cum + lo, m, ge_rng_unit(r));
    const ge_u64 h = GE_LDG(combos + lo + i);
    clash |= (h & used) != 0;
    used |= h;
    return h;
}

// One Monte Carlo deal for n <= CAP players: hole[p] and the board completion (k cards).
//   combos/offsets: player p's combo masks are combos[offsets[p] .. offsets[p + 1]);
//   cum: cumulative weights aligned with combos (weighted players only);
//   modes: GE_MC_* per player; deck: the n_deck cards a completion may use.
// Order of draws: the ranged players (uniform or weighted) in player order, the whole tuple
// again while two of them share a card; then two cards for each dealt player in player
// order, then the board, one card at a time (a single dealing site keeps the code small).
// Returns false when no compatible tuple turned up in max_tries attempts (hole keeps the
// last attempt, dealt players 0), or early when `stop` (a device flag, may be null) is set:
// once one sample has failed, the others need not spin to their own limit.
#define GE_MC_STOP_CHECK 4096u  // attempts between two reads of the stop flag
#define GE_MC_REG_HOLES 3       // hole[] in registers up to this many players (see below)
template <int CAP>
GE_DEVICE bool ge_mc_draw(GeRng& r, const ge_u64* __restrict__ combos,
                          const ge_u32* __restrict__ offsets, const double* __restrict__ cum,
                          const ge_u8* __restrict__ modes, const ge_u64* __restrict__ deck,
                          ge_u32 n_deck, int n, int k, ge_u32 max_tries, ge_u64 (&hole)[CAP],
                          ge_u64& board, const volatile unsigned long long* stop = nullptr) {
    ge_u64 used = 0;
    int n_dealt = 0;
    for (ge_u32 attempt = 0;; ++attempt) {
        if (attempt >= max_tries) return false;
        if (stop && attempt % GE_MC_STOP_CHECK == GE_MC_STOP_CHECK - 1 && *stop) return false;
        used = 0;
        n_dealt = 0;
        bool clash = false;
        // For up to GE_MC_REG_HOLES players the loop is unrolled, so hole[] is indexed by
        // constants and lives in registers (no local memory); larger tables stay loops.
#if GE_IS_DEVICE
#pragma unroll(CAP <= 3 ? CAP : 1)  // 3: GE_MC_REG_HOLES
#else
        GE_EQ_NO_UNROLL
#endif
        for (int p = 0; p < CAP; ++p) {
            if (p >= n) break;
            const int mode = GE_LDG(modes + p);
            n_dealt += mode == GE_MC_DEALT;
            hole[p] = ge_mc_pick_hole(r, mode, GE_LDG(offsets + p), combos, offsets, p, cum,
                                      used, clash);
        }
        if (!clash) break;
    }
    board = 0;
    int p = 0;
    ge_u64 first = 0;
    const int n_cards = 2 * n_dealt + k;
    GE_EQ_NO_UNROLL
    for (int c = 0; c < n_cards; ++c) {
        const ge_u64 card = ge_deal_card(r, deck, n_deck, used);
        if (!card) return false;
        used |= card;
        if (c >= 2 * n_dealt) {
            board |= card;
        } else if ((c & 1) == 0) {
            first = card;
        } else {
            while (GE_LDG(modes + p) != GE_MC_DEALT) ++p;
            if (CAP <= GE_MC_REG_HOLES) {  // a select over constant indices (registers)
                GE_UNROLL
                for (int q = 0; q < CAP; ++q) {
                    if (q == p) hole[q] = first | card;
                }
            } else {
                hole[p] = first | card;
            }
            ++p;
        }
    }
    return true;
}

// lcm(1..N): a pot in units, so that every split 1/c is a whole number of units.
template <ge_u32 A, ge_u32 B>
struct GeGcd {
    static constexpr ge_u32 value = GeGcd<B, A % B>::value;
};
template <ge_u32 A>
struct GeGcd<A, 0> {
    static constexpr ge_u32 value = A;
};
template <int N>
struct GePotUnits {
    static constexpr ge_u32 prev = GePotUnits<N - 1>::value;
    static constexpr ge_u32 value = prev / GeGcd<prev, (ge_u32)N>::value * (ge_u32)N;
};
template <>
struct GePotUnits<1> {
    static constexpr ge_u32 value = 1;
};
static_assert(GePotUnits<10>::value == 2520 && GePotUnits<3>::value == 6, "lcm(1..N)");

// The hand masks of the colex-ordered k-subset number idx of deck_ids[0..R) (R <= 52): the
// numbering of gpu_eval.equity_engine.enumerate_boards.completions.
template <int K>
GE_DEVICE ge_u64 ge_colex_board_k(const ge_u8* __restrict__ deck_ids, ge_u64 idx,
                                  const ge_u64* __restrict__ binom) {
    int c[K];
    ge_unrank<K>(binom, idx, c);
    ge_u64 m = 0;
    GE_UNROLL
    for (int j = 0; j < K; ++j) m |= ge_card_bit(GE_LDG(deck_ids + c[j]));
    return m;
}

GE_DEVICE ge_u64 ge_colex_board(const ge_u8* __restrict__ deck_ids, int k, ge_u64 idx,
                                const ge_u64* __restrict__ binom) {
    switch (k) {
        case 1: return ge_colex_board_k<1>(deck_ids, idx, binom);
        case 2: return ge_colex_board_k<2>(deck_ids, idx, binom);
        case 3: return ge_colex_board_k<3>(deck_ids, idx, binom);
        case 4: return ge_colex_board_k<4>(deck_ids, idx, binom);
        case 5: return ge_colex_board_k<5>(deck_ids, idx, binom);
        default: return 0;  // k = 0: the board is complete
    }
}

#endif  // GE_EQUITY_CUH
