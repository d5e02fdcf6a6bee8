// block_emulator.h -- runs a CUDA kernel's blocks on the CPU with every thread a fiber.
//
// Pasted by tests/emulation/kernel_build.py into each module's host build, after the kernel
// sources (compiled as host C++ through kernels/host_shim.h). A block of blockDim.x threads
// runs as that many cooperative fibers (ucontext) on one OS thread: a fiber runs until it
// reaches __syncthreads (routed here as ge_eq_emu_sync) or a warp shuffle
// (ge_eq_emu_shfl_xor), then the scheduler resumes the others; a barrier opens when every
// thread of the block has reached it, a shuffle when every lane of the warp has. __shared__
// (static thread_local under host_shim.h) is then exactly per-block memory, and kernels run
// with the very grid and block the launchers use. A barrier or shuffle reached by only part of
// a block, undefined on a GPU, aborts with a message. Blocks of one launch are spread over
// OpenMP threads; atomics are the shim's host atomics.
//
// Fiber stacks come from a per-OS-thread pool (allocated once, touched lazily), a fiber starts
// with setcontext and later switches are _setjmp/_longjmp (no system call), so a launch of many
// small blocks costs little more than the kernel's own work. Under AddressSanitizer every
// switch is a swapcontext announced to it (__sanitizer_start/finish_switch_fiber).
#include <setjmp.h>
#include <ucontext.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#ifndef GE_WARP
#define GE_WARP 32
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GE_EMU_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GE_EMU_ASAN 1
#endif
#ifdef GE_EMU_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace {
enum { GE_RUN = 0, GE_AT_SYNC = 1, GE_AT_SHFL = 2, GE_DONE = 3 };
const size_t GE_FIBER_STACK = 256 * 1024;
const unsigned GE_MAX_BLOCK = 1024;

struct GeFiber {
    ucontext_t ctx;
    jmp_buf jb;
    bool started = false;
    char* stack = nullptr;
    int state = GE_RUN;
    ge_u64 value = 0;  // a shuffle's operand, then its result
    int lane_mask = 0;
};

struct GeBlock {
    ucontext_t main;
    jmp_buf main_jb;
    std::vector<GeFiber> fibers;
    unsigned current = 0;
    const std::function<void()>* body = nullptr;
#ifdef GE_EMU_ASAN
    void* main_fake_stack = nullptr;
    const void* main_bottom = nullptr;
    size_t main_size = 0;
#endif
};

thread_local GeBlock* ge_block = nullptr;

// One stack per possible thread of a block, per OS thread, allocated on first use.
char* ge_fiber_stack(unsigned t) {
    thread_local std::vector<std::unique_ptr<char[]>> pool(GE_MAX_BLOCK);
    if (!pool[t]) pool[t].reset(new char[GE_FIBER_STACK]);
    return pool[t].get();
}

[[noreturn]] void ge_emu_fail(const char* what) {
    std::fprintf(stderr, "block emulator: %s\n", what);
    std::fflush(stderr);
    std::abort();
}

// Switches between the scheduler (main) and a fiber, announced to ASan where it runs.
void ge_to_fiber(GeBlock& blk, unsigned t) {
    GeFiber& f = blk.fibers[t];
#ifdef GE_EMU_ASAN
    __sanitizer_start_switch_fiber(&blk.main_fake_stack, f.stack, GE_FIBER_STACK);
    swapcontext(&blk.main, &f.ctx);
    __sanitizer_finish_switch_fiber(blk.main_fake_stack, nullptr, nullptr);
#else
    if (_setjmp(blk.main_jb) == 0) {
        if (!f.started) {
            f.started = true;
            setcontext(&f.ctx);
        }
        _longjmp(f.jb, 1);
    }
#endif
}

void ge_fiber_entered(GeBlock& blk) {
#ifdef GE_EMU_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &blk.main_bottom, &blk.main_size);
#else
    (void)blk;
#endif
}

void ge_to_main(GeBlock& blk, GeFiber& f, bool done) {
#ifdef GE_EMU_ASAN
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(done ? nullptr : &fake, blk.main_bottom, blk.main_size);
    swapcontext(&f.ctx, &blk.main);
    __sanitizer_finish_switch_fiber(fake, &blk.main_bottom, &blk.main_size);
#else
    if (done || _setjmp(f.jb) == 0) _longjmp(blk.main_jb, 1);
#endif
}

void ge_fiber_main() {
    GeBlock* blk = ge_block;
    ge_fiber_entered(*blk);
    (*blk->body)();
    GeFiber& f = blk->fibers[blk->current];
    f.state = GE_DONE;
    ge_to_main(*blk, f, true);  // never resumed
}

void ge_yield(int state) {
    GeBlock* blk = ge_block;
    if (blk == nullptr) ge_emu_fail("barrier or shuffle outside an emulated launch");
    GeFiber& f = blk->fibers[blk->current];
    f.state = state;
    ge_to_main(*blk, f, false);
}

// Run one block: every thread a fiber, scheduled round robin until all are done.
void ge_run_block(unsigned nthreads, const std::function<void()>& body) {
    GeBlock blk;
    blk.body = &body;
    blk.fibers.resize(nthreads);
    for (unsigned t = 0; t < nthreads; ++t) {
        GeFiber& f = blk.fibers[t];
        f.stack = ge_fiber_stack(t);
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack;
        f.ctx.uc_stack.ss_size = GE_FIBER_STACK;
        f.ctx.uc_link = nullptr;
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
            ge_to_fiber(blk, t);
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
    if (bx == 0 || bx % GE_WARP || bx > GE_MAX_BLOCK)
        ge_emu_fail("blockDim.x must be a positive multiple of 32, at most 1024");
    const long n_blocks = (long)gx * (long)gy;
    const int threads = n_blocks < nthreads ? (int)n_blocks : nthreads;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
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
