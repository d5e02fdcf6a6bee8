"""Launch sizes that fill the device in whole waves.

A wave is what the device runs at once: SMs x resident blocks per SM. A grid of equal-work
blocks that ends with a partial wave leaves SMs idle for the tail: 4.375 waves (the all-pairs
matrix on an H200 with 10 splits per tile) take as long as 5, a 12.5% loss.
"""

from __future__ import annotations

__all__ = ["wave_efficiency", "whole_wave_splits"]


def wave_efficiency(blocks: int, wave: int) -> float:
    """Share of the device's block slots a grid of ``blocks`` equal blocks keeps busy.

    Examples
    --------
    >>> wave_efficiency(2310, 528), wave_efficiency(3696, 528)
    (0.875, 1.0)
    """
    if blocks <= 0 or wave <= 0:
        return 0.0
    waves = -(-blocks // wave)
    return blocks / (waves * wave)


def whole_wave_splits(units: int, wave: int, min_splits: int, max_splits: int | None = None
                      ) -> int:
    """Splits per unit, at least ``min_splits``, so that ``units * splits`` blocks end as close
    to a whole number of waves as possible (at most twice ``min_splits``; the smallest count
    wins a tie: every split adds a little fixed work).

    Examples
    --------
    >>> whole_wave_splits(231, 528, 10)  # 1326 combos in 64 x 64 tiles, 132 SMs x 4 blocks
    16
    >>> whole_wave_splits(231, 528, 10, max_splits=12)  # 4.81 waves
    11
    >>> whole_wave_splits(1000, 100, 3)
    3
    """
    lo = max(1, int(min_splits))
    hi = 2 * lo if max_splits is None else max(lo, min(2 * lo, int(max_splits)))
    best, best_eff = lo, wave_efficiency(units * lo, wave)
    for s in range(lo + 1, hi + 1):
        eff = wave_efficiency(units * s, wave)
        if eff > best_eff + 1e-12:
            best, best_eff = s, eff
    return best
