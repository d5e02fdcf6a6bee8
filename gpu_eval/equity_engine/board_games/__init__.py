"""Equity of the other shared-board games: Omaha 4/5/6 (high and hi/lo), short deck and
Courchevel; the NumPy engine and the CUDA engine."""
