// lowball.cu -- bulk evaluation of the low games (lowball.cuh): 2-7, A-5, badugi.
//
// ge_low_eval_masks: validated hand masks (gpu_eval/cuda/lowball.py replaces bad rows by
// placeholders); game: GE_LOW_DEUCE_SEVEN, GE_LOW_ACE_FIVE or GE_LOW_BADUGI; out[i] the
// strength. ge_low_check_eval_masks / _ids: CuPy input checked and evaluated in one launch.
#ifndef GE_LOWBALL_CU
#define GE_LOWBALL_CU

#include "ge_common.cuh"
#include "lowball.cuh"
#include "check_eval.cuh"

GE_GLOBAL void ge_low_eval_masks(const ge_u64* __restrict__ masks, int game,
                                 ge_u16* __restrict__ out, ge_u64 n) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride)
        out[i] = (ge_u16)ge_low_eval(ge_low_tables, game, GE_LDG(masks + i));
}

// CuPy input validated and evaluated in one pass (check_eval.cuh): param is the game
// (GE_LOW_*); badugi's rows hold four ids.
struct GeLowEval {
    int game;
    GE_DEVICE ge_u32 eval(ge_u64 mask) const { return ge_low_eval(ge_low_tables, game, mask); }
};
#define GE_LOW_EVAL(param) GeLowEval{param}
GE_CHECK_KERNELS_FROM(ge_low_, GeLowEval, GE_LOW_EVAL, 4)

#endif  // GE_LOWBALL_CU
