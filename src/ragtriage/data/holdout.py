"""The held-back slice of a golden set: kept out of sight until it is needed.

Tuning a retriever on the same queries that judge it is the classic way to fool oneself:
every look at a metric is a chance to overfit to it. Cases marked ``"split": "holdout"``
(by hand, or a seeded fraction chosen by ``ragtriage golden split``) are therefore left
out of normal runs entirely: no per-query row, slice, missed query or leak of theirs
reaches an output, only their count. ``--holdout`` evaluates that slice instead and
appends one line per reveal (UTC time, git commit, golden sha256, metric means) to
``holdout_reveals.jsonl`` beside the golden set, so a team can see how often it looked.
"""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import numpy as np
from rich.console import Console
from rich.text import Text

from ragtriage.data.golden import parse_case
from ragtriage.data.models import GoldenSet
from ragtriage.data.readers import iter_records, read_text
from ragtriage.data.tables import Qrels, Run
from ragtriage.errors import InputError
from ragtriage.report.files import write_atomic
from ragtriage.retrieval.report import RetrievalReport, SplitInfo

Split = Literal["dev", "holdout", "all"]
REVEAL_LOG = "holdout_reveals.jsonl"


def has_holdout(golden: GoldenSet) -> bool:
    return any(case.split == "holdout" for case in golden.cases)


def split_info(golden: GoldenSet, evaluated: Split) -> SplitInfo:
    n_holdout = sum(case.split == "holdout" for case in golden.cases)
    return SplitInfo(evaluated=evaluated, n_dev=len(golden.cases) - n_holdout, n_holdout=n_holdout)


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
    kept_run.sha256 = run.sha256  # the file's hash, taken while reading
    return kept_run


def golden_qrels(golden: GoldenSet) -> Qrels:
    return Qrels.from_pairs(
        (c.id for c in golden.cases),
        ((c.id, doc, grade) for c in golden.cases for doc, grade in c.relevance.items()),
        source=golden.source,
    )


def apply_split(
    golden: GoldenSet | None, qrels: Qrels, run: Run, split: Split | None
) -> tuple[GoldenSet | None, Qrels, Run, SplitInfo | None]:
    """Restrict golden set, qrels and run to one slice before anything is computed.

    ``split=None`` means ``dev`` when the set holds held-out cases, else everything
    (and no split section: a set without a holdout reports as it always did).
    """
    if golden is None or (split is None and not has_holdout(golden)):
        if split == "holdout":
            raise InputError("--holdout needs a golden set (not bare qrels)", field="split")
        return golden, qrels, run, None
    split = split or "dev"
    info = split_info(golden, split)
    if split == "all":
        return golden, qrels, run, info
    chosen = select_cases(golden, split)
    keep = {case.id for case in chosen.cases}
    return chosen, golden_qrels(chosen), filter_run(run, keep), info


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
        "means": {a.metric: a.mean if math.isfinite(a.mean) else None for a in report.aggregates},
    }
    write_atomic(log, previous + json.dumps(entry, sort_keys=True, allow_nan=False) + "\n")
    return sum(1 for line in previous.splitlines() if line.strip()) + 1


def evaluated_slice(golden: GoldenSet, holdout: bool) -> GoldenSet:
    """The cases a retriever needs to run on: held-out queries are not even retrieved."""
    if not has_holdout(golden) and not holdout:
        return golden
    return select_cases(golden, "holdout" if holdout else "dev")


def log_reveal(report: RetrievalReport, golden_source: str | Path) -> RetrievalReport:
    """Record a reveal of the held-out figures; the report says where and which one it was."""
    log = reveal_log_path(golden_source)
    count = record_reveal(report, log)
    info = report.split or SplitInfo(evaluated="holdout", n_dev=0, n_holdout=0)
    info = info.model_copy(update={"reveal_log": str(log), "reveals": count})
    return report.model_copy(update={"split": info})


def assign_holdout(
    golden: GoldenSet, fraction: float, seed: int
) -> dict[str, Literal["dev", "holdout"]]:
    """A seeded holdout of ``round(fraction * n)`` cases per stratum (answerable or not).

    Each case is ranked by sha256(seed:id), so the choice depends on nothing but the seed
    and the ids: rerunning it gives the same slice, on any machine.
    """
    if not 0.0 < fraction < 1.0:
        raise InputError(f"must be between 0 and 1, got {fraction}", field="fraction")
    out: dict[str, Literal["dev", "holdout"]] = {c.id: "dev" for c in golden.cases}
    for answerable in (True, False):
        ids = [c.id for c in golden.cases if c.answerable() == answerable]
        ranked = sorted(ids, key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest())
        for case_id in ranked[: round(fraction * len(ids))]:
            out[case_id] = "holdout"
    return out


def render_split(report: RetrievalReport, console: Console) -> None:
    """One line saying which slice this is, and how often the held-out one was looked at."""
    info = report.split
    if info is None or info.n_holdout == 0:
        return
    if info.evaluated == "holdout":
        text = f"HELD-OUT slice revealed: {info.n_holdout} cases (reveal #{info.reveals}"
        console.print(Text(text + f", logged in {info.reveal_log})", style="bold magenta"))
    else:
        console.print(
            Text(
                f"Slice: {info.evaluated} ({info.n_dev} cases); {info.n_holdout} held-out cases "
                "not shown (--holdout reveals them, and logs it)",
                style="dim",
            )
        )


def write_split(source: Path, assignment: dict[str, str], out: Path | None = None) -> Path:
    """Rewrite the golden file with each record's ``split`` set; every other field is kept
    as written. ``out``: a directory gets ``golden.jsonl`` plus a copy of the corpus."""
    records = []
    for line, record in iter_records(source):
        case = parse_case(record, source, line)
        records.append({**record, "split": assignment[case.id]})
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
