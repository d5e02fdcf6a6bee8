"""kernels/equity.cu and equity_batch.cu built as host C++ and run by a block emulator, for the tests.

emulation.hostbuild runs a kernel as one-thread blocks, which cannot exercise code built on
a block barrier and warp shuffles. The equity kernels use both, so this build runs each block
as ``blockDim.x`` cooperative fibers (``ucontext``) on one OS thread: a fiber runs until it
reaches ``__syncthreads`` (``ge_eq_sync``) or a shuffle (``ge_eq_shfl_xor``), and the
scheduler resumes the others; a barrier opens when every thread of the block has reached it, a
shuffle when every lane of the warp has. ``__shared__`` (``static thread_local`` under
kernels/host_shim.h) is then exactly per-block memory, and the kernels run with the very
grid and block sizes the CUDA engine launches them with. Diverged barriers or shuffles, which
would be undefined on a GPU, abort the process with a message.

Blocks of one launch are spread over OpenMP threads; atomics are the shim's host atomics.
The library is cached like emulation.hostbuild's (same compiler, cache directory and keying).
"""

from __future__ import annotations

import ctypes
import os
import shutil
from functools import cache
from pathlib import Path

import numpy as np

from gpu_eval.combinatorics import BINOM
from gpu_eval.cuda.modules import BITMASK_TABLE_ORDER
from gpu_eval.evaluator.tables import bitmask_tables

from emulation import hostbuild

_WRAPPER = r"""
#include "equity.cu"
#include "equity_batch.cu"
// The fused validate-and-evaluate kernels too: their (N, k) ids tile needs real blocks.
#define GE_CHECK_SYNC() ge_eq_sync()
#define GE_IDS_SYNC() ge_eq_sync()
#include "check_eval.cu"
#include <ucontext.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace {
enum { GE_RUN = 0, GE_AT_SYNC = 1, GE_AT_SHFL = 2, GE_DONE = 3 };
const size_t GE_FIBER_STACK = 256 * 1024;

struct GeFiber {
    ucontext_t ctx;
    std::vector<char> stack;
    int state = GE_RUN;
    ge_u64 value = 0;  // a shuffle's operand, then its result
    int lane_mask = 0;
};

struct GeBlock {
    ucontext_t main;
    std::vector<GeFiber> fibers;
    unsigned current = 0;
    const std::function<void()>* body = nullptr;
};

thread_local GeBlock* ge_block = nullptr;

[[noreturn]] void ge_emu_fail(const char* what) {
    std::fprintf(stderr, "equity host emulator: %s\n", what);
    std::fflush(stderr);
    std::abort();
}

void ge_fiber_main() {
    GeBlock* blk = ge_block;
    (*blk->body)();
    blk->fibers[blk->current].state = GE_DONE;  // uc_link returns to the scheduler
}

void ge_yield(int state) {
    GeBlock* blk = ge_block;
    if (blk == nullptr) ge_emu_fail("barrier or shuffle outside an emulated launch");
    GeFiber& f = blk->fibers[blk->current];
    f.state = state;
    swapcontext(&f.ctx, &blk->main);
}

// Run one block: every thread a fiber, scheduled round robin until all are done.
void ge_run_block(unsigned nthreads, const std::function<void()>& body) {
    GeBlock blk;
    blk.body = &body;
    blk.fibers.resize(nthreads);
    for (unsigned t = 0; t < nthreads; ++t) {
        GeFiber& f = blk.fibers[t];
        f.stack.resize(GE_FIBER_STACK);
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack.data();
        f.ctx.uc_stack.ss_size = f.stack.size();
        f.ctx.uc_link = &blk.main;
        makecontext(&f.ctx, ge_fiber_main, 0);
    }
    GeBlock* outer = ge_block;
    ge_block = &blk;
    const unsigned n_warps = (nthreads + GE_WARP - 1) / GE_WARP;
    std::vector<ge_u64> tmp(GE_WARP);
    for (;;) {
        for (unsigned t = 0; t < nthreads; ++t) {
            if (blk.fibers[t].state != GE_RUN) continue;
            blk.current = t;
            threadIdx = {t, 0, 0};
            swapcontext(&blk.main, &blk.fibers[t].ctx);
        }
        // Every fiber now waits at a barrier or a shuffle, or is done.
        bool moved = false;
        unsigned done = 0, at_sync = 0;
        for (unsigned w = 0; w < n_warps; ++w) {
            const unsigned lo = w * GE_WARP;
            const unsigned hi = lo + GE_WARP < nthreads ? lo + GE_WARP : nthreads;
            unsigned shfl = 0;
            for (unsigned t = lo; t < hi; ++t) shfl += blk.fibers[t].state == GE_AT_SHFL;
            if (shfl == 0) continue;
            if (shfl != hi - lo) continue;  // judged below, once nothing else can move
            const int mask = blk.fibers[lo].lane_mask;
            for (unsigned t = lo; t < hi; ++t) {
                if (blk.fibers[t].lane_mask != mask) ge_emu_fail("shuffle lanes disagree");
                const unsigned src = lo + ((t - lo) ^ (unsigned)mask);
                tmp[t - lo] = src < hi ? blk.fibers[src].value : blk.fibers[t].value;
            }
            for (unsigned t = lo; t < hi; ++t) {
                blk.fibers[t].value = tmp[t - lo];
                blk.fibers[t].state = GE_RUN;
            }
            moved = true;
        }
        if (moved) continue;
        for (auto& f : blk.fibers) {
            done += f.state == GE_DONE;
            at_sync += f.state == GE_AT_SYNC;
        }
        if (done == nthreads) break;
        if (at_sync != nthreads) {
            ge_emu_fail(done ? "__syncthreads reached by only part of the block"
                             : "a warp shuffle with diverged lanes, or a barrier reached by "
                               "only part of the block");
        }
        for (auto& f : blk.fibers) f.state = GE_RUN;  // the barrier opens
    }
    ge_block = outer;
}

void ge_emu_launch(unsigned gx, unsigned gy, unsigned bx, int nthreads,
                   const std::function<void()>& body) {
    if (bx == 0 || bx % GE_WARP) ge_emu_fail("blockDim.x must be a positive multiple of 32");
    const long n_blocks = (long)gx * (long)gy;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
    for (long i = 0; i < n_blocks; ++i) {
        gridDim = {gx, gy, 1};
        blockDim = {bx, 1, 1};
        blockIdx = {(unsigned)(i % gx), (unsigned)(i / gx), 0};
        ge_run_block(bx, body);
    }
}
}  // namespace

void ge_eq_emu_sync() { ge_yield(GE_AT_SYNC); }

ge_u64 ge_eq_emu_shfl_xor(ge_u64 v, int lane_mask) {
    GeBlock* blk = ge_block;
    if (blk == nullptr) ge_emu_fail("shuffle outside an emulated launch");
    blk->fibers[blk->current].value = v;
    blk->fibers[blk->current].lane_mask = lane_mask;
    ge_yield(GE_AT_SHFL);
    return ge_block->fibers[ge_block->current].value;
}

static_assert(sizeof(GeBitmaskTables) == GE_BITMASK_TABLE_COUNT * sizeof(void*), "layout");
extern "C" int emu_table_count(void) { return GE_BITMASK_TABLE_COUNT; }
extern "C" void emu_set_tables(const void* const* p) {
    std::memcpy((void*)&ge_bitmask_tables, (const void*)p, sizeof(GeBitmaskTables));
}

#define GE_EMU_HEAD unsigned gx, unsigned gy, unsigned bx, int nt

extern "C" void emu_ge_eq_strengths(GE_EMU_HEAD, const ge_u64* pool, ge_u32 n_pool,
                                    const ge_u64* boards, const ge_u8* deck_ids, int k,
                                    ge_u64 first, const ge_u64* binom, ge_u64 base,
                                    ge_u32 n_boards, ge_u16* S, ge_u32 ld) {
    ge_emu_launch(gx, gy, bx, nt, [=]() {
        ge_eq_strengths(pool, n_pool, boards, deck_ids, k, first, binom, base, n_boards, S, ld);
    });
}

#define GE_EMU_SHOWDOWN(N)                                                                 \
    extern "C" void emu_ge_eq_showdown_##N(                                                \
        GE_EMU_HEAD, const ge_u16* S, ge_u32 ld, ge_u32 n_boards, const ge_i32* mu,        \
        ge_u32 m, ge_u32 per_task, unsigned long long* w, unsigned long long* t,           \
        unsigned long long* u, unsigned long long* v) {                                    \
        ge_emu_launch(gx, gy, bx, nt, [=]() {                                              \
            ge_eq_showdown_##N(S, ld, n_boards, mu, m, per_task, w, t, u, v);              \
        });                                                                                \
    }
GE_EMU_SHOWDOWN(2) GE_EMU_SHOWDOWN(3) GE_EMU_SHOWDOWN(4) GE_EMU_SHOWDOWN(5)
GE_EMU_SHOWDOWN(6) GE_EMU_SHOWDOWN(7) GE_EMU_SHOWDOWN(8) GE_EMU_SHOWDOWN(9)
GE_EMU_SHOWDOWN(10)

#define GE_EMU_SAMPLE(N)                                                                   \
    extern "C" void emu_ge_eq_sample_##N(                                                  \
        GE_EMU_HEAD, const ge_u64* combos, const ge_u32* offsets, const double* cum,       \
        const ge_u8* modes, const ge_u64* deck, ge_u32 n_deck, ge_u64 base, int k,         \
        ge_u32 key0, ge_u32 key1, ge_u64 start, ge_u64 stop, ge_u32 max_tries,             \
        unsigned long long* totals, unsigned long long* failures) {                        \
        ge_emu_launch(gx, gy, bx, nt, [=]() {                                              \
            ge_eq_sample_##N(combos, offsets, cum, modes, deck, n_deck, base, k, key0, key1, \
                             start, stop, max_tries, totals, failures);                    \
        });                                                                                \
    }
GE_EMU_SAMPLE(2) GE_EMU_SAMPLE(3) GE_EMU_SAMPLE(4) GE_EMU_SAMPLE(5) GE_EMU_SAMPLE(6)
GE_EMU_SAMPLE(7) GE_EMU_SAMPLE(8) GE_EMU_SAMPLE(9) GE_EMU_SAMPLE(10)

extern "C" void emu_ge_eq_mc_draws(GE_EMU_HEAD, int n, const ge_u64* combos,
                                   const ge_u32* offsets, const double* cum,
                                   const ge_u8* modes, const ge_u64* deck, ge_u32 n_deck, int k,
                                   ge_u32 key0, ge_u32 key1, ge_u64 start, ge_u64 count,
                                   ge_u32 max_tries, ge_u64* holes, ge_u64* boards,
                                   ge_u8* ok) {
    ge_emu_launch(gx, gy, bx, nt, [=]() {
        ge_eq_mc_draws(n, combos, offsets, cum, modes, deck, n_deck, k, key0, key1, start,
                       count, max_tries, holes, boards, ok);
    });
}

extern "C" void emu_ge_eq_philox(GE_EMU_HEAD, const ge_u32* ctr, const ge_u32* key,
                                 ge_u32* out, ge_u64 n) {
    ge_emu_launch(gx, gy, bx, nt, [=]() { ge_eq_philox(ctr, key, out, n); });
}

extern "C" void emu_ge_check_eval_ids(GE_EMU_HEAD, const ge_u8* ids, int k, ge_u64 n,
                                      int lo, int hi, ge_u64 fb, int param, int mi,
                                      ge_u16* out, unsigned long long* first_bad) {
    ge_emu_launch(gx, gy, bx, nt, [=]() {
        ge_check_eval_ids(ids, k, n, lo, hi, fb, param, mi, out, first_bad);
    });
}

extern "C" void emu_ge_eval_ids(GE_EMU_HEAD, const ge_u8* ids, int k, ge_u16* out, ge_u64 n) {
    ge_emu_launch(gx, gy, bx, nt, [=]() { ge_eval_ids(ids, k, out, n); });
}

extern "C" void emu_ge_check_eval_masks(GE_EMU_HEAD, const ge_u64* masks, ge_u64 n, int lo,
                                        int hi, ge_u64 fb, int param, int mi, ge_u16* out,
                                        unsigned long long* first_bad) {
    ge_emu_launch(gx, gy, bx, nt, [=]() {
        ge_check_eval_masks(masks, n, lo, hi, fb, param, mi, out, first_bad);
    });
}

#define GE_EMU_BATCH(N)                                                                    \
    extern "C" void emu_ge_batch_##N(GE_EMU_HEAD, const ge_u64* hole, const ge_u64* board,  \
                                     const ge_u64* free_cards, ge_u32 n, int k, ge_u32* w,  \
                                     ge_u32* t, ge_u32* u) {                                \
        ge_emu_launch(gx, gy, bx, nt, [=]() { ge_batch_##N(hole, board, free_cards, n, k, w, t, u); }); \
    }
GE_EMU_BATCH(2) GE_EMU_BATCH(3) GE_EMU_BATCH(4) GE_EMU_BATCH(5) GE_EMU_BATCH(6)
GE_EMU_BATCH(7) GE_EMU_BATCH(8) GE_EMU_BATCH(9) GE_EMU_BATCH(10)

extern "C" void emu_ge_eq_pairs(GE_EMU_HEAD, const ge_u16* S, ge_u32 ld, ge_u32 n_boards,
                                ge_u32 n_hands, ge_u32* wins, ge_u32* ties) {
    ge_emu_launch(gx, gy, bx, nt, [=]() { ge_eq_pairs(S, ld, n_boards, n_hands, wins, ties); });
}
"""

_FLAGS = ("-O2", "-std=c++17", "-shared", "-fPIC", "-Wall", "-Wno-unknown-pragmas",
          "-fno-strict-aliasing")

# Kernel parameters, in order: a dtype for a pointer to that dtype (None: a null pointer is
# allowed too) or a scalar type name ("u32", "u64", "i32"). The emulator checks every argument
# against these, as a stand-in for the kernel's C signature: real CuPy packs a scalar by its
# dtype, so a wrong dtype would shift every later argument on a GPU.
_P = "ptr"
SIGNATURES: dict[str, tuple] = {
    "ge_eq_strengths": ((_P, np.uint64), "u32", (_P, np.uint64, None), (_P, np.uint8, None),
                        "i32", "u64", (_P, np.uint64), "u64", "u32", (_P, np.uint16), "u32"),
    "ge_eq_mc_draws": ("i32", (_P, np.uint64), (_P, np.uint32), (_P, np.float64),
                       (_P, np.uint8), (_P, np.uint64), "u32", "i32", "u32", "u32", "u64",
                       "u64", "u32", (_P, np.uint64), (_P, np.uint64), (_P, np.uint8)),
    "ge_eq_philox": ((_P, np.uint32), (_P, np.uint32), (_P, np.uint32), "u64"),
    "ge_eq_pairs": ((_P, np.uint16), "u32", "u32", "u32", (_P, np.uint32), (_P, np.uint32)),
    "ge_check_eval_ids": ((_P, np.uint8), "i32", "u64", "i32", "i32", "u64", "i32", "i32",
                          (_P, np.uint16), (_P, np.uint64)),
    "ge_check_eval_masks": ((_P, np.uint64), "u64", "i32", "i32", "u64", "i32", "i32",
                            (_P, np.uint16), (_P, np.uint64)),
    "ge_eval_ids": ((_P, np.uint8), "i32", (_P, np.uint16), "u64"),
}
for _n in range(2, 11):
    SIGNATURES[f"ge_eq_showdown_{_n}"] = (
        (_P, np.uint16), "u32", "u32", (_P, np.int32), "u32", "u32", (_P, np.uint64),
        (_P, np.uint64), (_P, np.uint64), (_P, np.uint64))
    SIGNATURES[f"ge_eq_sample_{_n}"] = (
        (_P, np.uint64), (_P, np.uint32), (_P, np.float64), (_P, np.uint8), (_P, np.uint64),
        "u32", "u64", "i32", "u32", "u32", "u64", "u64", "u32", (_P, np.uint64),
        (_P, np.uint64))
    SIGNATURES[f"ge_batch_{_n}"] = (
        (_P, np.uint64), (_P, np.uint64), (_P, np.uint64), "u32", "i32", (_P, np.uint32),
        (_P, np.uint32), (_P, np.uint32))
_SCALARS = {"u32": (np.uint32, ctypes.c_uint32), "u64": (np.uint64, ctypes.c_uint64),
            "i32": (np.int32, ctypes.c_int32)}


@cache
def build() -> Path:
    """Compile (or find in the cache) the library; raises HostBuildUnavailableError."""
    return hostbuild.compile_cached(_WRAPPER, "ge_equity", [(*_FLAGS, "-fopenmp"), _FLAGS],
                                    "kernels/equity.cu and kernels/equity_batch.cu")


def _pointer(a) -> int:
    if isinstance(a, np.ndarray):
        return a.ctypes.data
    return int(a)


class EquityHost:
    """The equity kernels on the CPU: :meth:`launch` runs one with a given grid and block."""

    def __init__(self, path: Path, threads: int = 2) -> None:
        self.lib = ctypes.CDLL(str(path))
        self.threads = threads
        if self.lib.emu_table_count() != len(BITMASK_TABLE_ORDER):
            raise AssertionError("GeBitmaskTables and gpu_eval.cuda.modules' table list differ")
        tables = bitmask_tables().as_dict()
        self._tables = [np.ascontiguousarray(tables[n]) for n in BITMASK_TABLE_ORDER]
        self._ptrs = np.array([t.ctypes.data for t in self._tables], dtype=np.uintp)
        self.binom = np.ascontiguousarray(BINOM, dtype=np.uint64)
        self.set_tables(self._ptrs)

    def set_tables(self, pointers: np.ndarray) -> None:
        """Point the library's ``ge_bitmask_tables`` at these table addresses."""
        self._current_ptrs = np.ascontiguousarray(pointers, dtype=np.uintp)
        self.lib.emu_set_tables(ctypes.c_void_p(self._current_ptrs.ctypes.data))

    def launch(self, name: str, grid, block, args) -> None:
        """Run kernel ``name`` over ``grid`` (1 or 2 dims) blocks of ``block[0]`` threads.

        ``args`` are what a CuPy launch gets: arrays (device arrays of tests/emulation/fake_cupy.py are
        NumPy arrays) for pointers, NumPy scalars of the exact parameter type otherwise.
        """
        sig = SIGNATURES[name]
        if len(args) != len(sig):
            raise AssertionError(f"{name}: {len(args)} arguments, the kernel takes {len(sig)}")
        c_args = []
        for i, (kind, a) in enumerate(zip(sig, args)):
            if isinstance(kind, tuple):
                if isinstance(a, np.ndarray):
                    assert a.dtype == kind[1], f"{name} argument {i}: {a.dtype} != {kind[1]}"
                    assert a.flags.c_contiguous, f"{name} argument {i}: not contiguous"
                else:
                    assert len(kind) == 3 and isinstance(a, np.uint64) and int(a) == 0, \
                        f"{name} argument {i}: expected a {kind[1]} array, got {a!r}"
                c_args.append(ctypes.c_void_p(_pointer(a)))
            else:
                dtype, ctype = _SCALARS[kind]
                assert isinstance(a, np.generic) and a.dtype == dtype, \
                    f"{name} argument {i}: expected {np.dtype(dtype)}, got {a!r}"
                c_args.append(ctype(int(a)))
        grid = tuple(grid) + (1,) * (2 - len(tuple(grid)))
        fn = getattr(self.lib, f"emu_{name}")
        fn(ctypes.c_uint(grid[0]), ctypes.c_uint(grid[1]), ctypes.c_uint(block[0]),
           ctypes.c_int(self.threads), *c_args)


def build_emulated(wrapper: str, name: str, what: str) -> Path:
    """A library of other kernels around this emulator (its flags; OpenMP where the compiler
    has it), compiled or found in the cache; raises HostBuildUnavailableError."""
    return hostbuild.compile_cached(wrapper, name, [(*_FLAGS, "-fopenmp"), _FLAGS], what)


_COPIES: list[Path] = []


def private_copy(path: Path) -> Path:
    """A fresh copy of a built library, to be loaded on its own: each stand-in RawModule
    then has its own ``__constant__`` tables (several modules live side by side, as on a
    GPU)."""
    copy = path.with_name(f"{path.stem}_copy{len(_COPIES)}_{os.getpid()}.so")
    if not copy.exists():
        shutil.copyfile(path, copy)
    _COPIES.append(copy)
    return copy


@cache
def load() -> EquityHost:
    """Build if needed and load the emulated kernels (once per process)."""
    return EquityHost(build())
