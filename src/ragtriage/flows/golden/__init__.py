"""``ragtriage golden``: a golden set's life, one module per subcommand, each its config
and ``run``: :mod:`.split` (a seeded held-out slice), :mod:`.check` (ids gone from the
corpus, duplicates) and :mod:`.add` (growing the set from audited failures; planned in
:mod:`ragtriage.data.grow`)."""

from __future__ import annotations

from ragtriage.flows.config import Setting

__all__ = ["GOLDEN"]

GOLDEN = Setting("Golden set file or directory.")
