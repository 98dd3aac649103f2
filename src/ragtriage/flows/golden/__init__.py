"""``ragtriage golden``: a golden set's life, one module per subcommand (:mod:`.split`,
:mod:`.check`, :mod:`.add`), each its config and ``run``."""

from __future__ import annotations

from ragtriage.flows.config import Setting

__all__ = ["GOLDEN"]

GOLDEN = Setting("Golden set file or directory.")
