"""Reference figures (docs/architecture.md, "Contracts") and helpers shared by the kernel tests."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from functools import cache
from math import comb
from pathlib import Path

import numpy as np

from gpu_eval import combinatorics, scale
from gpu_eval.cards import _ID_TO_DEADHORSE, ID_TO_MASK
from gpu_eval.evaluator import bitmask

# Hands per category, high card (0) .. straight flush (8).
FIVE_CARD_CATEGORY_COUNTS = [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40]
SEVEN_CARD_CATEGORY_COUNTS = [23294460, 58627800, 31433400, 6461620, 6180020, 4047644,
                              3473184, 224848, 41584]
SEVEN_CARD_DISTINCT = 4824
SEVEN_CARD_ROYALS = 4324
NUM_STRENGTHS = 7463


def categories_from_histogram(hist: np.ndarray) -> list[int]:
    """Hands per category from a per-strength histogram (strength 0 must be empty)."""
    assert hist[0] == 0
    base = np.array(scale.BASE)
    cat = np.searchsorted(base, np.arange(1, NUM_STRENGTHS), side="left") - 1
    return np.bincount(cat, weights=hist[1:], minlength=9).astype(np.int64).tolist()


#: The environment variable naming the folder a run's xdist workers share (made by the
#: controlling process, which removes it when the run ends: tests/conftest.py).
SHARED_DIR_VARIABLE = "GPU_EVAL_TESTS_SHARED_DIR"


def run_dir() -> Path | None:
    """The folder every xdist worker of this test run shares, or None outside xdist (or where
    the controlling process made none)."""
    shared = os.environ.get(SHARED_DIR_VARIABLE)
    if "PYTEST_XDIST_WORKER" not in os.environ or not shared:
        return None
    return Path(shared)


def once_per_run(path: Path | None, build: Callable[[], np.ndarray]) -> np.ndarray:
    """``build()``, worked out once per test run: the first worker to ask saves it to
    ``path`` (under a lock, so a second one waits rather than builds it again) and every
    worker maps the file read-only. With ``path`` None, just ``build()``."""
    if path is None:
        return build()
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            tmp = path.with_suffix(".tmp.npy")
            np.save(tmp, build())
            os.replace(tmp, path)
    return np.load(path, mmap_mode="r")


_seven: list[np.ndarray] = []


def seven_card_strengths(shared: Path | None = None) -> np.ndarray:
    """Bitmask strengths of all 133,784,560 seven-card hands, computed once per test run
    for every exhaustive seven-card check (268 MB, read-only; shared between xdist workers
    through a file in ``shared``, :func:`run_dir`, where the first call of a worker gives
    one): the hands whose top card is ``top`` are ``[comb(top, 7), comb(top + 1, 7))``, the
    other six cards in the colex order of ``combinatorics.subset_masks(51, 6)``
    (:func:`seven_card_groups`)."""
    if not _seven:
        def build() -> np.ndarray:
            out = np.empty(comb(52, 7), dtype=np.uint16)
            for _top, masks, part in seven_card_groups(out):
                bitmask.evaluate_masks(masks, out=part)
            return out

        path = None if shared is None else shared / "seven_card_strengths.npy"
        out = once_per_run(path, build)
        out.flags.writeable = False
        _seven.append(out)
    return _seven[0]


def seven_card_groups(strengths: np.ndarray | None = None):
    """``(top, masks, part)`` per top card 6..51: the masks of the seven-card hands with that
    top card and the matching slice of ``strengths`` (default :func:`seven_card_strengths`).
    ``masks`` is a view of one buffer, overwritten by the next group (a fresh 145 MB array
    per group costs more in page faults than the OR itself)."""
    six = combinatorics.subset_masks(51, 6)
    if strengths is None:
        strengths = seven_card_strengths()
    buf = np.empty(len(six), dtype=np.uint64)
    for top in range(6, 52):
        lo, n = comb(top, 7), comb(top, 6)
        yield top, np.bitwise_or(six[:n], ID_TO_MASK[top], out=buf[:n]), strengths[lo:lo + n]


@cache
def numpy_seven_card_histogram(shared: Path | None = None) -> np.ndarray:
    """Per-strength counts over all 133,784,560 seven-card hands with the NumPy evaluator
    (once per test run, as :func:`seven_card_strengths`)."""
    def build() -> np.ndarray:
        strengths = seven_card_strengths(shared)
        step = 1 << 22  # bincount makes an intp copy of its input: 32 MB at a time, not 1 GB
        return sum(np.bincount(strengths[i:i + step], minlength=NUM_STRENGTHS)
                   for i in range(0, len(strengths), step)).astype(np.int64)

    hist = once_per_run(None if shared is None else shared / "seven_card_histogram.npy", build)
    hist.flags.writeable = False
    return hist


def random_hands(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """``(n, k)`` uint8 ids, k distinct cards per row, in random order."""
    return np.argsort(rng.random((n, 52)), axis=1)[:, :k].astype(np.uint8)


def ids_to_masks(ids: np.ndarray) -> np.ndarray:
    return np.bitwise_or.reduce(ID_TO_MASK[ids], axis=1)


def ids_to_deadhorse(ids: np.ndarray) -> np.ndarray:
    return _ID_TO_DEADHORSE[ids].astype(np.int32)


def slice_masks(k: int, start: int, stop: int) -> np.ndarray:
    """Hand masks of colex subsets [start, stop) of size k, via NumPy's ``unrank``."""
    return ids_to_masks(combinatorics.unrank(np.arange(start, stop, dtype=np.uint64), k))


def bad_batches() -> dict:
    """Batches of hands, good and bad in every way, with the keywords to evaluate them."""
    rng = np.random.default_rng(3)
    ids = random_hands(rng, 400, 7)
    dup = ids.copy()
    dup[5, 3] = dup[5, 1]            # a card used twice
    oor = ids.astype(np.int16)
    oor[9, 2] = 52                   # out of range
    neg = ids.astype(np.int32)
    neg[11, 0] = -1
    masks = ids_to_masks(ids)
    stray = masks.copy()
    stray[7] |= np.uint64(1 << 13)   # a bit outside the 52 card positions
    short = masks.copy()
    short[2] = ids_to_masks(ids[2:3, :4])[0]  # 4 cards
    dh = ids_to_deadhorse(ids)
    dh_bad = dh.copy()
    dh_bad[4, 6] = 3                 # two rank bits, no suit bit
    dh_dup = dh.copy()
    dh_dup[8, 0] = dh_dup[8, 1]
    return {
        "ids": (ids, {}), "dup": (dup, {}), "oor": (oor, {}), "neg": (neg, {}),
        "masks": (masks, {}), "stray": (stray, {}), "short": (short, {}),
        "four": (ids[:, :4], {}), "ten": (random_hands(rng, 50, 10), {}),
        "dh": (dh, {"encoding": "deadhorse"}), "dh_bad": (dh_bad, {"encoding": "deadhorse"}),
        "dh_dup": (dh_dup, {"encoding": "deadhorse"}),
        "one_hand": (ids[0], {}), "one_mask": (masks[0], {}),
        "float": (ids.astype(np.float32), {}),
    }
