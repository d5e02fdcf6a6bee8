// combinatorics.cuh -- colex-ordered k-subsets of the 52 cards, device side.
//
// The numbering is gpu_eval/combinatorics.py's: subset number i is found by the
// combinatorial number system (for j = k..1, element j is the largest c with C(c, j) <= i,
// then i -= C(c, j)), so a slice [start, stop) names the same hands on every backend.
// binom is that module's BINOM table, uint64 [53][10] row-major: binom[10 * n + k] = C(n, k).
#ifndef GE_COMBINATORICS_CUH
#define GE_COMBINATORICS_CUH

#include "ge_common.cuh"
#include "bitmask.cuh"  // ge_card_bit

#define GE_BINOM_COLS 10

// The subset numbered idx, as increasing card ids c[0] < ... < c[K-1].
template <int K>
GE_DEVICE void ge_unrank(const ge_u64* binom, ge_u64 idx, int (&c)[K]) {
    // Each element is below the previous one, so one downward scan over 52 candidates serves
    // all K elements. C(c, j) = 0 for c < j, so the scan stops at c >= j - 1.
    int cand = 51;
    GE_UNROLL
    for (int j = K; j >= 1; --j) {
        ge_u64 b = GE_LDG(binom + GE_BINOM_COLS * cand + j);
        while (b > idx) {
            --cand;
            b = GE_LDG(binom + GE_BINOM_COLS * cand + j);
        }
        c[j - 1] = cand;
        idx -= b;
        --cand;
    }
}

template <int K>
GE_DEVICE ge_u64 ge_subset_mask(const int (&c)[K]) {
    ge_u64 m = 0;
    GE_UNROLL
    for (int j = 0; j < K; ++j) m |= ge_card_bit((ge_u32)c[j]);
    return m;
}

// Step c (and its hand mask) to the next subset in colex order: the lowest element that can
// grow by one without meeting the next element grows, and the elements below it restart at
// 0, 1, 2, ... Fully unrolled so c stays in registers. Must not be called on the last subset.
template <int K>
GE_DEVICE void ge_colex_next(int (&c)[K], ge_u64& mask) {
    bool done = false;
    GE_UNROLL
    for (int j = 0; j < K; ++j) {
        if (!done) {
            const int limit = (j + 1 < K) ? c[j + 1 < K ? j + 1 : j] : 52;
            const int cj = c[j];
            if (cj + 1 < limit) {
                mask ^= ge_card_bit((ge_u32)cj) ^ ge_card_bit((ge_u32)(cj + 1));
                c[j] = cj + 1;
                done = true;
            } else {
                mask ^= ge_card_bit((ge_u32)cj) ^ ge_card_bit((ge_u32)j);
                c[j] = j;
            }
        }
    }
}

#endif  // GE_COMBINATORICS_CUH
