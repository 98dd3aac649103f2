"""Read what users already have: ragas and DeepEval datasets, OpenInference spans, Hugging
Face datasets, CSV and Parquet; and our own traces and human grades in any of those
containers.

Every format maps a file's rows onto records of our own shapes (a golden case, a trace
line, a grade), which the usual parsers then validate: nothing downstream knows where a
row came from, and a bad row gets the same error naming file, row and field.

* ``rows.py``: the container (Parquet, JSON/JSONL, CSV, an HF ``save_to_disk`` folder),
  recognised by its bytes; JSON and JSONL are read by ``data/readers.py``;
* ``columns.py``: ``--columns query=question,expected=gold_ids`` for other column names;
* ``base.py``: what a format module declares (``FORMAT``); ``registry.py``: every format,
  in the order a table is tested against them;
* ``detect.py``: which format a table is in (``registry.FORMATS``, else ours), its name
  (``ragas-jsonl``...) and its rows as our records;
* ``ragas.py``, ``deepeval.py``, ``openinference.py``: other tools' formats;
  ``traces.py``, ``grades.py``: our own trace and human-grade files;
* ``text.py``: ids from texts and query matching, the one normalisation they all use.
"""

from __future__ import annotations

__all__: list[str] = []
