"""The games: the registry (one record per game) and each variant's rules
and evaluator (short deck, Omaha, wild cards)."""
