"""Other tools' files: ragas and DeepEval datasets, OpenInference (Phoenix) spans, and how
a table is told to be one of them or one of ours.

Every format maps a file's rows onto records of our own shapes (a golden case, a trace
line, a grade), which our own readers then validate: nothing downstream knows where a
row came from, and a bad row gets the same error naming file, row and field. Our own
shapes are read a level up, beside the golden set and runs (``data/golden.py``,
``data/runs.py``, ``data/traces.py``, ``data/grades.py``,
``data/conversation_traces.py``); every container (JSON, JSONL, CSV, Parquet, an HF
``save_to_disk`` folder) is opened by ``data/containers.py``.

* ``ragas.py``, ``deepeval.py``, ``openinference.py``: other tools' formats;
* ``base.py``: what a format module declares (``FORMAT``); ``registry.py``: every format
  (ours included: ``data/grades.py`` declares one), in the order a table is tested
  against them;
* ``detect.py``: which format a table is in (``registry.FORMATS``, else ours), its name
  (``ragas-jsonl``...) and its rows as our records (a ragtriage file of another kind
  given where one was expected is named by ``data/sniff.py``);
* ``columns.py``: ``--columns query=question,expected=gold_ids`` for other column names;
* ``text.py``: ids from texts and query matching, the one normalisation they all use.
"""

from __future__ import annotations

__all__: list[str] = []
