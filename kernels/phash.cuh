// phash.cuh -- the perfect-hash hand evaluator (seed 001's quinary hash), device side.
//
// Computes exactly what gpu_eval/evaluator/phash.py's evaluate_masks computes, from the same tables:
//   * flush: FLUSH[c] | FLUSH[d] | FLUSH[h] | FLUSH[s] (0 for a lane of fewer than 5 cards);
//   * rank counts: SPREAD[lane] puts rank bit r at bit 3r, so the four lanes summed give
//     13 packed 3-bit rank counts;
//   * the quinary hash of the counts, in four table lookups, one per rank group
//     (ranks 0-3, 4-6, 7-9, 10-12): GROUP_g[left << bits | packed counts of the group] holds
//     the group's contribution to the hash (low 24 bits) and the cards it used (high bits);
//   * strength = max(flush, NOFLUSH[OFFSET[k] + hash]).
#ifndef GE_PHASH_CUH
#define GE_PHASH_CUH

#include "ge_common.cuh"

// Field order is a contract with gpu_eval/cuda/holdem.py (PHASH_TABLE_ORDER) and tests/emulation/hostbuild.py.py.
struct GePhashTables {
    const ge_u16* flush;    // [8192]  flush / straight flush of one suit lane
    const ge_u16* noflush;  // [sum over k = 5..9 of the count vectors]  strength by hash
    const ge_u32* offset;   // [10]    where k's block of noflush starts
    const ge_u64* spread;   // [8192]  rank bit r -> bit 3r
    const ge_u32* group0;   // [10 << 12]  ranks 0..3
    const ge_u32* group1;   // [10 << 9]   ranks 4..6
    const ge_u32* group2;   // [10 << 9]   ranks 7..9
    const ge_u32* group3;   // [10 << 9]   ranks 10..12
};

#define GE_PHASH_TABLE_COUNT 8

GE_CONSTANT GePhashTables ge_phash_tables;

#define GE_PHASH_MAX_CARDS 9

// One rank group [LO, LO + W): add its hash contribution, take away the cards it holds.
template <int LO, int W>
GE_DEVICE void ge_phash_group(const ge_u32* table, ge_u64 packed, ge_u32& hash,
                              ge_u32& left) {
    const ge_u32 counts = (ge_u32)(packed >> (3 * LO)) & ((1u << (3 * W)) - 1u);
    const ge_u32 v = GE_LDG(table + ((left << (3 * W)) + counts));
    hash += v & 0xFFFFFFu;
    left -= v >> 24;
}

// Strength (1..7462, higher is better) of a hand mask holding 5 to 9 cards.
GE_DEVICE ge_u32 ge_phash_eval(const GePhashTables& t, ge_u64 mask) {
    const ge_u32 c = (ge_u32)mask & 0x1FFFu;
    const ge_u32 d = (ge_u32)(mask >> 16) & 0x1FFFu;
    const ge_u32 h = (ge_u32)(mask >> 32) & 0x1FFFu;
    const ge_u32 s = (ge_u32)(mask >> 48) & 0x1FFFu;
    const ge_u32 flush = (ge_u32)GE_LDG(t.flush + c) | GE_LDG(t.flush + d) |
                         GE_LDG(t.flush + h) | GE_LDG(t.flush + s);
    const ge_u64 packed =
        GE_LDG(t.spread + c) + GE_LDG(t.spread + d) + GE_LDG(t.spread + h) + GE_LDG(t.spread + s);
    ge_u32 left = (ge_u32)__popcll(mask);
    // Only an invalid (unvalidated) mask holds more; keep it inside the tables.
    if (left > GE_PHASH_MAX_CARDS) left = GE_PHASH_MAX_CARDS;
    ge_u32 hash = GE_LDG(t.offset + left);
    ge_phash_group<0, 4>(t.group0, packed, hash, left);
    ge_phash_group<4, 3>(t.group1, packed, hash, left);
    ge_phash_group<7, 3>(t.group2, packed, hash, left);
    ge_phash_group<10, 3>(t.group3, packed, hash, left);
    return ge_max_u32(flush, GE_LDG(t.noflush + hash));
}

#endif  // GE_PHASH_CUH
