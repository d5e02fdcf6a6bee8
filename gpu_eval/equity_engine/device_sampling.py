"""What every CUDA Monte Carlo sampler shares (hold'em, the other board games, the deal
games): the Philox4x32-10 generator's NumPy twin (the device's generator, kernels/equity.cuh),
a run's key from its seed, and the players' draw modes, decided as the NumPy engines decide
them. A seed therefore reproduces a CUDA result on any device and any split of its samples.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["philox4x32", "mc_key", "player_modes", "MODE_FIXED", "MODE_UNIFORM",
           "MODE_WEIGHTED", "MODE_DEALT", "MAX_TRIES"]

#: Player modes of the Monte Carlo kernels (GE_MC_* in kernels/equity.cuh).
MODE_FIXED, MODE_UNIFORM, MODE_WEIGHTED, MODE_DEALT = 0, 1, 2, 3
#: Redraws of a sample's ranged combos before giving up (the ranges almost never fit).
MAX_TRIES = 1 << 22

_PHILOX_M0, _PHILOX_M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_PHILOX_W0, _PHILOX_W1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
_LOW32 = np.uint64(0xFFFFFFFF)


def philox4x32(counters: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Philox4x32-10 (Random123) of each counter, vectorised; the device's generator.

    Parameters
    ----------
    counters : array_like of uint32, shape (n, 4)
    key : array_like of uint32, shape (2,) or (n, 2)

    Returns
    -------
    numpy.ndarray
        ``uint32`` of shape ``(n, 4)``.

    Examples
    --------
    >>> [hex(x) for x in philox4x32([[0, 0, 0, 0]], [0, 0])[0]]  # Random123's test vector
    ['0x6627e8d5', '0xe169c58d', '0xbc57ac4c', '0x9b00dbd8']
    """
    c = np.asarray(counters, dtype=np.uint32).reshape(-1, 4).astype(np.uint64)
    k = np.broadcast_to(np.asarray(key, dtype=np.uint32).reshape(-1, 2), (len(c), 2))
    k0, k1 = k[:, 0].astype(np.uint64), k[:, 1].astype(np.uint64)
    c0, c1, c2, c3 = c.T
    for r in range(10):
        if r:
            k0 = (k0 + _PHILOX_W0) & _LOW32
            k1 = (k1 + _PHILOX_W1) & _LOW32
        p0 = _PHILOX_M0 * c0
        p1 = _PHILOX_M1 * c2
        c0, c1, c2, c3 = (p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & _LOW32, \
            (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & _LOW32
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


def mc_key(entropy: int) -> tuple[int, int]:
    """The Philox key of a Monte Carlo run: two 32-bit words derived from the seed.

    Examples
    --------
    >>> mc_key(1) == mc_key(1), mc_key(1) == mc_key(2)
    (True, False)
    """
    words = np.random.SeedSequence(int(entropy)).generate_state(2, np.uint32)
    return int(words[0]), int(words[1])


def player_modes(cum_weights: Sequence[np.ndarray | None],
                 dealt: Sequence[bool] | None = None) -> np.ndarray:
    """Each player's draw mode (``MODE_*``), decided as the NumPy engine decides it.

    Examples
    --------
    >>> player_modes([None, np.array([1.0, 2.0]), np.array([0.5, 1.5]), np.ones(3)],
    ...              [False, False, False, True]).tolist()
    [0, 1, 2, 3]
    """
    n = len(cum_weights)
    dealt = [False] * n if dealt is None else list(dealt)
    modes = np.empty(n, dtype=np.uint8)
    for p, cw in enumerate(cum_weights):
        if dealt[p]:
            modes[p] = MODE_DEALT
        elif cw is None:
            modes[p] = MODE_FIXED
        elif np.allclose(np.diff(cw, prepend=0.0), cw[0], rtol=1e-12, atol=0):
            modes[p] = MODE_UNIFORM
        else:
            modes[p] = MODE_WEIGHTED
    return modes
