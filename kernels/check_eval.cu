// check_eval.cu -- hold'em's validate-and-evaluate kernels (bitmask and perfect hash): the
// one-pass path of gpu_eval.evaluate for CuPy masks and ids (see check_eval.cuh).
#ifndef GE_CHECK_EVAL_CU
#define GE_CHECK_EVAL_CU

#include "check_eval.cuh"
#include "evaluate.cu"
#include "evaluate_phash.cu"

#define GE_HOLDEM_BITMASK_EVAL(param) GeBitmaskEval()
#define GE_HOLDEM_PHASH_EVAL(param) GePhashEval()
GE_CHECK_KERNELS(ge_, GeBitmaskEval, GE_HOLDEM_BITMASK_EVAL)
GE_CHECK_KERNELS(ge_phash_, GePhashEval, GE_HOLDEM_PHASH_EVAL)

#endif  // GE_CHECK_EVAL_CU
