// convert.cu -- card encodings to hand masks on the device, with card counts.
//
// The validated path of gpu_eval.evaluate for CuPy inputs: ids / DeadHorse ints become masks
// here, and the popcount of each mask (written alongside) reveals a card used twice (the
// count falls short of k) or a hand of the wrong size. Any k is accepted; the caller decides
// what counts are valid. Inputs must be range-checked first (ids 0..51, DeadHorse ints of
// one rank bit and one suit bit), which gpu_eval/cuda/device_inputs.py does with CuPy before
// launching.
#ifndef GE_CONVERT_CU
#define GE_CONVERT_CU

#include "ge_common.cuh"
#include "bitmask.cuh"

// The 52 valid bits of a hand mask: 13 per 16-bit suit lane.
#define GE_VALID_MASK_BITS 0x1FFF1FFF1FFF1FFFull

GE_GLOBAL void ge_ids_to_masks(const ge_u8* __restrict__ ids, int k,
                               ge_u64* __restrict__ masks, ge_u8* __restrict__ counts,
                               ge_u64 n) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        const ge_u8* row = ids + i * (ge_u64)k;
        ge_u64 m = 0;
        for (int j = 0; j < k; ++j) m |= ge_card_bit(row[j]);
        masks[i] = m;
        counts[i] = (ge_u8)__popcll(m);
    }
}

GE_GLOBAL void ge_deadhorse_to_masks(const ge_i32* __restrict__ cards, int k,
                                     ge_u64* __restrict__ masks, ge_u8* __restrict__ counts,
                                     ge_u64 n) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        const ge_i32* row = cards + i * (ge_u64)k;
        ge_u64 m = 0;
        for (int j = 0; j < k; ++j) m |= ge_deadhorse_bits((ge_u32)row[j]);
        masks[i] = m;
        counts[i] = (ge_u8)__popcll(m);
    }
}

// Cards in each mask, ignoring stray bits outside the 52 card positions.
GE_GLOBAL void ge_mask_counts(const ge_u64* __restrict__ masks, ge_u8* __restrict__ counts,
                              ge_u64 n) {
    const ge_u64 stride = ge_thread_count();
    for (ge_u64 i = ge_thread_index(); i < n; i += stride) {
        counts[i] = (ge_u8)__popcll(GE_LDG(masks + i) & GE_VALID_MASK_BITS);
    }
}

#endif  // GE_CONVERT_CU
