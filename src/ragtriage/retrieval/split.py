"""Scoring one slice of a golden set, and the log of every look at the held-out one.

``select_split`` restricts golden set and qrels, ``filter_run`` each run, before anything
is computed (the slices: ``data/holdout.py``). Scoring has no side effects:
:func:`log_reveal` is the one writer of ``holdout_reveals.jsonl`` beside the golden set,
called once per command by ``ragtriage retrieval --holdout`` (however many ``--repeat``
draws) and by the audit, so a team can see how often it looked.
"""

from __future__ import annotations

import json
import math
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from ragtriage.atomic import write_atomic
from ragtriage.data.containers import split_lines
from ragtriage.data.holdout import Split, golden_qrels, has_holdout, select_cases
from ragtriage.data.models import GoldenSet
from ragtriage.data.tables import Qrels
from ragtriage.errors import InputError
from ragtriage.retrieval.models import RetrievalReport, SplitInfo

__all__ = [
    "REVEAL_LOG",
    "git_commit",
    "log_reveal",
    "record_reveal",
    "reveal_log_path",
    "select_split",
    "split_info",
]

REVEAL_LOG = "holdout_reveals.jsonl"


def split_info(golden: GoldenSet, evaluated: Split) -> SplitInfo:
    n_holdout = sum(case.split == "holdout" for case in golden.cases)
    return SplitInfo(evaluated=evaluated, n_dev=len(golden.cases) - n_holdout, n_holdout=n_holdout)


def select_split(
    golden: GoldenSet | None, qrels: Qrels, split: Split | None
) -> tuple[GoldenSet | None, Qrels, set[str] | None, SplitInfo | None]:
    """Golden set and qrels restricted to one slice, the query ids a run keeps (``None``:
    all) and the split section. ``split=None`` means ``dev`` when the set holds held-out
    cases, else everything (and no split section: a set without a holdout reports as it
    always did)."""
    if golden is None or (split is None and not has_holdout(golden)):
        if split == "holdout":
            raise InputError("--holdout needs a golden set (not bare qrels)", field="split")
        return golden, qrels, None, None
    split = split or "dev"
    info = split_info(golden, split)
    if split == "all":
        return golden, qrels, None, info
    chosen = select_cases(golden, split)
    keep = {case.id for case in chosen.cases}
    return chosen, golden_qrels(chosen), keep, info


def reveal_log_path(golden_source: str | Path) -> Path:
    """``<golden dir>/holdout_reveals.jsonl``, or beside a golden file."""
    path = Path(golden_source)
    return (path if path.is_dir() else path.parent) / REVEAL_LOG


def git_commit(cwd: Path | None = None) -> str | None:
    """HEAD of the repository the command runs in, if any (read-only)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def record_reveal(report: RetrievalReport, log: Path, now: datetime | None = None) -> int:
    """Append this reveal to ``log``; return how many reveals the log now holds."""
    previous = log.read_text(encoding="utf-8") if log.is_file() else ""
    if previous and not previous.endswith("\n"):
        previous += "\n"
    entry = {
        "time": (now or datetime.now(UTC)).isoformat(timespec="seconds"),
        "commit": git_commit(),
        "golden": str(report.golden.get("source", "")),
        "golden_sha256": report.golden.get("sha256"),
        "corpus_sha256": report.golden.get("corpus_sha256"),
        "n_holdout": report.split.n_holdout if report.split else None,
        # NaN (a slice with no answerable case) is not JSON: recorded as null
        "means": {a.metric: _finite(a.mean) for a in report.aggregates},
    }
    write_atomic(log, previous + json.dumps(entry, sort_keys=True, allow_nan=False) + "\n")
    return sum(1 for line in split_lines(previous) if line.strip()) + 1


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def log_reveal(report: RetrievalReport, golden_source: str | Path) -> RetrievalReport:
    """Record a reveal of the held-out figures (see the module for who calls it); the
    report says where and which one it was."""
    log = reveal_log_path(golden_source)
    count = record_reveal(report, log)
    info = report.split or SplitInfo(evaluated="holdout", n_dev=0, n_holdout=0)
    info = info.model_copy(update={"reveal_log": str(log), "reveals": count})
    return report.model_copy(update={"split": info})
