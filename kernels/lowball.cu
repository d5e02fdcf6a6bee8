// lowball.cu -- bulk evaluation of the low games (lowball.cuh): 2-7, A-5, badugi.
//
// masks: validated hand masks (gpu_eval/cuda/lowball.py replaces bad rows by placeholders);
// game: GE_LOW_DEUCE_SEVEN, GE_LOW_ACE_FIVE or GE_LOW_BADUGI; out[i] the strength.
#ifndef GE_LOWBALL_CU
#define GE_LOWBALL_CU

#include "ge_common.cuh"
#include "lowball.cuh"

GE_GLOBAL void ge_low_eval_masks(const ge_u64* __restrict__ masks, int game,
                                 ge_u16* __restrict__ out, ge_u64 n) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride)
        out[i] = (ge_u16)ge_low_eval(ge_low_tables, game, GE_LDG(masks + i));
}

#endif  // GE_LOWBALL_CU
