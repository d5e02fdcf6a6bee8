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

// Per-player-count kernels (ge_eq_showdown_N, ge_batch_N, ...). A launcher may compile a
// module for one count only, -DGE_PLAYERS=n (0: none), so that a first call compiles just
// the kernels it launches; without GE_PLAYERS every count is compiled (the whole module, as
// `gpu-eval compile` and the host builds have it). GE_FOR_PLAYERS_2_TO_8(K) and
// GE_FOR_PLAYERS_2_TO_10(K) expand K(N) for each count of their range that is compiled.
#if defined(GE_PLAYERS) && (GE_PLAYERS < 0 || GE_PLAYERS > 10)
#error "GE_PLAYERS must be 0..10"
#endif
#if !defined(GE_PLAYERS) || GE_PLAYERS == 2
#define GE_PLAYERS_2_(K) K(2)
#else
#define GE_PLAYERS_2_(K)
#endif
#if !defined(GE_PLAYERS) || GE_PLAYERS == 3
#define GE_PLAYERS_3_(K) K(3)
#else
#define GE_PLAYERS_3_(K)
#endif
#if !defined(GE_PLAYERS) || GE_PLAYERS == 4
#define GE_PLAYERS_4_(K) K(4)
#else
#define GE_PLAYERS_4_(K)
#endif
#if !defined(GE_PLAYERS) || GE_PLAYERS == 5
#define GE_PLAYERS_5_(K) K(5)
#else
#define GE_PLAYERS_5_(K)
#endif
#if !defined(GE_PLAYERS) || GE_PLAYERS == 6
#define GE_PLAYERS_6_(K) K(6)
#else
#define GE_PLAYERS_6_(K)
#endif
#if !defined(GE_PLAYERS) || GE_PLAYERS == 7
#define GE_PLAYERS_7_(K) K(7)
#else
#define GE_PLAYERS_7_(K)
#endif
#if !defined(GE_PLAYERS) || GE_PLAYERS == 8
#define GE_PLAYERS_8_(K) K(8)
#else
#define GE_PLAYERS_8_(K)
#endif
#if !defined(GE_PLAYERS) || GE_PLAYERS == 9
#define GE_PLAYERS_9_(K) K(9)
#else
#define GE_PLAYERS_9_(K)
#endif
#if !defined(GE_PLAYERS) || GE_PLAYERS == 10
#define GE_PLAYERS_10_(K) K(10)
#else
#define GE_PLAYERS_10_(K)
#endif
#define GE_FOR_PLAYERS_2_TO_8(K) GE_PLAYERS_2_(K) GE_PLAYERS_3_(K) GE_PLAYERS_4_(K) \
    GE_PLAYERS_5_(K) GE_PLAYERS_6_(K) GE_PLAYERS_7_(K) GE_PLAYERS_8_(K)
#define GE_FOR_PLAYERS_2_TO_10(K) GE_FOR_PLAYERS_2_TO_8(K) GE_PLAYERS_9_(K) GE_PLAYERS_10_(K)

#endif  // GE_COMMON_CUH
