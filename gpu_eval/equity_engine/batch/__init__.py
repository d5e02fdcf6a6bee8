""":func:`gpu_eval.equity_batch`: many small spots at once, on the host or on the GPU."""
