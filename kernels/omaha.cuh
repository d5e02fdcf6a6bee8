// omaha.cuh -- Omaha (4 to 6 hole cards, 3 to 5 board cards) on the device.
//
// Computes exactly what gpu_eval/games/omaha.py (_eval_chunk) computes, from the same tables (see
// the module docstring there): the best hand of exactly two hole cards and three board cards.
//   * non-flush: the board's rank multiset, numbered by a perfect hash (each card adds a
//     base-5 weight of its rank; two tables turn the two halves of the sum into a dense index),
//     selects a block of 169 entries, [13 * rank_a + rank_b] -> best hand of those two hole
//     ranks and three board ranks; one lookup per pair of hole cards;
//   * flush: only when the board holds 3+ cards and the hole 2+ cards of one suit f, with H and
//     B the hole's and the board's ranks of f: the straight flush of the best window holding
//     two ranks of H and three of B (window sets from HOLE_INFO, BOARD_INFO and COVERED), or
//     the flush of the top two of H and the top three of B (FLUSH5).
#ifndef GE_OMAHA_CUH
#define GE_OMAHA_CUH

#include "ge_common.cuh"
#include "bitmask.cuh"

// Field order is a contract with gpu_eval.games.omaha.OmahaTables (its field order) and the tests.
struct GeOmahaTables {
    const ge_u32* card_weight;     // [52]       base-5 weight of the card's rank, split in halves
    const ge_u32* board_lo;        // [5^7]      low half of the sum -> index within its size
    const ge_u32* board_hi;        // [3 * 5^6]  [(k - 3) * 5^6 + high half] -> block start
    const ge_u16* noflush;         // [(455 + 1820 + 6175) * 169]
    const ge_u32* noflush_offset;  // [6]        where board size k's block starts
    const ge_u32* hole_info;       // [8192]     top two ranks | windows with 2+ of them << 16
    const ge_u32* board_info;      // [8192]     top three ranks | windows with 3+ of them << 16
    const ge_u16* covered;         // [8192]     straight windows inside a rank mask (10 bits)
    const ge_u16* sf_best;         // [1024]     straight flush of the best window of a set
    const ge_u16* flush5;          // [8192]     flush (straight flush) of a 5-rank mask
};
#define GE_OMAHA_TABLE_COUNT 10
#define GE_OMAHA_LO_BITS 17
#define GE_OMAHA_HI_SIZE 15625  // 5^6

GE_CONSTANT GeOmahaTables ge_omaha_tables;

// Strength (1..7462, the hold'em scale) of h <= HMAX hole cards and B board cards (ids,
// validated; hole[i] is read for i < h only). One copy of the code serves every h up to HMAX
// (the pairs of absent cards are skipped); with h a constant the checks fold away.
template <int HMAX, int B>
GE_DEVICE ge_u32 ge_omaha_eval_upto(const GeOmahaTables& t, const ge_u8* hole, int h,
                                    const ge_u8* board) {
    ge_u32 key = 0;
    ge_u64 bm = 0, hm = 0;
    GE_UNROLL
    for (int j = 0; j < B; ++j) {
        key += GE_LDG(t.card_weight + board[j]);
        bm |= ge_card_bit(board[j]);
    }
    const ge_u32 hi_key = (B - 3) * GE_OMAHA_HI_SIZE + (key >> GE_OMAHA_LO_BITS);
    const ge_u32 block = GE_LDG(t.board_hi + hi_key) +
                         GE_LDG(t.board_lo + (key & ((1u << GE_OMAHA_LO_BITS) - 1u)));
    const ge_u32 base = GE_LDG(t.noflush_offset + B) + block * 169u;

    ge_u32 rank[HMAX];
    GE_UNROLL
    for (int i = 0; i < HMAX; ++i) {
        rank[i] = 0;
        if (i < h) {
            rank[i] = hole[i] >> 2;
            hm |= ge_card_bit(hole[i]);
        }
    }
    ge_u32 best = 0;
    GE_UNROLL
    for (int i = 0; i < HMAX - 1; ++i) {
        const ge_u32 row = base + 13u * rank[i];
        GE_UNROLL
        for (int j = i + 1; j < HMAX; ++j) {
            if (j < h) best = ge_max_u32(best, GE_LDG(t.noflush + (row + rank[j])));
        }
    }

    // At most one suit holds 3+ of at most 5 board cards.
    GE_UNROLL
    for (int s = 0; s < 4; ++s) {
        const ge_u32 bf = (ge_u32)(bm >> (16 * s)) & 0x1FFFu;
        const ge_u32 hf = (ge_u32)(hm >> (16 * s)) & 0x1FFFu;
        if (__popc(bf) >= 3 && __popc(hf) >= 2) {
            const ge_u32 hi = GE_LDG(t.hole_info + hf), bi = GE_LDG(t.board_info + bf);
            const ge_u32 windows = ((hi & bi) >> 16) & GE_LDG(t.covered + (hf | bf));
            best = ge_max_u32(best, GE_LDG(t.flush5 + ((hi | bi) & 0x1FFFu)));
            best = ge_max_u32(best, GE_LDG(t.sf_best + windows));
        }
    }
    return best;
}

// Strength of H hole cards and B board cards (ids, validated).
template <int H, int B>
GE_DEVICE ge_u32 ge_omaha_eval(const GeOmahaTables& t, const ge_u8* hole, const ge_u8* board) {
    return ge_omaha_eval_upto<H, B>(t, hole, H, board);
}

#endif  // GE_OMAHA_CUH
