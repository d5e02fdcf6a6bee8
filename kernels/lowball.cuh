// lowball.cuh -- the low evaluators on the device: 2-7 lowball, A-5 lowball, badugi.
//
// Computes exactly what gpu_eval/games/lowball.py's evaluate_masks computes, from the same tables
// (every strength dense, higher is better):
//   * 2-7 (five cards): a suit lane of five cards reads DS_FLUSH[lane] (flushes and straight
//     flushes); otherwise the quinary hash of the rank counts (phash.cuh's rank groups) reads
//     DS_NOFLUSH[hash];
//   * A-5 (five to seven cards): A5_NOFLUSH[A5_OFFSET[k] + hash] (suits never matter);
//   * badugi (four cards): BADUGI[colex number of the four sorted card ids].
#ifndef GE_LOWBALL_CUH
#define GE_LOWBALL_CUH

#include "ge_common.cuh"
#include "phash.cuh"  // ge_phash_group

// Field order is a contract with gpu_eval/cuda/lowball.py (LOW_TABLE_ORDER) and the host build.
struct GeLowTables {
    const ge_u64* spread;      // [8192]  rank bit r -> bit 3r
    const ge_u32* group0;      // [10 << 12]  the quinary hash's rank groups (phash.py)
    const ge_u32* group1;      // [10 << 9]
    const ge_u32* group2;      // [10 << 9]
    const ge_u32* group3;      // [10 << 9]
    const ge_u16* ds_noflush;  // [6175]  2-7 by the hash of five cards' rank counts
    const ge_u16* ds_flush;    // [8192]  2-7 of a five-card suit lane (0 otherwise)
    const ge_u16* a5_noflush;  // A-5 by hash, blocks of 5, 6, 7 cards
    const ge_u32* a5_offset;   // [10]  where k cards' block starts
    const ge_u16* badugi;      // [270725]  badugi by colex number
};

#define GE_LOW_TABLE_COUNT 10
#define GE_LOW_DEUCE_SEVEN 0
#define GE_LOW_ACE_FIVE 1
#define GE_LOW_BADUGI 2

GE_CONSTANT GeLowTables ge_low_tables;

// Quinary hash of the rank counts of `mask` (cards = its popcount), without the k offset.
GE_DEVICE ge_u32 ge_low_hash(const GeLowTables& t, ge_u64 mask, ge_u32 cards) {
    const ge_u64 packed = GE_LDG(t.spread + ((ge_u32)mask & 0x1FFFu)) +
                          GE_LDG(t.spread + ((ge_u32)(mask >> 16) & 0x1FFFu)) +
                          GE_LDG(t.spread + ((ge_u32)(mask >> 32) & 0x1FFFu)) +
                          GE_LDG(t.spread + ((ge_u32)(mask >> 48) & 0x1FFFu));
    ge_u32 hash = 0, left = cards;
    ge_phash_group<0, 4>(t.group0, packed, hash, left);
    ge_phash_group<4, 3>(t.group1, packed, hash, left);
    ge_phash_group<7, 3>(t.group2, packed, hash, left);
    ge_phash_group<10, 3>(t.group3, packed, hash, left);
    return hash;
}

// 2-7 strength (1..7462) of a five-card mask; 0 for another card count.
GE_DEVICE ge_u32 ge_deuce_seven_eval(const GeLowTables& t, ge_u64 mask) {
    if (__popcll(mask) != 5) return 0;
    ge_u32 flush = 0;
    GE_UNROLL
    for (int s = 0; s < 4; ++s) flush |= GE_LDG(t.ds_flush + ((ge_u32)(mask >> (16 * s)) & 0x1FFFu));
    if (flush) return flush;
    return GE_LDG(t.ds_noflush + ge_low_hash(t, mask, 5));
}

// A-5 strength (1..6175) of the best five of a 5..7-card mask; 0 for another card count.
GE_DEVICE ge_u32 ge_ace_five_eval(const GeLowTables& t, ge_u64 mask) {
    const ge_u32 k = (ge_u32)__popcll(mask);
    if (k < 5 || k > 7) return 0;
    return GE_LDG(t.a5_noflush + GE_LDG(t.a5_offset + k) + ge_low_hash(t, mask, k));
}

// Badugi strength (1..1092) of a four-card mask; 0 for another card count.
GE_DEVICE ge_u32 ge_badugi_eval(const GeLowTables& t, ge_u64 mask) {
    if (__popcll(mask) != 4) return 0;
    ge_u32 c[4];
    ge_u64 m = mask;
    GE_UNROLL
    for (int j = 0; j < 4; ++j) {
        const ge_u32 bit = (ge_u32)(__ffsll((long long)m) - 1);
        c[j] = 4u * (bit & 15u) + (bit >> 4);  // mask bit 16 * suit + rank -> id 4 * rank + suit
        m &= m - 1;
    }
    // sorting network for four
#define GE_LOW_SWAP(a, b) { const ge_u32 lo_ = c[a] < c[b] ? c[a] : c[b]; \
                            c[b] = c[a] < c[b] ? c[b] : c[a]; c[a] = lo_; }
    GE_LOW_SWAP(0, 1) GE_LOW_SWAP(2, 3) GE_LOW_SWAP(0, 2) GE_LOW_SWAP(1, 3) GE_LOW_SWAP(1, 2)
#undef GE_LOW_SWAP
    const ge_u32 idx = c[0] + c[1] * (c[1] - 1) / 2 + c[2] * (c[2] - 1) * (c[2] - 2) / 6 +
                       c[3] * (c[3] - 1) * (c[3] - 2) * (c[3] - 3) / 24;
    return GE_LDG(t.badugi + idx);
}

GE_DEVICE ge_u32 ge_low_eval(const GeLowTables& t, int game, ge_u64 mask) {
    if (game == GE_LOW_DEUCE_SEVEN) return ge_deuce_seven_eval(t, mask);
    if (game == GE_LOW_ACE_FIVE) return ge_ace_five_eval(t, mask);
    return ge_badugi_eval(t, mask);
}

#endif  // GE_LOWBALL_CUH
