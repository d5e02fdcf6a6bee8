"""Compiled kernels persist across processes, and a first call compiles only what it launches.

The kernel cache (gpu_eval.cuda.kernel_cache) compiles with NVRTC, which needs no GPU, so
everything but the driver's loading of a binary is checked here: keys, files, a second
process finding them, a bad file compiled again, the whole module preferred to a part, and
parts that hold exactly their player count's kernels. A stand-in ``cupy`` module (named
``cupy``, unlike the suite's emulator) records what it is asked to load.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from gpu_eval.cuda import kernel_cache, manifest, modules, nvrtc
from gpu_eval.cuda.nvrtc import module_code

try:
    nvrtc.nvrtc_version()
    NO_NVRTC = ""
except nvrtc.NvrtcUnavailableError as exc:
    NO_NVRTC = str(exc)
needs_nvrtc = pytest.mark.skipif(bool(NO_NVRTC), reason=NO_NVRTC)

LOWS = module_code("low kernels", ["lowball.cu"])  # the smallest module: ~0.2 s to compile


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(kernel_cache.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.delenv(kernel_cache.SWITCH_ENV, raising=False)
    return tmp_path / "kernels"


class _Device:
    def __init__(self, capability: str) -> None:
        self.compute_capability = capability

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def recording_cupy(capability: str = "90") -> types.ModuleType:
    """A ``cupy`` that loads only ELF files (what a cubin is) and records each path."""
    cupy = types.ModuleType("cupy")
    cupy.loaded = []
    cupy.sources = []

    class RawModule:
        def __init__(self, code=None, *, path=None, options=()):
            if path is None:
                cupy.sources.append(code)
            elif not Path(path).read_bytes().startswith(b"\x7fELF"):
                raise RuntimeError("CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid")
            else:
                cupy.loaded.append(path)

        def get_function(self, name):
            return f"kernel {name}"

    cupy.RawModule = RawModule
    cupy.cuda = types.SimpleNamespace(Device=lambda dev: _Device(capability),
                                      runtime=types.SimpleNamespace(getDevice=lambda: 0))
    return cupy


def test_arch_for_a_device_nvrtc_does_not_know():
    assert kernel_cache.arch_for(89, (75, 80, 86, 89, 90)) == "sm_89"
    assert kernel_cache.arch_for(86, (80, 90)) == "sm_80"  # same major: the cubin runs there
    assert kernel_cache.arch_for(100, (80, 90)) == "compute_90"  # PTX: the driver compiles it
    with pytest.raises(ValueError, match="no architecture up to compute capability 70"):
        kernel_cache.arch_for(70, (75, 80))


def test_key_follows_code_arch_and_sources(cache):
    a = kernel_cache.binary_path(LOWS, "sm_90")
    assert a.parent == cache / "sm_90" and a.name.startswith("low-kernels-sm_90-")
    assert kernel_cache.binary_path(LOWS, "sm_80") != a
    assert kernel_cache.binary_path(LOWS.replace("sha256 ", "sha256 0"), "sm_90") != a
    assert kernel_cache.binary_path(LOWS, "compute_90").suffix == ".ptx"
    assert kernel_cache.binary_path(LOWS, "sm_90") == a  # deterministic


@needs_nvrtc
def test_a_module_compiled_in_one_process_is_loaded_by_the_next(cache, monkeypatch):
    script = ("from gpu_eval.cuda import kernel_cache as k; from gpu_eval.cuda.nvrtc import "
              "module_code; print(k.build(module_code('low kernels', ['lowball.cu']), 'sm_90'))")
    env = {"PATH": "/usr/bin:/bin", kernel_cache.CACHE_DIR_ENV: str(cache.parent),
           "HOME": str(cache.parent)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, check=True, timeout=300).stdout.strip()
    assert kernel_cache.lookup(LOWS, "sm_90") == Path(out)
    assert Path(out).read_bytes().startswith(b"\x7fELF")

    def no_compiling(*args, **kwargs):
        raise AssertionError("compiled although the cache holds the module")

    monkeypatch.setattr(nvrtc, "compile_cubin", no_compiling)
    cupy = recording_cupy("90")
    module, kernels = kernel_cache.load_kernels(cupy, LOWS, ("ge_low_eval_masks",), 0)
    assert cupy.loaded == [out] and kernels == {"ge_low_eval_masks": "kernel ge_low_eval_masks"}


@needs_nvrtc
def test_a_bad_stored_binary_is_compiled_again(cache):
    path = kernel_cache.binary_path(LOWS, "sm_90")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"truncated")
    cupy = recording_cupy("90")
    kernel_cache.load_kernels(cupy, LOWS, ("ge_low_eval_masks",), 0)
    assert cupy.loaded == [str(path)] and path.read_bytes().startswith(b"\x7fELF")
    assert not list(path.parent.glob(".part-*"))  # nothing half-written left behind


def test_off_switch_and_stand_ins_get_the_source(cache, monkeypatch):
    cupy = recording_cupy()
    monkeypatch.setenv(kernel_cache.SWITCH_ENV, "0")
    kernel_cache.load_kernels(cupy, LOWS, ("ge_low_eval_masks",), 0)
    assert cupy.sources == [LOWS] and not cupy.loaded and not cache.exists()
    monkeypatch.delenv(kernel_cache.SWITCH_ENV)
    emulator = recording_cupy()
    emulator.__name__ = "emulation.fake_cupy"  # the suite's stand-in runs host builds
    kernel_cache.load_kernels(emulator, LOWS, ("ge_low_eval_masks",), 0)
    assert emulator.sources == [LOWS] and not cache.exists()


def test_whole_module_preferred_to_a_part_once_cached(cache, monkeypatch):
    cupy = recording_cupy("90")
    monkeypatch.setattr(modules, "require_cuda", lambda: cupy)
    monkeypatch.setattr(kernel_cache, "supported_archs", lambda: (80, 90))
    whole = manifest.module_source("batch")
    built = []

    def build(cupy_, dev, part):
        built.append(part)
        return f"state {part}"

    states, lock = {}, threading.Lock()
    assert modules.cached_part_state(states, lock, build, "batch", 3) == "state 3"
    assert modules.cached_part_state(states, lock, build, "batch", 3) == "state 3"
    assert built == [3]
    path = kernel_cache.binary_path(whole, "sm_90")  # `gpu-eval compile` ran meanwhile
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x7fELF")
    assert modules.cached_part_state(states, lock, build, "batch", 5) == "state None"
    assert modules.cached_part_state(states, lock, build, "batch", 3) == "state None"
    assert modules.cached_part_state(states, lock, build, "batch", 0) == "state None"
    assert built == [3, None]


def _entries(code: str) -> set[str]:
    ptx = nvrtc.compile_ptx(code, "compute_80", name="ge_part_test.cu")
    return set(re.findall(r"\.entry (\w+)", ptx))


@needs_nvrtc
def test_a_part_holds_exactly_its_player_count_kernels():
    from gpu_eval.equity_engine.batch import cuda_engine as cuda_batch
    from gpu_eval.equity_engine.deals import cuda_engine as cuda_deals

    assert _entries(manifest.module_source(cuda_batch.MODULE, 3)) == set(
        cuda_batch.PLAYER_KERNELS.names(3))
    assert _entries(manifest.module_source(cuda_deals.MODULE, 0)) == set(
        cuda_deals.PLAYER_KERNELS.names(0))


def test_every_per_count_kernel_list_can_be_compiled_alone():
    """Each kernels/*.cu instantiates its per-player-count kernels through GE_FOR_PLAYERS_*,
    which GE_PLAYERS restricts; a list written out line by line would compile whole."""
    from gpu_eval.cuda import games_module
    from gpu_eval.equity_engine.batch import cuda_engine as cuda_batch
    from gpu_eval.equity_engine.deals import cuda_engine as cuda_deals
    from gpu_eval.equity_engine.holdem import cuda_engine as cuda_equity

    for f in nvrtc.kernel_dir().glob("*.cu"):
        plain = re.findall(r"(?m)^GE_\w+_KERNEL\(\d+\)", f.read_text())
        assert not plain, f"{f.name}: {plain} not through GE_FOR_PLAYERS_2_TO_*"
    for launcher in (cuda_equity, games_module, cuda_deals, cuda_batch):
        kinds = launcher.PLAYER_KERNELS
        assert launcher.KERNELS == kinds.names()
        n = kinds.counts[-1]
        assert f"#define GE_PLAYERS {n}\n" in manifest.module_source(launcher.MODULE, n)
        assert "GE_PLAYERS" not in manifest.module_source(launcher.MODULE)
        text = "".join((nvrtc.kernel_dir() / f).read_text() for f in re.findall(
            r'#include "(\w+\.cu)"', manifest.module_source(launcher.MODULE)))
        for pattern in kinds.per_count:
            macro = re.search(r"GE_FOR_PLAYERS_2_TO_(\d+)\((\w+)\)", text[text.index(
                pattern.split("{")[0].rstrip("_") + "_##N"):])
            assert macro and int(macro.group(1)) == n, pattern


def test_stand_in_call_builds_only_its_part(stand_in_cupy):
    """A heads-up Omaha spot on the stand-in device compiles the two-player part of the
    games module: its code says GE_PLAYERS 2 and it fetches only that part's kernels."""
    import gpu_eval as ge
    from gpu_eval.cuda import games_module

    r = ge.equity(["AsAhKdQc", "JhTc9s8d"], board="Ac2h3s4d", game="omaha", backend="cuda",
                  exact=True)
    want = ge.equity(["AsAhKdQc", "JhTc9s8d"], board="Ac2h3s4d", game="omaha",
                     backend="numpy", exact=True)
    assert r.wins.tolist() == want.wins.tolist()
    parts = {key[-1]: state for key, state in games_module._STATES.items()}
    assert 2 in parts and None not in parts
    assert "#define GE_PLAYERS 2\n" in parts[2].module.code
    assert set(parts[2].kernels) == set(games_module.PLAYER_KERNELS.names(2))


@pytest.mark.parametrize("module", ["gpu_eval.cuda.kernel_cache", "gpu_eval.cuda.modules",
                                    "gpu_eval.cuda.nvrtc", "gpu_eval.cli_compile"])
def test_docstring_examples_run(module, cache):
    import doctest
    import importlib

    failures, _ = doctest.testmod(importlib.import_module(module), verbose=False)
    assert failures == 0
