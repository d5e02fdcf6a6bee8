"""Equity of the games without a shared board (stud, stud hi/lo, razz and the draw games): each
player's completions, the NumPy engine and the CUDA engine."""
