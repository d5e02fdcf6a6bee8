// enumerate.cu -- exhaustive enumeration: per-strength counts over a slice of the
// colex-ordered k-subsets of the 52 cards (numbering of gpu_eval/combinatorics.py).
//
// Each thread takes runs of `run` consecutive subset numbers (grid-stride over runs): it
// unranks the first one, then steps to the next subset with the cheap colex successor, so
// unranking costs well under one BINOM lookup per hand. Counts go to a per-block shared
// histogram (32-bit: a launch must cover fewer than 2^32 subsets, which the host side
// ensures) and are then added to the global uint64 histogram.
#ifndef GE_ENUMERATE_CU
#define GE_ENUMERATE_CU

#include "ge_common.cuh"
#include "bitmask.cuh"
#include "combinatorics.cuh"

template <int K>
GE_DEVICE void ge_enumerate_runs(ge_u64 start, ge_u64 stop, ge_u32 run,
                                 const ge_u64* __restrict__ binom, ge_u32* s_hist) {
    const GeBitmaskTables& t = ge_bitmask_tables;
    const ge_u64 step = ge_thread_count() * run;
    for (ge_u64 first = start + ge_thread_index() * run; first < stop; first += step) {
        const ge_u64 n = (stop - first < run) ? (stop - first) : (ge_u64)run;
        int c[K];
        ge_unrank<K>(binom, first, c);
        ge_u64 mask = ge_subset_mask<K>(c);
        for (ge_u64 i = 0;;) {
            atomicAdd(s_hist + ge_bitmask_eval(t, mask), 1u);
            if (++i == n) break;
            ge_colex_next<K>(c, mask);
        }
    }
}

// hist: GE_NUM_STRENGTHS uint64 counters (zeroed by the caller, added to here).
GE_GLOBAL void ge_enumerate_counts(int k, ge_u64 start, ge_u64 stop, ge_u32 run,
                                   const ge_u64* __restrict__ binom,
                                   unsigned long long* __restrict__ hist) {
    __shared__ ge_u32 s_hist[GE_NUM_STRENGTHS];
    for (ge_u32 i = threadIdx.x; i < GE_NUM_STRENGTHS; i += blockDim.x) s_hist[i] = 0;
    __syncthreads();
    if (run == 0) run = 1;
    switch (k) {
        case 5: ge_enumerate_runs<5>(start, stop, run, binom, s_hist); break;
        case 6: ge_enumerate_runs<6>(start, stop, run, binom, s_hist); break;
        case 7: ge_enumerate_runs<7>(start, stop, run, binom, s_hist); break;
        case 8: ge_enumerate_runs<8>(start, stop, run, binom, s_hist); break;
        case 9: ge_enumerate_runs<9>(start, stop, run, binom, s_hist); break;
        default: break;  // rejected in Python
    }
    __syncthreads();
    for (ge_u32 i = threadIdx.x; i < GE_NUM_STRENGTHS; i += blockDim.x) {
        const ge_u32 v = s_hist[i];
        if (v) atomicAdd(hist + i, (unsigned long long)v);
    }
}

#endif  // GE_ENUMERATE_CU
