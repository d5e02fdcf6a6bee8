"""Solver-scale tables: hand isomorphism, every board's strengths, river strength, histograms."""
