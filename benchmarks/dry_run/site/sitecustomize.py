"""The stand-in device for ``benchmarks/gpu_check.sh --dry-run``.

A Python started with this folder on ``PYTHONPATH`` and ``GPU_EVAL_STAND_IN_DEVICE=1`` has
``tests/emulation/fake_cupy/`` as its ``cupy``: the CUDA launchers run on the host builds of
the kernels (the test suite's stand-in), so the device script's Python steps run on a machine
without a GPU. Without the variable this file does nothing.
"""

import os
import sys
from pathlib import Path

if os.environ.get("GPU_EVAL_STAND_IN_DEVICE") == "1":
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
    from emulation import fake_cupy

    sys.modules["cupy"] = fake_cupy
