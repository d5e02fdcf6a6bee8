"""benchmarks/gpu_small_launches.py on a real GPU: every case of its manifest (every kernel,
bad inputs included), each result checked against the stored NumPy answer (the same cases
gpu_check.sh runs under compute-sanitizer). A device test only (its launches take minutes of
host-built kernels on the stand-in: tests/cuda/test_small_launches_manifest.py runs one case
of each module there, and the sanitizer job, tests/emulation/sanitize.py, covers every
kernel).
"""

from __future__ import annotations

import sys
from pathlib import Path


def test_every_case_on_the_device(gpu):
    gpu.only_real("every kernel at sizes for a device")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    try:
        import gpu_small_launches
    finally:
        sys.path.pop(0)
    assert gpu_small_launches.run(gpu_small_launches.cases()) == 0
