"""Every CUDA kernel source compiles under NVRTC, with no GPU needed (docs/architecture.md: testing, way 1).

Skipped (with the reason) only where CuPy or its NVRTC library is missing; the test extra
installs both, so CI runs these.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gpu_eval.cuda import holdem, manifest, modules, nvrtc
from gpu_eval.evaluator.tables import bitmask_tables

try:
    NVRTC_VERSION = nvrtc.nvrtc_version()
    SKIP_REASON = ""
except nvrtc.NvrtcUnavailableError as exc:
    NVRTC_VERSION = None
    SKIP_REASON = str(exc)

needs_nvrtc = pytest.mark.skipif(NVRTC_VERSION is None, reason=SKIP_REASON)

KERNEL_DIR = nvrtc.kernel_dir()
CU_FILES = sorted(p.name for p in KERNEL_DIR.glob("*.cu"))
CUH_FILES = sorted(p.name for p in KERNEL_DIR.glob("*.cuh"))
# What CuPy's RawModule adds to our options when it compiles for a device.
CUPY_EXTRA_OPTIONS = ("-ftz=true", "--device-as-default-execution-space")


def test_kernel_sources_are_found():
    assert {"evaluate.cu", "enumerate.cu"} <= set(CU_FILES)
    assert {"bitmask.cuh", "combinatorics.cuh", "ge_common.cuh"} <= set(CUH_FILES)
    assert (KERNEL_DIR / "host_shim.h").is_file()


@needs_nvrtc
@pytest.mark.parametrize("arch", ["compute_80"])  # sm_90: every module, in test_kernel_resources
@pytest.mark.parametrize("name", CU_FILES)
def test_every_kernel_file_compiles_to_ptx(name, arch):
    ptx = nvrtc.compile_ptx(KERNEL_DIR / name, arch=arch)
    assert f".target sm_{arch.split('_')[1]}" in ptx
    entries = re.findall(r"\.entry\s+(\w+)", ptx)
    assert entries, f"{name} defines no kernel"
    # extern "C": kernel names are not mangled, so CuPy can look them up by name.
    assert all(e.startswith("ge_") for e in entries), entries
    _check_block_summed_tallies(name, ptx)


#: Kernels whose every thread counts into the same totals: they sum their counters over the
#: block (kernels/pots.cuh) and reach global memory from the block's flush alone, so each
#: holds at most this many 64-bit global atomic adds in its code (the deal grid flushes in
#: two places, the games sampler also raises its stop flag). Each thread adding its own
#: counters was 5 N + 1 or 6 N atomics a thread, about 1.6 million a launch on an H200.
BLOCK_SUMMED = {"equity_deals.cu": (r"ge_deals_(grid|sample)_\d+", 2),
                "equity_games.cu": (r"ge_games_sample_\d+", 2)}
_GLOBAL_ADD_U64 = re.compile(r"\b(?:atom|red)(?:\.relaxed\.gpu)?\.global\.add\.u64")


def _check_block_summed_tallies(name: str, ptx: str) -> None:
    if name not in BLOCK_SUMMED:
        return
    pattern, most = BLOCK_SUMMED[name]
    found = 0
    for part in re.split(r"(?=\.visible \.entry )", ptx)[1:]:
        entry = re.match(r"\.visible \.entry (\w+)", part).group(1)
        if re.fullmatch(pattern, entry):
            found += 1
            atomics = len(_GLOBAL_ADD_U64.findall(part))
            assert atomics <= most, f"{entry}: {atomics} global atomic adds in its code"
    assert found, f"{name}: no kernel matches {pattern}"


@needs_nvrtc
@pytest.mark.parametrize("name", CUH_FILES)
def test_every_header_is_self_contained(name):
    nvrtc.compile_ptx(f'#include "{name}"\n', arch="compute_90", name=f"only_{name}.cu")


@needs_nvrtc
@pytest.mark.parametrize("arch", ["sm_80"])  # sm_90: every module, in test_kernel_resources
def test_device_module_assembles_to_cubin(arch):
    """The exact module CuPy builds per device, through ptxas, with CuPy's extra options (for
    sm_90 the resource report assembles every module so)."""
    cubin = nvrtc.compile_cubin(manifest.module_source("evaluator"), arch=arch,
                                options=CUPY_EXTRA_OPTIONS)
    assert cubin[:4] == b"\x7fELF"
    ptx = nvrtc.compile_ptx(manifest.module_source("evaluator"), arch="compute_90",
                             options=CUPY_EXTRA_OPTIONS)
    entries = set(re.findall(r"\.entry\s+(\w+)", ptx))
    assert set(holdem.KERNELS) <= entries
    assert re.search(r"\.const .*ge_bitmask_tables", ptx), "table struct is not __constant__"


@needs_nvrtc
def test_compile_errors_carry_the_log():
    with pytest.raises(RuntimeError, match="broken.cu"):
        nvrtc.compile_ptx("this is not CUDA", name="broken.cu")


@pytest.mark.parametrize("header, struct, count, order, dtypes, tables", [
    ("bitmask.cuh", "GeBitmaskTables", "GE_BITMASK_TABLE_COUNT", modules.BITMASK_TABLE_ORDER,
     modules.BITMASK_TABLE_DTYPES, lambda: bitmask_tables().as_dict()),
    ("phash.cuh", "GePhashTables", "GE_PHASH_TABLE_COUNT", holdem.PHASH_TABLE_ORDER,
     holdem.PHASH_TABLE_DTYPES, holdem.phash_device_tables),
], ids=["bitmask", "phash"])
def test_table_struct_matches_loader(header, struct, count, order, dtypes, tables):
    """The __constant__ table struct's fields are what cuda.modules / cuda.holdem and emulation.hostbuild
    fill it with."""
    text = (KERNEL_DIR / header).read_text()
    body = re.search(struct + r"\s*\{(.*?)\};", text, re.S).group(1)
    fields = re.findall(r"const\s+ge_(u8|u16|u32|u64)\*\s+(\w+);", body)
    assert [f for _, f in fields] == list(order)
    assert int(re.search(rf"#define {count} (\d+)", text).group(1)) == len(order)
    arrays = tables()
    assert set(arrays) == set(order)
    for ctype, name in fields:
        assert arrays[name].dtype == np.dtype(f"uint{ctype[1:]}"), name
        assert dtypes[name] == arrays[name].dtype, name


def test_phash_rank_groups_match_kernel():
    from gpu_eval.evaluator import phash

    assert tuple(phash.RANK_GROUPS) == holdem.PHASH_RANK_GROUPS
    text = (KERNEL_DIR / "phash.cuh").read_text()
    calls = re.findall(r"ge_phash_group<(\d+), (\d+)>\(t\.group(\d)", text)
    assert [(int(lo), int(lo) + int(w)) for lo, w, _ in calls] == list(holdem.PHASH_RANK_GROUPS)
    assert [int(g) for _, _, g in calls] == [0, 1, 2, 3]


def test_module_source_carries_source_hash():
    src = manifest.module_source("evaluator")
    assert nvrtc.source_hash() in src
    for f in manifest.module("evaluator").files:
        assert f'#include "{f}"' in src


def test_importing_the_cuda_backend_does_not_import_cupy():
    code = ("import sys, gpu_eval, gpu_eval.cuda.holdem, gpu_eval.cuda.variants, "
            "gpu_eval.equity_engine.holdem.cuda_engine, "
            "gpu_eval.equity_engine.board_games.cuda_engine, gpu_eval.cuda.modules, "
            "gpu_eval.cuda.device_inputs, gpu_eval.cuda.nvrtc, gpu_eval.cuda.availability, "
            "emulation.hostbuild; assert 'cupy' not in sys.modules, 'cupy was imported'")
    tests = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (tests, os.environ.get("PYTHONPATH")) if p)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
