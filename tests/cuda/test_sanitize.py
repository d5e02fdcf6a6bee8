"""The sanitizer job's machinery catches what it is for (tests/emulation/sanitize.py runs the
real cases after the suite, from .ci/run): a kernel reading one element past its input,
launched through its sanitized host build in a process with the ASan runtime preloaded, makes
the process fail with AddressSanitizer's report; the same kernel in bounds passes.
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap

import pytest

from gpu_eval.cuda import nvrtc

from emulation import hostbuild, sanitizers

_TOY = r"""
#include "ge_common.cuh"
GE_GLOBAL void ge_toy_sum(const ge_u32* __restrict__ x, ge_u64 n, ge_u64 reach,
                          ge_u64* __restrict__ out) {
    for (ge_u64 i = ge_thread_index(); i < n; i += ge_thread_count()) out[i] = x[i + reach];
}
"""

_CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    import numpy as np
    from gpu_eval.cuda import manifest, nvrtc
    kdir = Path(sys.argv[1])
    nvrtc.kernel_dir = lambda: kdir
    k = manifest.kernel_record("ge_toy_sum", "toy_sum.cu",
                         "const ge_u32* x, ge_u64 n, ge_u64 reach, ge_u64* out", manifest.STRIDE)
    manifest.KERNELS[k.name] = k
    manifest.MODULES["toy_sum"] = manifest.Module("toy_sum", "toy", ("toy_sum.cu",), (),
                                                  (k.name,))
    from emulation import kernel_build
    lib = kernel_build.load("toy_sum", sanitize=True)
    x = np.arange(100, dtype=np.uint32)
    out = np.zeros(100, dtype=np.uint64)
    lib.launch("ge_toy_sum", (1,), (32,), (x, np.uint64(100), np.uint64(int(sys.argv[2])), out),
               {})
    print("sum", int(out.sum()))
""")


@pytest.fixture(scope="module")
def toy_dir(tmp_path_factory):
    try:
        sanitizers.runtime()
    except hostbuild.HostBuildUnavailableError as exc:
        pytest.skip(str(exc))
    kdir = tmp_path_factory.mktemp("kernels")
    shutil.copytree(nvrtc.kernel_dir(), kdir, dirs_exist_ok=True)
    (kdir / "toy_sum.cu").write_text(_TOY)
    return kdir


def _run(toy_dir, reach: int) -> subprocess.CompletedProcess:
    return sanitizers.run(_CHILD, str(toy_dir), str(reach))


def test_an_out_of_bounds_read_fails_the_sanitized_launch(toy_dir):
    ok = _run(toy_dir, 0)
    assert ok.returncode == 0, ok.stderr[-2000:]
    assert f"sum {sum(range(100))}" in ok.stdout
    bad = _run(toy_dir, 1)  # the last thread reads x[100]
    assert bad.returncode != 0
    assert "AddressSanitizer: heap-buffer-overflow" in bad.stderr
    assert "toy_sum.cu" in bad.stderr
