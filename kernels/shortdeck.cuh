// shortdeck.cuh -- short deck (6+) hold'em on the device: the bitmask evaluator of
// bitmask.cuh run with short-deck tables.
//
// Short deck needs no evaluator of its own: gpu_eval/games/shortdeck.py generates tables with the
// layout of GeBitmaskTables whose entries are short-deck strengths (1..1404; A-6-7-8-9 is a
// straight, a flush beats a full house, and under Triton rules trips beat a straight), and
// ge_bitmask_eval reads them exactly as it reads the hold'em tables. Cards below 6 are
// rejected in Python before launch.
#ifndef GE_SHORTDECK_CUH
#define GE_SHORTDECK_CUH

#include "ge_common.cuh"
#include "bitmask.cuh"

// [0] "shortdeck", [1] "shortdeck-triton" (gpu_eval.games.shortdeck.GAMES order); each written
// pointer by pointer like ge_bitmask_tables.
#define GE_SHORTDECK_VARIANTS 2
GE_CONSTANT GeBitmaskTables ge_shortdeck_tables[GE_SHORTDECK_VARIANTS];

// Short-deck strength (1..1404) of a hand mask of 5 to 9 cards from the 36-card deck.
GE_DEVICE ge_u32 ge_shortdeck_eval(int variant, ge_u64 mask) {
    return ge_bitmask_eval(ge_shortdeck_tables[variant & 1], mask);
}

#endif  // GE_SHORTDECK_CUH
