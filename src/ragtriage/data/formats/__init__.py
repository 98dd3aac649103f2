"""Other tools' files (ragas, DeepEval, OpenInference spans, other evaluators' verdicts)
and how a table is told to be one of them or one of ours.

Every format (``base.py``; all listed in ``registry.py``) maps a file's rows onto records
of our own shapes, which our own readers then validate (``data/golden.py``,
``data/traces.py``...): nothing downstream knows where a row came from, and a bad row
gets the same error naming file, row and field. ``detect.py`` says which format a table
is in and gives its rows as our records; ``columns.py`` reads ``--columns``; ``text.py``
holds the one normalisation by which texts stand in for ids.
"""

from __future__ import annotations

__all__: list[str] = []
