"""Read what users already have: ragas datasets, OpenInference spans, CSV and Parquet.

Every adapter maps a foreign file onto records of our own shapes (a golden case, a trace
line), which the usual parsers then validate: nothing downstream knows where a row came
from, and a bad row gets the same error naming file, row and field.

* ``rows.py``: the container (JSON, JSONL, CSV, Parquet), recognised by content;
* ``columns.py``: ``--columns query=question,expected=gold_ids`` for other column names;
* ``detect.py``: which shape a table has (ours, ragas, OpenInference) and its name;
* ``ragas.py``, ``openinference.py``: the adapters; ``text.py``: ids from texts and
  query matching, the one normalisation both use.
"""

from __future__ import annotations

__all__: list[str] = []
