// variants.cu -- kernels for the game variants: short deck, Omaha and wild cards.
//
// One thread per hand in a grid-stride loop, uint16 strengths out; inputs are validated in
// Python before launch (the kernels trust them). Tables: ge_bitmask_tables (hold'em, for wild
// hands without a wild card), ge_shortdeck_tables[2], ge_omaha_tables, ge_wild_tables, each a
// __constant__ struct of device pointers written by the loader.
#ifndef GE_VARIANTS_CU
#define GE_VARIANTS_CU

#include "ge_common.cuh"
#include "bitmask.cuh"
#include "shortdeck.cuh"
#include "omaha.cuh"
#include "wild.cuh"
#include "eval_entries.cuh"
#include "check_eval.cuh"

// Short deck, through the shared loops of eval_entries.cuh (variant 0 "shortdeck",
// 1 "shortdeck-triton").
struct GeShortdeckEval {
    int variant;
    GE_DEVICE ge_u32 eval(ge_u64 mask) const { return ge_shortdeck_eval(variant, mask); }
};

// masks: n uint64 hand masks (5 to 9 cards from 6..A).
GE_GLOBAL void ge_shortdeck_eval_masks(const ge_u64* __restrict__ masks, int variant,
                                       ge_u16* __restrict__ out, ge_u64 n) {
    ge_eval_masks_loop<GeShortdeckEval>(masks, out, n, GeShortdeckEval{variant});
}

// ids: (n, k) uint8 card ids, row-major, k = 5..9.
GE_GLOBAL void ge_shortdeck_eval_ids(const ge_u8* __restrict__ ids, int k, int variant,
                                     ge_u16* __restrict__ out, ge_u64 n) {
    ge_eval_ids_loop<GeShortdeckEval>(ids, k, out, n, GeShortdeckEval{variant});
}

// CuPy input validated and evaluated in one pass (check_eval.cuh); param is the variant, and
// the caller passes the low ranks (2..5) as forbidden bits.
#define GE_SHORTDECK_EVAL(param) GeShortdeckEval{param}
GE_CHECK_KERNELS(ge_shortdeck_, GeShortdeckEval, GE_SHORTDECK_EVAL)

// Omaha. hole: (n, H) uint8 ids; board: (n, B) uint8 ids, or one row of B shared by every
// hand when shared_board != 0.
template <int H, int B>
GE_DEVICE void ge_omaha_eval_hb(const ge_u8* __restrict__ hole, const ge_u8* __restrict__ board,
                                int shared_board, ge_u16* __restrict__ out, ge_u64 n) {
    const GeOmahaTables& t = ge_omaha_tables;
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        out[i] = (ge_u16)ge_omaha_eval<H, B>(t, hole + i * H, board + (shared_board ? 0 : i * B));
    }
}

#define GE_OMAHA_CASE(H, B) \
    case (H) * 8 + (B): ge_omaha_eval_hb<H, B>(hole, board, shared_board, out, n); break;

GE_GLOBAL void ge_omaha_eval_ids(const ge_u8* __restrict__ hole, int h,
                                 const ge_u8* __restrict__ board, int b, int shared_board,
                                 ge_u16* __restrict__ out, ge_u64 n) {
    switch (h * 8 + b) {
        GE_OMAHA_CASE(4, 3) GE_OMAHA_CASE(4, 4) GE_OMAHA_CASE(4, 5)
        GE_OMAHA_CASE(5, 3) GE_OMAHA_CASE(5, 4) GE_OMAHA_CASE(5, 5)
        GE_OMAHA_CASE(6, 3) GE_OMAHA_CASE(6, 4) GE_OMAHA_CASE(6, 5)
        default: break;  // rejected in Python
    }
}
#undef GE_OMAHA_CASE

// Wild cards. masks: n hand masks (natural and wild-rank cards); jokers: n joker counts;
// wild_ranks: 13-bit mask of wild ranks; bug != 0: the jokers are bugs (no wild ranks then).
GE_GLOBAL void ge_wild_eval_masks(const ge_u64* __restrict__ masks,
                                  const ge_u8* __restrict__ jokers, ge_u32 wild_ranks, int bug,
                                  ge_u16* __restrict__ out, ge_u64 n) {
    const GeWildTables& t = ge_wild_tables;
    const GeBitmaskTables& hb = ge_bitmask_tables;
    const ge_u64 wild_bits = (ge_u64)wild_ranks * 0x0001000100010001ull;  // all four lanes
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        const ge_u64 m = GE_LDG(masks + i);
        const ge_u32 w = (ge_u32)GE_LDG(jokers + i) + (ge_u32)__popcll(m & wild_bits);
        out[i] = (ge_u16)(bug ? ge_bug_eval(t, hb, m, w) : ge_wild_eval(t, hb, m & ~wild_bits, w));
    }
}

#endif  // GE_VARIANTS_CU
