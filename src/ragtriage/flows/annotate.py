"""``ragtriage annotate``: label a golden set, or grade answers, in a local page.

Two configs, one per page; :func:`prepare` (read the inputs, start or resume the session)
and :func:`run` (prepare, then serve until interrupted). The machinery is in
:mod:`ragtriage.annotate`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from ragtriage.annotate.prepare_golden import prepare_golden
from ragtriage.annotate.prepare_grades import prepare_grades
from ragtriage.annotate.serve import serve
from ragtriage.annotate.session import Prepared
from ragtriage.flows.config import MAX_SEED, Setting
from ragtriage.results.load import load_run
from ragtriage.stats import DEFAULT_SEED

__all__ = ["GoldenConfig", "GradesConfig", "Stopped", "prepare", "run"]

DEFAULT_SAMPLE = 200  # queries drawn when --sample is not given
DEFAULT_GRADES_SAMPLE = 50  # answers: each is read sentence by sentence
MAX_SAMPLE = 1_000_000
LOOPBACK = ("127.0.0.1", "localhost", "::1")


# the page's server, the same for both pages
HOST = Setting("Address to listen on (keep it local).")
PORT = Setting("Port (0: a free one).", min=0, max=65535)
BROWSER = Setting("Open the page in a browser.")
SEED = Setting("Seed of the sample (the same seed draws the same items).", min=0, max=MAX_SEED)


@dataclass
class GoldenConfig:
    queries: Annotated[
        Path,
        Setting("Query log: text, CSV or JSONL, one a row; or a conversation log (JSONL "
                "turns: conversation_id, turn, user, answer), labelled turn by turn."),
    ]  # fmt: skip
    corpus: Annotated[Path, Setting("corpus.jsonl of the chunks to label.")]
    out: Annotated[Path, Setting("Golden set JSONL to write.", names=("--out", "-o"))]
    run: Annotated[Path | None, Setting("Your system's run, pooled in.")] = None
    sample: Annotated[int, Setting("Queries to draw.", min=1, max=MAX_SAMPLE)] = DEFAULT_SAMPLE
    seed: Annotated[int, SEED] = DEFAULT_SEED
    graded: Annotated[bool, Setting("Grade chunks 0-3, not relevant/not.")] = False
    host: Annotated[str, HOST] = "127.0.0.1"
    port: Annotated[int, PORT] = 0
    browser: Annotated[bool, BROWSER] = True


@dataclass(kw_only=True)  # keywords only: the two sources, optional, come before --out
class GradesConfig:
    # one of the two: what an audit judged, or answers not judged yet
    audit: Annotated[Path | None, Setting("An audit's results.json (or give --answers).")] = None
    answers: Annotated[
        Path | None,
        Setting(
            "Grade before any audit: a traces file, in any format 'audit --traces' reads "
            "(query, retrieved passages with their texts, answer).",
        ),
    ] = None
    golden: Annotated[
        Path | None,
        Setting(
            "With --answers: the golden set the traces answer, for the queries (and the "
            "corpus's texts) of traces that name only a query_id, as the trace row does."
        ),
    ] = None
    out: Annotated[Path, Setting("Grades JSONL to write.", names=("--out", "-o"))]
    sample: Annotated[int, Setting("Answers to draw.", min=1, max=MAX_SAMPLE)] = (
        DEFAULT_GRADES_SAMPLE
    )
    seed: Annotated[int, SEED] = DEFAULT_SEED
    grader: Annotated[str | None, Setting("Your name, in every row.")] = None
    design: Annotated[
        str,
        Setting(
            "'uniform' (every scored answer equally likely) or 'active': each answer drawn "
            "with a probability that grows with the judge's uncertainty (its calibration's "
            "band and margin), a fifth of the budget uniform; the most uncertain are served "
            "first and every row records its probability, so calibrate weights them.",
            choices=("uniform", "active"),
        ),
    ] = "uniform"
    # a review pass; grading is blind by default
    show_judge: Annotated[bool, Setting("Show the judge's verdict (review).")] = False
    host: Annotated[str, HOST] = "127.0.0.1"
    port: Annotated[int, PORT] = 0
    browser: Annotated[bool, BROWSER] = True


def prepare(config: GoldenConfig | GradesConfig) -> Prepared:
    """The page's task: the session started or resumed, and what the person should know."""
    if isinstance(config, GoldenConfig):
        return prepare_golden(config)
    return prepare_grades(config, load_run)  # --audit: an audit or a conversations result


@dataclass(frozen=True)
class Stopped:
    """What a stopped server leaves: the marks on disk and where."""

    marks: int  # items with a saved mark
    written: int  # rows of the output (labelled cases, graded answers)
    output: Path
    session: Path


def run(
    config: GoldenConfig | GradesConfig,
    announce: Callable[[str], None],
    note: Callable[[str], None],
) -> Stopped:
    """Prepare the session and serve its page until stopped (Ctrl-C); what was saved."""
    prepared = prepare(config)
    if config.host not in LOOPBACK:
        prepared.notes.append(
            f"warning: listening on {config.host}, not on this machine only: others can reach "
            "the page (the token still guards every request)"
        )
    for line in prepared.notes:
        note(line)
    store = prepared.task.store
    try:
        serve(prepared.task, config.host, config.port, announce, config.browser)
    finally:
        store.close()
    records = store.records()
    written = store.output.read_text(encoding="utf-8").count("\n") if store.output.is_file() else 0
    marks = sum(1 for r in records.values() if _marked(r))
    return Stopped(marks, written, store.output, store.path)


def _marked(record: dict[str, Any]) -> bool:
    """A record that holds a mark (not only the time spent on its item)."""
    return any(v not in (None, "", [], {}, False) for k, v in record.items() if k != "seconds")
