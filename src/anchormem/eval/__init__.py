"""Evaluation harnesses: retrieval benchmarks that drive anchormem through its public API only
(:mod:`anchormem.eval.locomo`: LoCoMo evidence recall)."""
