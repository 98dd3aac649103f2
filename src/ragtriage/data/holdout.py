"""The held-back slice of a golden set: kept out of sight until it is needed
(docs/golden-sets.md, "A held-back slice"; the reveal log: ``retrieval/split.py``).

Held-out cases are left out of normal runs entirely: no per-query row, slice, missed
query or leak of theirs reaches an output, only their count. This module is the golden
set's side: which cases are held out, the run and qrels restricted to a slice, a seeded
assignment written back to the golden file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ragtriage.atomic import write_atomic
from ragtriage.data.containers import iter_records, read_text
from ragtriage.data.formats.columns import Columns, parse_columns
from ragtriage.data.golden import parse_case
from ragtriage.data.models import GoldenSet
from ragtriage.data.tables import Qrels, Run
from ragtriage.errors import InputError

__all__ = [
    "Split",
    "assign_holdout",
    "evaluated_slice",
    "filter_run",
    "golden_qrels",
    "has_holdout",
    "held_back",
    "rewrite",
    "select_cases",
    "write_split",
]

Split = Literal["dev", "holdout", "all"]


def has_holdout(golden: GoldenSet) -> bool:
    return any(case.split == "holdout" for case in golden.cases)


def select_cases(golden: GoldenSet, split: Split) -> GoldenSet:
    """The golden set restricted to one slice (``all`` keeps every case)."""
    if split == "all":
        return golden
    cases = [case for case in golden.cases if case.split == split]
    if not cases:
        hint = " (mark cases 'split: holdout' or run 'ragtriage golden split')"
        raise InputError(
            f"the golden set has no {split!r} cases{hint if split == 'holdout' else ''}",
            path=golden.source or None,
            field="split",
        )
    return golden.model_copy(update={"cases": cases})


def filter_run(run: Run, keep: set[str]) -> Run:
    """The run's rows for the queries in ``keep``: held-out queries leave no trace, not even
    in the 'run queries not in the golden set' warning."""
    kept = np.fromiter((q in keep for q in run.query_ids), bool, len(run.query_ids))
    if kept.all():
        return run
    recode = np.cumsum(kept) - 1
    rows = kept[run.query] if len(run) else np.zeros(0, bool)
    kept_run = Run(
        run.query_ids[kept],
        query=recode[run.query[rows]],
        score=run.score[rows],
        source=run.source,
        words=run.words[rows],
    )
    kept_run.digest = run.digest  # the file's hash, taken while reading
    kept_run.order = run.order  # a trace's own rank order is still the one scored
    kept_run.scored = run.scored
    return kept_run


def golden_qrels(golden: GoldenSet) -> Qrels:
    return Qrels.from_pairs(
        (c.id for c in golden.cases),
        ((c.id, doc, grade) for c in golden.cases for doc, grade in c.relevance.items()),
        source=golden.source,
    )


def evaluated_slice(golden: GoldenSet, holdout: bool) -> GoldenSet:
    """The cases a retriever needs to run on: held-out queries are not even retrieved."""
    if not has_holdout(golden) and not holdout:
        return golden
    return select_cases(golden, "holdout" if holdout else "dev")


def assign_holdout(
    golden: GoldenSet, fraction: float, seed: int
) -> dict[str, Literal["dev", "holdout"]]:
    """A seeded holdout of ``round(fraction * n)`` cases per stratum (answerable or not).

    Each case is ranked by sha256(seed:id), so the choice depends on nothing but the seed
    and the ids: rerunning it gives the same slice, on any machine.
    """
    out: dict[str, Literal["dev", "holdout"]] = {c.id: "dev" for c in golden.cases}
    for answerable in (True, False):
        ids = [c.id for c in golden.cases if c.answerable() == answerable]
        out.update(dict.fromkeys(held_back(ids, fraction, seed), "holdout"))
    return out


def held_back(ids: list[str], fraction: float, seed: int) -> list[str]:
    """The ``round(fraction * n)`` of ``ids`` first by sha256(seed:id)."""
    if not 0.0 < fraction < 1.0:
        raise InputError(f"must be between 0 and 1, got {fraction}", field="fraction")
    ranked = sorted(ids, key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest())
    return ranked[: round(fraction * len(ids))]


def write_split(
    source: Path, assignment: Mapping[str, str], out: Path | None = None, columns: Columns = None
) -> Path:
    """Rewrite the golden file with each record's ``split`` set; every other field is kept
    as written (under its own name: ``columns`` only says how to read it). ``out``: a
    directory gets ``golden.jsonl`` plus a copy of the corpus."""
    mapping = parse_columns(columns)
    records = []
    for line, record in iter_records(source):
        case = parse_case(mapping.apply(record), source, line)
        records.append({**record, "split": assignment[case.id]})
    return rewrite(source, records, out)


def rewrite(source: Path, records: list[dict[str, Any]], out: Path | None) -> Path:
    """``records`` written as ``source`` is (a JSON list, or JSON Lines) to ``source``, to
    the file ``out``, or into the directory ``out`` with a copy of the corpus beside it."""
    target = source
    if out is not None and out.suffix:  # a file name
        target = out
    elif out is not None:  # a directory: the golden file and its corpus
        target = out / source.name
        if (source.parent / "corpus.jsonl").is_file():
            write_atomic(out / "corpus.jsonl", (source.parent / "corpus.jsonl").read_bytes())
    if read_text(source).lstrip().startswith("["):
        return write_atomic(target, json.dumps(records, indent=1, ensure_ascii=False) + "\n")
    return write_atomic(target, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
