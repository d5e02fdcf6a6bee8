// ge_common.cuh -- the portability layer shared by every gpu_eval kernel source.
//
// The same headers compile three ways: under NVRTC (cupy.RawModule at run time; no system
// headers there, so the fixed-width types are defined here), under nvcc, and as host C++
// through host_shim.h (the CPU tests). Kernel code uses only the GE_* macros and ge_* types.
#ifndef GE_COMMON_CUH
#define GE_COMMON_CUH

#if defined(__CUDACC_RTC__)
// NVRTC: no <cstdint>.
typedef unsigned char ge_u8;
typedef unsigned short ge_u16;
typedef unsigned int ge_u32;
typedef int ge_i32;
typedef unsigned long long ge_u64;
typedef long long ge_i64;
#else
#include <cstdint>
#if !defined(__CUDACC__)
#include "host_shim.h"
#endif
typedef std::uint8_t ge_u8;
typedef std::uint16_t ge_u16;
typedef std::uint32_t ge_u32;
typedef std::int32_t ge_i32;
// unsigned long long (not uint64_t, which is unsigned long on LP64 hosts) so that
// atomicAdd(unsigned long long*, ...) matches on every compiler.
typedef unsigned long long ge_u64;
typedef long long ge_i64;
#endif

static_assert(sizeof(ge_u64) == 8, "ge_u64 must be 64 bits");
static_assert(sizeof(ge_u32) == 4, "ge_u32 must be 32 bits");
static_assert(sizeof(ge_u16) == 2, "ge_u16 must be 16 bits");

#define GE_DEVICE __device__ __forceinline__
#define GE_GLOBAL extern "C" __global__

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define GE_LDG(p) __ldg(p)  // read-only data cache
#define GE_UNROLL _Pragma("unroll")
#define GE_IS_DEVICE 1
#define GE_CONSTANT __constant__
#else
#define GE_LDG(p) (*(p))
#define GE_UNROLL _Pragma("GCC unroll 16")
#define GE_IS_DEVICE 0
#define GE_CONSTANT inline  // one definition across host translation units
#endif

// Histogram bins for the hold'em strength scale: 0 (no hand) .. 7462 (royal flush).
#define GE_NUM_STRENGTHS 7463

GE_DEVICE ge_u32 ge_max_u32(ge_u32 a, ge_u32 b) { return a > b ? a : b; }

// Grid-stride loop helpers (64-bit: a call may hold more than 2^31 hands).
GE_DEVICE ge_u64 ge_thread_index() {
    return (ge_u64)blockIdx.x * blockDim.x + threadIdx.x;
}
GE_DEVICE ge_u64 ge_thread_count() { return (ge_u64)gridDim.x * blockDim.x; }

#endif  // GE_COMMON_CUH
