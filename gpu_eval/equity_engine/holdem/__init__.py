"""Hold'em equity: the NumPy engine and its shortcuts, the CUDA engine, the shipped preflop table."""
