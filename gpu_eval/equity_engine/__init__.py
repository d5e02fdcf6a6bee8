"""Equity: problem set-up, result types and the engines (NumPy board
enumeration and sampling, preflop rank classes)."""
