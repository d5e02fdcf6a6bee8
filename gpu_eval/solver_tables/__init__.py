"""Solver-scale tables: the hand-isomorphism indexer and the tables built on it (issue 21)."""
