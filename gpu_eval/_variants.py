"""Dispatch of ``gpu_eval.evaluate`` for game variants: short deck and wild cards.

NumPy runs ``gpu_eval.shortdeck`` / ``gpu_eval.wild``; CUDA (``backend="cuda"``, or ``"auto"``
with a CuPy input or a usable device) runs the kernels of ``kernels/variants.cu`` through
``gpu_eval._cuda_variants``, with the same validation, errors and results.
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
    if _backend.resolve(backend, hands) == "cuda":
        from . import _cuda_variants  # noqa: PLC0415 -- imports CuPy
        return _cuda_variants.evaluate(hands, game=game, invalid=invalid, encoding=encoding,
                                       wild=wild)
    if wild is not None:
        from .wild import evaluate_hands  # noqa: PLC0415
        return evaluate_hands(hands, wild=wild, invalid=invalid, encoding=encoding)
    from .shortdeck import evaluate_hands  # noqa: PLC0415
    return evaluate_hands(hands, game=game, invalid=invalid, encoding=encoding)
