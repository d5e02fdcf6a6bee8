// host_shim.h -- lets the CUDA device code in this directory compile as plain C++ (g++/clang++).
//
// gpu_eval tests its kernels on machines without a GPU by compiling the very same sources as a
// host shared library (tests/emulation/hostbuild.py). This header supplies what nvcc/NVRTC would:
// the execution-space keywords, the thread-index built-ins and the integer intrinsics the
// kernels use. A "launch" on the host runs the kernel body with blockDim = 1, so
// __syncthreads() is a no-op and __shared__ memory is simply per-OS-thread storage (several
// host threads may each run a different "block" at the same time).
#ifndef GE_HOST_SHIM_H
#define GE_HOST_SHIM_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#error "host_shim.h is for host C++ builds only"
#endif

#include <cmath>  // sqrt (kernels/equity_batch.cu)
#include <cstdint>

#define __device__
#define __host__
#define __global__
#define __constant__
#define __forceinline__ inline __attribute__((always_inline))
// Shared memory is per block; a host "block" runs on one OS thread at a time.
#define __shared__ static thread_local

struct ge_dim3 {
    unsigned int x, y, z;
};

// Set by the host launcher (tests/emulation/hostbuild.py's C++ wrapper) before calling a kernel.
inline thread_local ge_dim3 threadIdx = {0, 0, 0};
inline thread_local ge_dim3 blockIdx = {0, 0, 0};
inline thread_local ge_dim3 blockDim = {1, 1, 1};
inline thread_local ge_dim3 gridDim = {1, 1, 1};

inline void __syncthreads() {}

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned int)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }

template <class T>
inline T __ldg(const T* p) { return *p; }

// Atomics: relaxed host atomics, because several host threads may flush into one histogram.
inline unsigned int atomicAdd(unsigned int* p, unsigned int v) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
    unsigned long long old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED,
                                                   __ATOMIC_RELAXED)) {
    }
    return old;
}

#endif  // GE_HOST_SHIM_H
