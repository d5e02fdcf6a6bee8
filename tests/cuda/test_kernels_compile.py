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
@pytest.mark.parametrize("name", CU_FILES)
def test_every_kernel_file_compiles_alone_for_compute_80(name):
    """Each file, alone, through NVRTC's front end for compute_80 (an A100): its includes,
    types and every intrinsic it calls exist there. The kernels hold no ``__CUDA_ARCH__``
    branch and no inline PTX (checked below), so the front end is where the architectures
    differ; the code generated for sm_90, every module through ptxas, is
    tests/cuda/test_kernel_resources.py's, and an sm_80 cubin is built below."""
    out = nvrtc.compile_ptx(KERNEL_DIR / name, arch="compute_80",
                            options=("--fdevice-syntax-only",))
    assert isinstance(out, str)


def test_no_kernel_source_depends_on_the_architecture():
    """What would make code generation differ between sm_80 and sm_90 beyond the front end."""
    for path in sorted(KERNEL_DIR.glob("*.cu*")):
        code = path.read_text()
        assert "__CUDA_ARCH__" not in code, f"{path.name} branches on __CUDA_ARCH__"
        assert not re.search(r"\basm\s*(volatile\s*)?\(", code), f"{path.name} holds inline PTX"


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
