"""Results as data: reading them back, writing JSON, comparing two, gating one.

No output formatting lives here; everything a person reads is drawn by ``ragtriage.render``.
"""
