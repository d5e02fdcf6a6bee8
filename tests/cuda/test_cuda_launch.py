"""Launch configuration of the CUDA modules, without a GPU (tests/emulation/fake_cupy/ stands in):
occupancy from the driver's occupancy API where CuPy offers it (the estimate otherwise),
grids of whole waves, the kernel-source hash computed once per process, and the state-machine
kernel loaded through the shared per-device module cache.
"""

from __future__ import annotations

import types

import pytest

from gpu_eval.cuda import fsm, holdem, modules, nvrtc
from gpu_eval.cuda.waves import wave_efficiency, whole_wave_splits

H200 = {"multiProcessorCount": 132, "maxThreadsPerMultiProcessor": 2048,
        "regsPerMultiprocessor": 65536, "sharedMemPerMultiprocessor": 233472,
        "maxBlocksPerMultiProcessor": 32}


@pytest.fixture
def fake(stand_in_cupy):
    return stand_in_cupy

class _Kernel:
    def __init__(self, regs, smem=0):
        self.num_regs, self.shared_size_bytes = regs, smem
        self.kernel = types.SimpleNamespace(ptr=1234)


@pytest.mark.parametrize("regs, smem, want", [
    (32, 0, 8),       # threads: 2048 / 256
    (40, 0, 6),       # 40 x 32 = 1280 registers a warp, 10240 a block
    (41, 0, 5),       # 41 rounds up to 48 a thread (256-register units per warp)
    (56, 8192, 4),    # ge_eq_pairs
    (72, 0, 3),       # ge_eq_sample_2 / 3 at their launch bounds
    (128, 0, 2),
    (32, 100_000, 2),  # shared memory (plus 1 KiB reserved per block)
])
def test_occupancy_estimate(regs, smem, want):
    assert modules._blocks_per_sm_estimate(_Kernel(regs, smem), H200) == want


def test_occupancy_asks_the_driver_first(fake, monkeypatch):
    calls = []

    def occupancy(func, block, smem):
        calls.append((func, block, smem))
        return 7

    monkeypatch.setattr(fake.cuda, "driver", types.SimpleNamespace(
        occupancyMaxActiveBlocksPerMultiprocessor=occupancy), raising=False)
    assert modules.resident_blocks_per_sm(_Kernel(40), H200) == 7
    assert calls == [(1234, modules.THREADS_PER_BLOCK, 0)]
    monkeypatch.delattr(fake.cuda, "driver")
    assert modules.resident_blocks_per_sm(_Kernel(40), H200) == 6  # no driver API: the estimate


def test_all_pairs_grid_ends_on_whole_waves():
    """1326 combos in 64 x 64 tiles (231 tile pairs) on 132 SMs x 4 blocks: 10 splits a tile
    (the old choice) make 4.375 waves; 16 make exactly 7."""
    wave = 132 * 4
    assert wave_efficiency(231 * 10, wave) == pytest.approx(4.375 / 5)
    s = whole_wave_splits(231, wave, -(-4 * wave // 231))
    assert s == 16 and wave_efficiency(231 * s, wave) == 1.0
    for units in range(1, 400, 7):
        for wave in (8, 100, 528):
            lo = max(1, -(-4 * wave // units))
            s = whole_wave_splits(units, wave, lo)
            assert lo <= s <= 2 * lo
            assert wave_efficiency(units * s, wave) >= max(
                wave_efficiency(units * t, wave) for t in range(lo, 2 * lo + 1)) - 1e-12


def test_source_hash_once_per_process(fake, monkeypatch):
    holdem.get_module()
    calls = []
    real = nvrtc.source_hash
    monkeypatch.setattr(modules, "source_hash", lambda *a: calls.append(1) or real(*a))
    for _ in range(3):
        holdem.get_module()
    assert calls == []


def test_fsm_kernel_from_the_shared_cache(fake, monkeypatch):
    monkeypatch.setattr(fsm, "FSM_STATES", {})
    built = []
    plain = fake.RawModule

    def counting(code=None, **kw):
        built.append(code)
        return plain(code=code, **kw)

    monkeypatch.setattr(fake, "RawModule", counting)
    kernel, full = fsm.fsm_kernel(0)
    assert fsm.fsm_kernel(0) == (kernel, full)
    assert len(built) == 1 and '#include "fsm.cu"' in built[0]
    assert kernel.name == "ge_fsm_eval_ids"
    assert full == 2 * 6  # the stand-in's 2 SMs x 6 blocks of its 40-register kernels


@pytest.mark.parametrize("module", ["gpu_eval.cuda.waves", "gpu_eval.equity_engine.deal_check",
                                    "gpu_eval.cuda.resources", "gpu_eval.cuda.modules",
                                    "gpu_eval.cuda.device_inputs",
                                    "gpu_eval.equity_engine.deals.cuda_engine"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    failures, tried = doctest.testmod(importlib.import_module(module))
    assert failures == 0 and tried > 0
