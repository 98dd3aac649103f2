"""Faithfulness strategies: ``claims`` (one call per answer), ``sentences`` (small local
models, one probability per sentence), ``lexical`` (no model)."""
