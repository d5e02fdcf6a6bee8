"""The stand-in's modules and kernels: ``cupy.RawModule`` for any manifest module, its
``__constant__`` table structs and kernels, each launch run by that module's host build
(:mod:`emulation.kernel_build`) with the launch's own grid and block.

Nothing here is written per kernel: a module is recognised by the files its code includes
(:func:`gpu_eval.cuda.manifest.module_of_code`), each launch is checked against the kernel's
record (:func:`gpu_eval.cuda.manifest.check_launch`: arguments, block shape, devices), and
the arguments a kernel writes are the record's outputs (the stream-order model's writes). A
launch reading an array of another device than the current one fails, as it would with an
illegal address on a GPU.
"""

from __future__ import annotations

import numpy as np

from gpu_eval.cuda import manifest

from emulation import kernel_build
from emulation.fake_cupy import devices, streams
from emulation.fake_cupy.arrays import MemoryPointer, ndarray

__all__ = ["RawModule", "RawKernel", "launches"]

launches: list[tuple[str, tuple, tuple]] = []  # (kernel, grid, block) of every launch


class RawModule:
    """``cupy.RawModule`` of a manifest module's code, on the device current when it is made:
    its table structs are arrays of device pointers (``symbols``), written by the launcher's
    table upload and handed to the host build at each launch. Code compiled for one player
    count (``#define GE_PLAYERS``) exports that part's kernels alone, as its binary would (the
    host build is the whole module's)."""

    def __init__(self, code=None, *, options=(), **kwargs):
        self.code, self.options = code, options
        self.record = manifest.module_of_code(code)
        self.players = manifest.players_of_code(code)
        self.exports = self.record.players.names(self.players)
        self.device_id = devices.current_id()
        self.library = kernel_build.load(self.record.name)
        self.symbols = {sym: np.zeros(self.library.symbol_size(sym) // 8, dtype=np.uint64)
                        for sym in self.record.symbols}

    def get_global(self, name):
        if name not in self.symbols:
            raise AssertionError(f"module {self.record.name} has no __constant__ {name} in its "
                                 f"manifest record")
        return MemoryPointer(self.symbols[name], self.device_id)

    def get_function(self, name):
        if name not in self.exports:
            part = "" if self.players is None else f" compiled for {self.players} players"
            raise AssertionError(f"module {self.record.name}{part} exports no kernel {name}")
        return RawKernel(self, manifest.kernel(name))


class RawKernel:
    """One kernel of a :class:`RawModule`; calling it queues the launch on the current stream."""

    num_regs = 40
    shared_size_bytes = 0

    def __init__(self, module: RawModule, record: manifest.Kernel):
        self.module, self.record, self.name = module, record, record.name

    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        grid, block = tuple(grid), tuple(block)
        launches.append((self.name, grid, block))
        dev = devices.current_id()
        if dev != self.module.device_id:
            raise RuntimeError(f"cudaErrorInvalidResourceHandle: {self.name} of a module "
                               f"loaded on device {self.module.device_id} launched on device "
                               f"{dev}")
        # The launchers' block size exactly (their launches are what a GPU will see).
        manifest.check_launch(self.record, grid, block, args)
        for i, a in enumerate(args):
            if isinstance(a, ndarray) and a._device_id != dev:
                raise RuntimeError(f"cudaErrorIllegalAddress: {self.name} on device {dev} "
                                   f"reads argument {i} ({self.record.args[i].name}) on device "
                                   f"{a._device_id}")
        arrays = [i for i, a in enumerate(args) if isinstance(a, ndarray)]
        symbols = dict(self.module.symbols)

        def run(poisoned):  # a buffer read before its writer ran reads as poison
            real = [a.view(np.ndarray) if isinstance(a, ndarray) else a for a in args]
            for j, i in enumerate(arrays):
                if j in poisoned:
                    real[i] = np.ascontiguousarray(poisoned[j])
            self.module.library.launch(self.name, grid, block, tuple(real), symbols)

        streams.current_stream().submit(
            run, reads=[args[i] for i in arrays],
            writes=[args[i] for i in self.record.output_indices if isinstance(args[i], ndarray)])
