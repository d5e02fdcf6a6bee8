"""The NumPy shortcuts of the hold'em equity engine: known hands after the flop, two ranges on
the turn or river, preflop boards by rank class, and the flush-free rank work they share."""
