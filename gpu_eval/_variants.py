"""Dispatch of ``gpu_eval.evaluate`` for game variants: short deck and wild cards.

Both run on the NumPy evaluator. Their device code (``kernels/variants.cu``) is compiled and
tested on the host, but not yet launched through CuPy, so ``backend="cuda"`` raises
``NotImplementedError`` and ``backend="auto"`` evaluates on NumPy (a CuPy input is copied to
the host and the result copied back, so CuPy in still gives CuPy out).
"""

from __future__ import annotations

from . import _backend

OMAHA_GAMES = ("omaha", "omaha5", "omaha6")
SHORTDECK_GAMES = ("shortdeck", "shortdeck-triton")


def evaluate(hands, *, game: str, backend: str, invalid: str, encoding: str, algorithm: str,
             wild):
    """``gpu_eval.evaluate`` for ``game`` in short deck / Omaha, or with ``wild`` set."""
    if game in OMAHA_GAMES:
        raise ValueError(f"game {game!r}: Omaha uses exactly two hole cards and three board "
                         f"cards, so evaluate() cannot tell them apart in one hand; call "
                         f"gpu_eval.evaluate_omaha(hole, board, game={game!r})")
    if wild is not None and game != "holdem":
        raise ValueError(f"wild cards are supported with game='holdem' only, not {game!r}")
    if game not in SHORTDECK_GAMES and game != "holdem":
        raise ValueError(f"game {game!r} is not supported by evaluate()")
    if algorithm != "bitmask":
        raise ValueError(f"algorithm={algorithm!r} is not available for "
                         f"{'wild cards' if wild is not None else game!r}; use 'bitmask'")
    where = _backend.resolve(backend, hands)
    if backend == "cuda":
        raise NotImplementedError(
            f"backend='cuda' for {'wild cards' if wild is not None else game!r}: the kernels "
            f"(kernels/variants.cu) are not wired to CuPy yet; use backend='numpy' or 'auto'")
    on_device = where == "cuda" and _backend.is_cupy_array(hands)
    if on_device:
        import cupy  # noqa: PLC0415

        hands = cupy.asnumpy(hands)
    if wild is not None:
        from .wild import evaluate_hands  # noqa: PLC0415
        out = evaluate_hands(hands, wild=wild, invalid=invalid, encoding=encoding)
    else:
        from .shortdeck import evaluate_hands  # noqa: PLC0415
        out = evaluate_hands(hands, game=game, invalid=invalid, encoding=encoding)
    if on_device:
        return cupy.asarray(out)
    return out
