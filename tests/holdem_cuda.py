"""The hold'em CUDA engine on the stand-in CuPy (its equity.cu module running the host build
of the kernels), and the Monte Carlo cases its tests share: used by the engine's tests, the
planner's and the device tests."""

from __future__ import annotations

import sys
from collections import OrderedDict
from math import comb

import numpy as np

from gpu_eval import backend_choice
from gpu_eval.cuda import availability, modules
from gpu_eval.equity_engine import problem as equity_problem
from gpu_eval.equity_engine.holdem import cuda_engine as ce


class _FakeEquityKernel:
    num_regs = 64
    shared_size_bytes = 0

    def __init__(self, name, host, launches):
        self.name, self.host, self.launches = name, host, launches

    def __call__(self, grid, block, args, shared_mem=0):
        self.launches.append((self.name, tuple(grid), tuple(block)))
        self.host.launch(self.name, grid, block,
                         [a.view(np.ndarray) if isinstance(a, np.ndarray) else a for a in args])


class _FakeEquityModule:
    """cupy.RawModule for the equity source: kernels run on the host build."""

    def __init__(self, code, options, host, launches):
        self.code, self.options, self.host, self.launches = code, options, host, launches
        self.symbol = np.zeros(len(modules.BITMASK_TABLE_ORDER), dtype=np.uint64)

    def get_function(self, name):
        assert name in ce.KERNELS, name
        return _FakeEquityKernel(name, self.host, self.launches)

    def get_global(self, name):
        from emulation import fake_cupy

        assert name == "ge_bitmask_tables"
        return fake_cupy._MemoryPointer(self.symbol,
                                        on_write=lambda a: self.host.set_tables(a.view(np.uintp)))


def install_fake_equity(monkeypatch, host):
    """Install the stand-in CuPy whose equity.cu module runs ``host`` (also used by
    tests/equity_engine/test_planner.py); returns it, with its ``launches`` list."""
    from emulation import fake_cupy

    launches = []
    plain = fake_cupy.RawModule

    def raw_module(code=None, *, options=(), **kw):
        if code is not None and ce.MODULE_FILE in code:
            return _FakeEquityModule(code, options, host, launches)
        return plain(code=code, options=options, **kw)

    monkeypatch.setattr(fake_cupy, "RawModule", raw_module)
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    monkeypatch.setattr(ce, "_STATES", {})
    monkeypatch.setattr(ce, "_MATRIX", {})
    monkeypatch.setattr(ce, "_BOARD_CACHE", OrderedDict())
    monkeypatch.setattr(fake_cupy, "launches", launches)
    clear_caches()
    return fake_cupy


def clear_caches():
    availability.cuda_available.cache_clear()
    getattr(backend_choice.cuda_status, "cache_clear", lambda: None)()


def mc_setup(players, board="", dead=""):
    """What gpu_eval.equity_engine.api hands sample_counts: holes, cum weights, deck, base, k, dealt."""
    prob = equity_problem.prepare(players, board, dead)
    holes = [p.masks for p in prob.players]
    cum = [None if p.fixed else np.cumsum(p.weights) for p in prob.players]
    n_any = comb(bin(prob.deck_mask).count("1"), 2)
    dealt = [not p.fixed and len(p.masks) == n_any for p in prob.players]
    return holes, cum, prob.deck_mask, prob.board_mask, prob.k, dealt


MC_CASES = {
    "hand vs hand preflop": (["AhKh", "QsQd"], ""),
    "weighted ranges, flop": (["QQ+:0.7,AKs,0.3(A5s-A2s)", "JJ+,AQs+,0.5(KQo)"], "Kd 7c 2h"),
    "uniform + weighted + random, turn": (["TT+", "AK:0.4,KQs", "random"], "2c 7d 9s Jh"),
    "two random players and a hand": (["random", "AsAd", "random"], ""),
    "clashing ranges, 4 players": (["AA,KK", "AK,AQs", "KQ,AKs", "QQ+"], "2c 3d 4h"),
}
