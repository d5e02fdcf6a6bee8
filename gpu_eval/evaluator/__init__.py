"""Hand evaluation: input coercion and row errors, lookup tables, the bitmask,
perfect-hash and state-machine evaluators, and the public ``evaluate``."""
