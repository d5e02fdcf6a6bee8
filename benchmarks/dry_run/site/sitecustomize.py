"""The stand-in device for ``benchmarks/gpu_check.sh --dry-run``.

A Python started with this folder on ``PYTHONPATH`` and ``GPU_EVAL_STAND_IN_DEVICE=1`` has
``tests/emulation/fake_cupy/`` as its ``cupy``: the CUDA launchers run on the host builds of
the kernels (the test suite's stand-in), so the device script's Python steps run on a machine
without a GPU. Without the variable this file does nothing.

The stand-in is imported by the first ``import cupy``, not at start-up: it costs ~0.3 s of CPU
(NumPy, the host builds' helpers), which the script's Python processes that never touch a
device (the report, the ncu kernel filter) would otherwise pay each.
"""

import importlib.abc
import importlib.machinery
import os
import sys
from pathlib import Path


class _StandInCupy(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``cupy`` first and loads it as ``emulation.fake_cupy`` (the same module object
    under both names, as the test suite's ``stand_in_cupy`` fixture installs it)."""

    def find_spec(self, name, path=None, target=None):
        if name != "cupy":
            return None
        return importlib.machinery.ModuleSpec("cupy", self, is_package=True)

    def create_module(self, spec):
        from emulation import fake_cupy

        return fake_cupy

    def exec_module(self, module):
        pass  # executed as emulation.fake_cupy


if os.environ.get("GPU_EVAL_STAND_IN_DEVICE") == "1":
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
    sys.meta_path.insert(0, _StandInCupy())
    # gpu_eval asks CuPy for devices only where it finds a driver's files or CuPy is already
    # imported; the stand-in has neither until its first import, so ask it.
    os.environ.setdefault("GPU_EVAL_PROBE_CUDA", "1")
