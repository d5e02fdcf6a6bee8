// fsm.cu -- hand evaluation by walking a finite-state-machine table (gpu_eval/evaluator/statemachine.py).
//
// The table is one flat uint32 array. A state occupies 52 consecutive slots starting at its
// base; the slot for card id c holds the base of the next state or, for the last card of a
// hand, the strength. Every walk starts at the root (base GE_FSM_ROOT) and the dead state
// sits at base 0 with all its slots 0, so a repeated card the table can see ends the walk
// with strength 0. A k-card hand costs k dependent loads and no arithmetic beyond an add.
// Inputs are validated in Python before launch; this kernel trusts them.
#ifndef GE_FSM_CU
#define GE_FSM_CU

#include "ge_common.cuh"

// Base of the root state (the dead state takes slots 0..51). The file header records it too.
#define GE_FSM_ROOT 52u

template <int K>
GE_DEVICE void ge_fsm_eval_k(const ge_u32* __restrict__ table, const ge_u8* __restrict__ ids,
                             ge_u16* __restrict__ out, ge_u64 n) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        const ge_u8* row = ids + i * K;
        ge_u32 s = GE_FSM_ROOT;
        GE_UNROLL
        for (int j = 0; j < K; ++j) s = GE_LDG(table + s + row[j]);
        out[i] = (ge_u16)s;
    }
}

// table: the flat state-machine array for k-card hands; ids: (n, k) uint8 card ids, row-major.
// A table only answers for its own card count: k must match it (checked in Python).
GE_GLOBAL void ge_fsm_eval_ids(const unsigned int* __restrict__ table,
                               const unsigned char* __restrict__ ids, int k, long long n,
                               unsigned short* __restrict__ out) {
    if (n <= 0) return;
    const ge_u64 m = (ge_u64)n;
    switch (k) {
        case 5: ge_fsm_eval_k<5>(table, ids, out, m); break;
        case 6: ge_fsm_eval_k<6>(table, ids, out, m); break;
        case 7: ge_fsm_eval_k<7>(table, ids, out, m); break;
        default: break;  // tables exist for 5, 6 and 7 cards; others are rejected in Python
    }
}

#endif  // GE_FSM_CU
