// wild.cuh -- wild cards (jokers, wild ranks, the bug) on the device.
//
// Computes exactly what gpu_eval/games/wild.py computes, from the same tables (see the module
// docstring there). With w wild cards besides the natural cards' hand mask:
//   * w == 0: the hold'em bitmask evaluator;
//   * five of a kind (7463..7475) when some rank has count + w >= 5 (aces when w >= 5);
//   * flush-type: SUIT_BEST[min(w, 4) * 8192 + natural ranks of the suit], per suit;
//   * rank-type (w <= 4): RANK_BEST[OFFSET[10 * w + n] + quinary hash of the natural rank
//     counts], n natural cards; the hash as in phash.cuh (SPREAD, four rank-group tables);
// and the best of them. The bug (w = b jokers): five aces, SUIT_BEST[b], STRAIGHT_BEST[b] of
// the ranks present, and the hold'em strength with the bugs added as aces.
#ifndef GE_WILD_CUH
#define GE_WILD_CUH

#include "ge_common.cuh"
#include "bitmask.cuh"
#include "phash.cuh"

// Field order is a contract with gpu_eval.games.wild.wild_device_tables() and the tests.
struct GeWildTables {
    const ge_u16* rank_best;      // [...]       by (w, n) block and hash of the counts
    const ge_u32* offset;         // [50]        block of (w, n) at 10 * w + n
    const ge_u16* suit_best;      // [5 * 8192]  [w * 8192 + suit rank mask]
    const ge_u16* straight_best;  // [3 * 8192]  [b * 8192 + rank mask]
    const ge_u64* spread;         // [8192]      rank bit r -> bit 3r
    const ge_u32* group0;         // the quinary hash's rank-group tables (as in phash.cuh)
    const ge_u32* group1;
    const ge_u32* group2;
    const ge_u32* group3;
};
#define GE_WILD_TABLE_COUNT 9
#define GE_WILD_FIVE_BASE 7462u  // five of a kind of rank r: 7462 + r + 1
#define GE_WILD_MAX_TABLE 4

GE_CONSTANT GeWildTables ge_wild_tables;

GE_DEVICE ge_u32 ge_wild_highest_rank(ge_u32 m) { return 31u - (ge_u32)__clz((int)m); }

// Strength on the wild scale (1..7475) of the natural cards' mask plus w fully wild cards.
GE_DEVICE ge_u32 ge_wild_eval(const GeWildTables& t, const GeBitmaskTables& hb, ge_u64 naturals,
                              ge_u32 w) {
    if (w == 0) return ge_bitmask_eval(hb, naturals);
    const ge_u32 c = (ge_u32)naturals & 0x1FFFu;
    const ge_u32 d = (ge_u32)(naturals >> 16) & 0x1FFFu;
    const ge_u32 h = (ge_u32)(naturals >> 32) & 0x1FFFu;
    const ge_u32 s = (ge_u32)(naturals >> 48) & 0x1FFFu;
    // Ranks held at least 1, 2, 3, 4 times.
    const ge_u32 m1 = c | d | h | s;
    const ge_u32 m2 = (c & d) | (h & s) | ((c | d) & (h | s));
    const ge_u32 m3 = (c & d & (h | s)) | (h & s & (c | d));
    const ge_u32 m4 = c & d & h & s;
    const ge_u32 need = w >= 5 ? 0x1FFFu : w == 4 ? m1 : w == 3 ? m2 : w == 2 ? m3 : m4;
    if (need) return GE_WILD_FIVE_BASE + ge_wild_highest_rank(need) + 1u;  // tops everything

    const ge_u32 row = (w < GE_WILD_MAX_TABLE ? w : GE_WILD_MAX_TABLE) * 8192u;
    ge_u32 best = GE_LDG(t.suit_best + (row + c));
    best = ge_max_u32(best, GE_LDG(t.suit_best + (row + d)));
    best = ge_max_u32(best, GE_LDG(t.suit_best + (row + h)));
    best = ge_max_u32(best, GE_LDG(t.suit_best + (row + s)));
    // w <= 4 here: with 5+ wild cards some rank always reaches five.
    const ge_u64 packed =
        GE_LDG(t.spread + c) + GE_LDG(t.spread + d) + GE_LDG(t.spread + h) + GE_LDG(t.spread + s);
    const ge_u32 n = (ge_u32)__popcll(naturals);
    ge_u32 left = n, hash = 0;
    ge_phash_group<0, 4>(t.group0, packed, hash, left);
    ge_phash_group<4, 3>(t.group1, packed, hash, left);
    ge_phash_group<7, 3>(t.group2, packed, hash, left);
    ge_phash_group<10, 3>(t.group3, packed, hash, left);
    const ge_u32 at = GE_LDG(t.offset + (10u * w + n)) + hash;
    return ge_max_u32(best, GE_LDG(t.rank_best + at));
}

// Strength on the wild scale of the natural cards' mask plus b (1 or 2) bugs.
GE_DEVICE ge_u32 ge_bug_eval(const GeWildTables& t, const GeBitmaskTables& hb, ge_u64 naturals,
                             ge_u32 b) {
    if (b == 0) return ge_bitmask_eval(hb, naturals);
    const ge_u64 ace_bits = 0x1000100010001000ull;
    const ge_u32 aces = (ge_u32)__popcll(naturals & ace_bits);
    if (aces + b >= 5) return GE_WILD_FIVE_BASE + 13u;  // five aces
    const ge_u32 c = (ge_u32)naturals & 0x1FFFu;
    const ge_u32 d = (ge_u32)(naturals >> 16) & 0x1FFFu;
    const ge_u32 h = (ge_u32)(naturals >> 32) & 0x1FFFu;
    const ge_u32 s = (ge_u32)(naturals >> 48) & 0x1FFFu;
    const ge_u32 row = b * 8192u;
    ge_u32 best = GE_LDG(t.suit_best + (row + c));
    best = ge_max_u32(best, GE_LDG(t.suit_best + (row + d)));
    best = ge_max_u32(best, GE_LDG(t.suit_best + (row + h)));
    best = ge_max_u32(best, GE_LDG(t.suit_best + (row + s)));
    best = ge_max_u32(best, GE_LDG(t.straight_best + (row + (c | d | h | s))));
    // The bugs as aces, in the lowest suits without an ace.
    ge_u64 m = naturals, free = ~naturals & ace_bits;
    for (ge_u32 j = 0; j < b; ++j) {
        const ge_u64 add = free & (~free + 1ull);
        m |= add;
        free &= ~add;
    }
    return ge_max_u32(best, ge_bitmask_eval(hb, m));
}

#endif  // GE_WILD_CUH
