// bitmask.cuh -- the bitmask hand evaluator, device side.
//
// Computes exactly what gpu_eval/evaluator/bitmask.py (_eval_chunk) computes, from the same tables
// (gpu_eval/evaluator/tables.py, uploaded once per device): see gpu_eval.evaluator.tables.py's docstring for the method.
// From the four 13-bit suit lanes c, d, h, s of a hand mask (bit 16 * suit + rank):
//   O = c|d|h|s  ranks present        P = (c&d)|(h&s)|((c^d)&(h^s))  ranks held at least twice
//   three = (c&d&(h|s)) | (h&s&(c|d))  ranks held three or four times,  D = P&~three  pairs
// The best pair, two pair, straight or high card is one load, dup[dup_row[D] + O]; only hands
// with a rank held three or more times (under 10% of 7-card hands) read the trips, full house
// and quads tables, and only hands with a five-card suit the flush table. Every candidate is a
// genuine strength of the hand (0 when absent), so the answer is their max.
#ifndef GE_BITMASK_CUH
#define GE_BITMASK_CUH

#include "ge_common.cuh"

// Device pointers to the tables of gpu_eval.evaluator.tables.BitmaskTables. The field order is a
// contract with gpu_eval/cuda/modules.py (BITMASK_TABLE_ORDER): the CUDA modules write 7 pointers
// into this struct in that order; tests/test_kernels_compile.py checks that the two agree.
struct GeBitmaskTables {
    const ge_u16* flush;       // [8192]       flush / straight flush of a suit lane (0 if < 5)
    const ge_u32* dup_row;     // [8192]       [D] -> dup row * 8192 (92 rows)
    const ge_u16* dup;         // [92 * 8192]  [dup_row(D) + O] -> max(pairs, straight/high card)
    const ge_u32* row;         // [8192]       highest rank * 8192 (13 * 8192 if empty)
    const ge_u16* trips;       // [14 * 8192]  [row(T) + O]
    const ge_u16* full_house;  // [14 * 8192]  [row(T) + P]
    const ge_u16* quads;       // [14 * 8192]  [row(Q) + O]
};
#define GE_BITMASK_TABLE_COUNT 7

// The per-device table pointers, written once by the loader (constant memory: every thread
// reads the same few bytes, which the constant cache broadcasts).
GE_CONSTANT GeBitmaskTables ge_bitmask_tables;

// The hand-mask bit of card id 4 * rank + suit. (The & 63 only keeps an invalid id, which
// Python rejects before launching, from being undefined behaviour.)
GE_DEVICE ge_u64 ge_card_bit(ge_u32 id) {
    return 1ull << ((((id & 3u) << 4) | (id >> 2)) & 63u);
}

// The hand-mask bits of one DeadHorse card int: rank bits 0..12 and one suit bit,
// diamonds 13, clubs 14, hearts 15, spades 16 (our suits: c 0, d 1, h 2, s 3).
GE_DEVICE ge_u64 ge_deadhorse_bits(ge_u32 dh) {
    const ge_u32 t = (ge_u32)(__ffs((int)(dh >> 13)) - 1) & 3u;  // d 0, c 1, h 2, s 3
    const ge_u32 suit = t ^ ((t >> 1) ^ 1u);                      // -> d 1, c 0, h 2, s 3
    return (ge_u64)(dh & 0x1FFFu) << (suit << 4);
}

template <int K>
GE_DEVICE ge_u64 ge_mask_from_ids(const ge_u8* ids) {
    ge_u64 m = 0;
    GE_UNROLL
    for (int j = 0; j < K; ++j) m |= ge_card_bit(ids[j]);
    return m;
}

template <int K>
GE_DEVICE ge_u64 ge_mask_from_deadhorse(const ge_i32* cards) {
    ge_u64 m = 0;
    GE_UNROLL
    for (int j = 0; j < K; ++j) m |= ge_deadhorse_bits((ge_u32)cards[j]);
    return m;
}

// Strength (1..7462, higher is better) of a hand mask holding 5 to 9 cards.
GE_DEVICE ge_u32 ge_bitmask_eval(const GeBitmaskTables& t, ge_u64 mask) {
    // Lanes are 16 bits wide with bits 13..15 zero in a valid mask; masking them keeps an
    // invalid mask from reading outside the 8192-entry tables.
    const ge_u32 c = (ge_u32)mask & 0x1FFFu;
    const ge_u32 d = (ge_u32)(mask >> 16) & 0x1FFFu;
    const ge_u32 h = (ge_u32)(mask >> 32) & 0x1FFFu;
    const ge_u32 s = (ge_u32)(mask >> 48) & 0x1FFFu;

    const ge_u32 cd = c & d;
    const ge_u32 hs = h & s;
    const ge_u32 o = c | d | h | s;
    const ge_u32 p = ((c ^ d) & (h ^ s)) | cd | hs;     // held at least twice
    const ge_u32 three = (cd & (h | s)) | (hs & (c | d));  // held three or four times

    // Pair, two pair, straight or high card: one row per pair pattern, indexed by O.
    ge_u32 best = GE_LDG(t.dup + (GE_LDG(t.dup_row + (p & ~three)) + o));

    // Trips, full houses and quads are rare (under 10% of 7-card hands): a branch saves
    // their loads for the rest (the trips/quads tables are all zero in the empty row).
    if (three) {
        const ge_u32 x = c ^ d ^ h ^ s;  // odd counts
        const ge_u32 t3 = p & x;         // trips
        const ge_u32 trow = GE_LDG(t.row + t3);
        best = ge_max_u32(best, GE_LDG(t.trips + (trow + o)));
        best = ge_max_u32(best, GE_LDG(t.full_house + (trow + p)));
        best = ge_max_u32(best, GE_LDG(t.quads + (GE_LDG(t.row + (cd & hs)) + o)));
    }
    // Flushes need a lane of five or more cards; the flush table is 0 for shorter lanes.
    if (__popc(c) >= 5 || __popc(d) >= 5 || __popc(h) >= 5 || __popc(s) >= 5) {
        const ge_u32 fl = (ge_u32)GE_LDG(t.flush + c) | GE_LDG(t.flush + d) |
                          GE_LDG(t.flush + h) | GE_LDG(t.flush + s);
        best = ge_max_u32(best, fl);
    }
    return best;
}

#endif  // GE_BITMASK_CUH
