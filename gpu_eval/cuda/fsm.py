"""The CUDA launcher of the table-walking state-machine evaluator (``kernels/fsm.cu``):
:func:`gpu_eval.evaluator.statemachine.evaluate_fsm` validates CuPy ids and calls
:func:`launch` here. CuPy is imported lazily (through the callers' arrays).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from gpu_eval.cuda.availability import require_cuda
from gpu_eval.cuda.modules import (
    THREADS_PER_BLOCK,
    cached_device_state,
    compile_module,
    device_cache,
    resident_blocks_per_sm,
)

__all__ = ["fsm_kernel", "launch", "FSM_STATES"]

#: (device, sources hash) -> (kernel, blocks that fill the device)
FSM_STATES: dict = device_cache()
_LOCK = threading.Lock()


def fsm_kernel(device_id: int) -> tuple[Any, int]:
    """The fsm kernel of a device and its full grid, built once through the per-device module
    cache every CUDA module of the package shares (gpu_eval.cuda.modules.cached_device_state)."""
    def build(cupy, dev: int) -> tuple[Any, int]:
        _, kernels = compile_module(cupy, "fsm", dev)
        kernel = kernels["ge_fsm_eval_ids"]
        props = cupy.cuda.runtime.getDeviceProperties(dev)
        full = int(props["multiProcessorCount"]) * resident_blocks_per_sm(kernel, props)
        assert THREADS_PER_BLOCK == 256  # the launch below
        return kernel, full

    return cached_device_state(FSM_STATES, _LOCK, build, device_id)


def launch(device_table: Any, ids8: Any, k: int, out: Any) -> None:
    """``ge_fsm_eval_ids`` over validated ``(N, k)`` uint8 ids into ``out`` (uint16, N).

    Examples
    --------
    >>> launch  # doctest: +ELLIPSIS
    <function launch at ...>
    """
    require_cuda()
    n = int(ids8.shape[0])
    with ids8.device:  # the device that holds the ids (and the table and out with them)
        kernel, full = fsm_kernel(ids8.device.id)
        threads = THREADS_PER_BLOCK
        blocks = max(1, min(full, -(-n // threads)))
        kernel((blocks,), (threads,), (device_table, ids8, np.int32(k), np.int64(n), out))
