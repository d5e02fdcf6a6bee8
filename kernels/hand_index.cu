// hand_index.cu -- the hand-isomorphism indexer on the device: Waugh's numbering, a thread a hand.
//
// The same numbering as gpu_eval/solver_tables/indexer.py (and Kevin Waugh's C library,
// kdub0/hand-isomorphism), from the same per-layout tables (gpu_eval/solver_tables/cuda_indexer.py lays
// them out):
//   per suit and round, the round's rank set with the suit's earlier ranks squeezed out,
//   numbered in colex order and mixed-radix over the rounds (the suit index); the suits
//   sorted by count tuple (descending) and suit index (ascending); the sorted count tuples'
//   code -> configuration; index = offset + sum over sorted positions of
//   mult * C(suit index + m, m + 1), m the position's place in its group of equal suits.
//
// Tables (all read-only, 64-bit):
//   rinfo[8 * r + f]  per round: 0 qn (count tuples a suit may have), 1 radix (cards + 1),
//                     2 dense (1: lookup[code] is the configuration; 0: sorted codes then
//                     their configurations), 3 lookup start, 4 lookup length (entries, or
//                     configurations when sparse), 5 first configuration row in cfgdata
//   lookup            the rounds' code -> configuration lookups, concatenated
//   cfgdata[9 * c + f] per configuration: 0 offset, 1..4 the sorted positions' multipliers,
//                     5..8 their places in their groups
//   binom[17 * n + k] C(n, k) for n, k <= 16
// Invalid rows (a card id out of the deck, a card twice) get index -1 on every round they
// would write, and the lowest such row is kept in *first_bad (atomicMin) for the host to
// name. The kernel checks every id itself (a bad one never reaches a shift or a table), so
// any uint8 input is safe.
#ifndef GE_HAND_INDEX_CU
#define GE_HAND_INDEX_CU

#include "ge_common.cuh"

#define GE_HI_SUITS 4
#define GE_HI_MAX_ROUNDS 8
#define GE_HI_BINOM 17
// Bits of a suit index in a sort key (a suit index stays below 2^20: the C library's bound,
// which gpu_eval.solver_tables.indexer.layout_tables enforces).
#define GE_HI_SHIFT 30

GE_DEVICE ge_u64 ge_hi_binom(const ge_u64* binom, int n, int k) {
    return (k < 0 || k > n) ? 0ull : GE_LDG(binom + n * GE_HI_BINOM + k);
}

// C(s + m, m + 1) for 0 <= m <= 3: a multiset member's term.
GE_DEVICE ge_u64 ge_hi_term(ge_u64 s, int m) {
    ge_u64 t = s;
    for (int j = 1; j <= m; ++j) t = t * (s + j) / (j + 1);
    return t;
}

GE_DEVICE void ge_hi_swap(ge_u64* key, int a, int b) {
    if (key[a] > key[b]) {
        ge_u64 t = key[a];
        key[a] = key[b];
        key[b] = t;
    }
}

// The configuration of a code: the dense table, or a search of the sorted codes.
GE_DEVICE long long ge_hi_config(const long long* rinfo, const long long* lookup, int r,
                                 long long code) {
    const long long* info = rinfo + 8 * r;
    const long long* table = lookup + info[3];
    if (info[2]) return GE_LDG(table + code);
    long long lo = 0, hi = info[4];
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        if (GE_LDG(table + mid) < code) lo = mid + 1;
        else hi = mid;
    }
    return GE_LDG(table + info[4] + lo);
}

// Index one hand of `cards` (the rounds' cards, round by round) into out[0..]; false (and
// -1s) for an invalid hand.
GE_DEVICE bool ge_hand_index_one(const ge_u8* cards, int n_rounds, ge_u32 cpr, int lowest,
                                 int nranks, int all_rounds, const long long* rinfo,
                                 const long long* lookup, const long long* cfgdata,
                                 const ge_u64* binom, long long* out) {
    ge_u32 used[GE_HI_SUITS] = {0, 0, 0, 0};
    int nused[GE_HI_SUITS] = {0, 0, 0, 0};
    ge_u64 si[GE_HI_SUITS] = {0, 0, 0, 0};
    ge_u64 mult[GE_HI_SUITS] = {1, 1, 1, 1};
    ge_u64 q[GE_HI_SUITS] = {0, 0, 0, 0};
    ge_u64 seen = 0;
    int at = 0;
    bool ok = true;
    for (int r = 0; r < n_rounds; ++r) {
        const int c = (int)((cpr >> (4 * r)) & 15u);
        ge_u32 lane[GE_HI_SUITS] = {0, 0, 0, 0};
        for (int j = 0; j < c; ++j) {
            const int id = cards[at + j];
            // An id outside the deck (any uint8 reaches here from a CuPy array) only marks
            // the hand bad: its rank would index past the binomial table, or shift by a
            // negative amount below the short deck.
            if (id >= 52 || id < 4 * lowest) {
                ok = false;
                continue;
            }
            if ((seen >> id) & 1ull) ok = false;
            seen |= 1ull << id;
            lane[id & 3] |= 1u << ((id >> 2) - lowest);
        }
        at += c;
        const long long qn = rinfo[8 * r], radix = rinfo[8 * r + 1];
        GE_UNROLL
        for (int s = 0; s < GE_HI_SUITS; ++s) {
            // colex number of the round's set with the suit's used ranks squeezed out
            ge_u32 rest = lane[s];
            ge_u64 colex = 0;
            int k = 0;
            while (rest) {
                const int b = __ffs((int)rest) - 1;
                rest &= rest - 1;
                ++k;
                const int shifted = b - __popc(used[s] & ((1u << b) - 1u));
                colex += ge_hi_binom(binom, shifted, k);
            }
            si[s] += mult[s] * colex;
            mult[s] *= ge_hi_binom(binom, nranks - nused[s], k);
            nused[s] += k;
            used[s] |= lane[s];
            q[s] = q[s] * (ge_u64)radix + (ge_u64)k;
        }
        if (!(all_rounds || r == n_rounds - 1)) continue;
        if (!ok) {
            if (all_rounds) {
                for (int rr = 0; rr < n_rounds; ++rr) out[rr] = -1;
            } else {
                out[0] = -1;
            }
            return false;
        }
        // Sort: count tuples descending, then suit indices ascending.
        ge_u64 key[GE_HI_SUITS];
        GE_UNROLL
        for (int s = 0; s < GE_HI_SUITS; ++s)
            key[s] = (((ge_u64)qn - 1 - q[s]) << GE_HI_SHIFT) | si[s];
        ge_hi_swap(key, 0, 1);
        ge_hi_swap(key, 2, 3);
        ge_hi_swap(key, 0, 2);
        ge_hi_swap(key, 1, 3);
        ge_hi_swap(key, 1, 2);
        const long long code = ((long long)(key[0] >> GE_HI_SHIFT) * qn
                                + (long long)(key[1] >> GE_HI_SHIFT)) * qn
                               + (long long)(key[2] >> GE_HI_SHIFT);
        const long long cfg = ge_hi_config(rinfo, lookup, r, code);
        const long long* row = cfgdata + 9 * (rinfo[8 * r + 5] + cfg);
        const ge_u64 smask = (1ull << GE_HI_SHIFT) - 1;
        ge_u64 index = (ge_u64)GE_LDG(row) + (key[0] & smask);
        GE_UNROLL
        for (int i = 1; i < GE_HI_SUITS; ++i)
            index += (ge_u64)GE_LDG(row + 1 + i) *
                     ge_hi_term(key[i] & smask, (int)GE_LDG(row + 5 + i));
        out[all_rounds ? r : 0] = (long long)index;
    }
    return true;
}

GE_GLOBAL void ge_hand_index(const ge_u8* __restrict__ ids, ge_u64 n, int k, int n_rounds,
                             ge_u32 cpr, int lowest, int nranks, int all_rounds,
                             const long long* __restrict__ rinfo,
                             const long long* __restrict__ lookup,
                             const long long* __restrict__ cfgdata,
                             const ge_u64* __restrict__ binom, long long* __restrict__ out,
                             ge_u64* __restrict__ first_bad) {
    const ge_u64 stride = ge_thread_count();
    const int width = all_rounds ? n_rounds : 1;
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        if (!ge_hand_index_one(ids + i * (ge_u64)k, n_rounds, cpr, lowest, nranks, all_rounds,
                               rinfo, lookup, cfgdata, binom, out + i * (ge_u64)width)) {
            atomicMin((unsigned long long*)first_bad, (unsigned long long)i);
        }
    }
}

#endif  // GE_HAND_INDEX_CU
