"""``ragtriage annotate``: label a golden set, or grade answers, in a local page.

The answers graded are an audit's (``--audit``: those its judge scored, so that the
calibration corrects its rate) or a traces file's (``--answers``: any format
``audit --traces`` reads, with the question and the passages' texts in it), graded
before any audit; the rows are the same, naming the audit or the file they came from.

Two configs, one per page, and their ``prepare_*`` (read the inputs, start or resume the
session, return the task a page works on) and ``run`` (prepare, then serve until
interrupted). The machinery is in :mod:`ragtriage.annotate`.

Resuming: the session beside the output (``<output>.session.json``) records what it was
made from (the files' sha256, the seed, the sample size). The same command resumes it;
a command that would make another sample (other queries, audit, answers, seed or size) is
refused rather than mixing two samples in one file.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from ragtriage.annotate import grades as grading
from ragtriage.annotate.golden import GoldenTask, render_golden
from ragtriage.annotate.pool import Corpus, run_lists
from ragtriage.annotate.queries import fold, read_queries, sample
from ragtriage.annotate.serve import serve
from ragtriage.annotate.store import SessionStore
from ragtriage.atomic import file_sha256
from ragtriage.data.formats.traces import TraceFile, read_traces
from ragtriage.data.golden import load_chunks, load_golden
from ragtriage.data.models import DEFAULT_CONTEXT_K, Trace
from ragtriage.data.runs import load_run
from ragtriage.errors import InputError
from ragtriage.flows.config import MAX_SEED, Setting
from ragtriage.results.load import load_audit
from ragtriage.stats import DEFAULT_SEED
from ragtriage.system.run import chunk_texts

__all__ = [
    "GoldenConfig",
    "GradesConfig",
    "prepare_golden",
    "prepare_grades",
    "run",
]

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
    queries: Annotated[Path, Setting("Query log: text, CSV or JSONL, one a row.")]
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
    out: Annotated[Path, Setting("Grades JSONL to write.", names=("--out", "-o"))]
    sample: Annotated[int, Setting("Answers to draw.", min=1, max=MAX_SAMPLE)] = (
        DEFAULT_GRADES_SAMPLE
    )
    seed: Annotated[int, SEED] = DEFAULT_SEED
    grader: Annotated[str | None, Setting("Your name, in every row.")] = None
    # a review pass; grading is blind by default
    show_judge: Annotated[bool, Setting("Show the judge's verdict (review).")] = False
    host: Annotated[str, HOST] = "127.0.0.1"
    port: Annotated[int, PORT] = 0
    browser: Annotated[bool, BROWSER] = True


@dataclass
class Prepared:
    task: GoldenTask | grading.GradesTask
    notes: list[str]  # what the person should know (folded duplicates, resumed session)


def prepare_golden(config: GoldenConfig) -> Prepared:
    corpus = Corpus(load_chunks(config.corpus))
    store = SessionStore(config.out, render_golden)
    origin = {
        "source": str(config.queries),
        "sha256": file_sha256(config.queries) if config.queries.is_file() else None,
    }
    wanted = {"queries": origin["sha256"], "seed": config.seed, "size": config.sample}
    notes: list[str] = []
    saved = _resumable(store, "golden", wanted)
    if saved is None:
        log = fold(read_queries(config.queries))
        _unique_ids(log.queries, config.queries)
        drawn = sample(log.queries, config.sample, config.seed)
        notes.append(
            f"{log.read} queries read; {log.exact} exact and {log.near} near duplicates "
            f"folded; {len(drawn)} of {len(log.queries)} drawn with seed {config.seed}"
        )
        saved = {
            "kind": "golden",
            "created_at": _now(),
            "wanted": wanted,
            "queries": {
                **origin,
                "read": log.read,
                "exact": log.exact,
                "near": log.near,
                "distinct": len(log.queries),
            },
            "corpus": {"source": str(config.corpus), "chunks": len(corpus.ids)},
            "run": {"source": str(config.run)} if config.run else None,
            "seed": config.seed,
            "sample": [{"id": q.id, "text": q.text} for q in drawn],
            "options": {"graded": config.graded},
        }
    else:
        notes.append(_resumed(saved))
        saved["options"]["graded"] = config.graded or saved["options"].get("graded", False)
    store.start(saved)
    ids = {q["id"] for q in saved["sample"]}
    runs = run_lists(load_run(config.run), ids) if config.run else {}
    if config.run and not runs:
        notes.append(
            f"the run {config.run} answers none of the sampled query ids: "
            "its candidates are not pooled"
        )
    command = shlex.join(
        [
            "ragtriage",
            "golden",
            "check",
            "--golden",
            str(config.out),
            "--corpus",
            str(config.corpus),
        ]
    )
    return Prepared(GoldenTask(store, corpus, runs, command), notes)


def prepare_grades(config: GradesConfig) -> Prepared:
    if (config.audit is None) == (config.answers is None):
        raise InputError("give --audit FILE or --answers FILE (one of them)", field="--audit")
    if config.answers is not None:
        return _prepare_answers(config, config.answers)
    assert config.audit is not None
    store = SessionStore(config.out, grading.render_grades)
    digest = file_sha256(config.audit) if config.audit.is_file() else None
    wanted = {"audit": digest, "seed": config.seed, "size": config.sample}
    notes: list[str] = []
    saved = _resumable(store, "grades", wanted)
    if saved is None:
        result = load_audit(config.audit)
        population = grading.gradable(result)
        if not population:
            raise InputError(
                "the audit has no answer the judge scored: nothing to grade",
                path=config.audit,
                field="cases",
            )
        texts, changed = _context_texts(result, config.audit)
        notes += changed
        items = [
            grading.make_item(c, texts) for c in sample(population, config.sample, config.seed)
        ]
        notes.append(
            f"{len(items)} of the audit's {len(population)} scored answers drawn "
            f"with seed {config.seed}"
        )
        saved = {
            "kind": "grades",
            "created_at": _now(),
            "wanted": wanted,
            "audit": {
                "id": f"{result.created_at} {digest[:12] if digest else ''}".strip(),
                "source": str(config.audit),
                "sha256": digest,
                "judge": result.config.get("judge"),
            },
            "sample": {"seed": config.seed, "population": len(population)},
            "items": [i.public() for i in items],
            "options": {},
        }
    else:
        notes.append(_resumed(saved))
    saved["options"] = {"grader": config.grader, "show_judge": config.show_judge}
    store.start(saved)
    judge = saved["audit"].get("judge") or "embedded"
    command = shlex.join(
        [
            "ragtriage",
            "calibrate",
            str(config.out),
            "--judge",
            str(judge),
            "--out",
            "calibration",
        ]
    )
    return Prepared(grading.GradesTask(store, command), notes)


def _prepare_answers(config: GradesConfig, path: Path) -> Prepared:
    """``--answers``: the answers of a traces file, graded before any audit (no judge's
    verdict to show: the page is blind anyway)."""
    if config.show_judge:
        raise InputError(
            "--show-judge needs --audit: a traces file has no verdict", field="--show-judge"
        )
    store = SessionStore(config.out, grading.render_grades)
    digest = file_sha256(path) if path.is_file() else None
    wanted = {"answers": digest, "seed": config.seed, "size": config.sample}
    notes: list[str] = []
    saved = _resumable(store, "grades", wanted)
    if saved is None:
        read = read_traces(path, DEFAULT_CONTEXT_K)
        population, texts = _gradable_traces(read, path)
        left_out = len(read.traces) - len(population)
        if left_out:
            notes.append(
                f"{left_out} traces without an answer (or whose generation failed) left out"
            )
        items = [
            grading.answer_item(
                t.query_id, read.queries[t.query_id], list(t.context_ids), texts, t.answer
            )
            for t in sample(population, config.sample, config.seed)
        ]
        notes.append(
            f"{len(items)} of the file's {len(population)} answers drawn with seed {config.seed}"
        )
        saved = {
            "kind": "grades",
            "created_at": _now(),
            "wanted": wanted,
            "answers": {
                "id": f"{path.name} {digest[:12] if digest else ''}".strip(),
                "source": str(path),
                "sha256": digest,
                "format": read.format,
            },
            "sample": {"seed": config.seed, "population": len(population)},
            "items": [i.public() for i in items],
            "options": {},
        }
    else:
        notes.append(_resumed(saved))
    saved["options"] = {"grader": config.grader, "show_judge": False}
    store.start(saved)
    command = shlex.join(
        ["ragtriage", "calibrate", str(config.out), "--judge", "embedded", "--out", "calibration"]
    )
    return Prepared(grading.GradesTask(store, command), notes)


def _gradable_traces(read: TraceFile, path: Path) -> tuple[list[Trace], dict[str, str]]:
    """The traces with an answer, and their passages' texts; a trace whose question or
    passage text is not in the file is refused (the page would show a blank)."""
    population = [t for t in read.traces.values() if t.answer and not t.generation_error]
    if not population:
        raise InputError("no trace has an answer: nothing to grade", path=path, field="answer")
    texts = {c.id: c.text for t in population for c in t.retrieved if c.text}
    for trace in population:
        missing = [cid for cid in trace.context_ids if cid not in texts]
        if missing:
            raise InputError(
                f"trace {trace.query_id}: no text for context chunk {missing[0]} (with "
                "--answers the passages' texts must be in the file)",
                path=path,
                field="retrieved",
            )
        if not read.queries.get(trace.query_id):
            raise InputError(
                f"trace {trace.query_id}: no query text (with --answers the question must "
                "be in the file)",
                path=path,
                field="query",
            )
    return population, texts


def run(
    config: GoldenConfig | GradesConfig,
    announce: Callable[[str], None],
    note: Callable[[str], None],
) -> None:
    """Prepare the session and serve its page until interrupted."""
    prepared = (
        prepare_golden(config) if isinstance(config, GoldenConfig) else prepare_grades(config)
    )
    if config.host not in LOOPBACK:
        prepared.notes.append(
            f"warning: listening on {config.host}, not on this machine only: others can reach "
            "the page (the token still guards every request)"
        )
    for line in prepared.notes:
        note(line)
    try:
        serve(prepared.task, config.host, config.port, announce, config.browser)
    finally:
        prepared.task.store.close()


def _resumable(store: SessionStore, kind: str, wanted: dict[str, Any]) -> dict[str, Any] | None:
    """The saved session when it is this one; None when there is none (a fresh start)."""
    saved = store.load()
    if saved is None:
        if store.output.exists():
            raise InputError(
                "exists and was not written by this command (no session beside it); choose "
                "another output, or remove it",
                path=store.output,
            )
        return None
    if saved.get("kind") != kind or saved.get("wanted") != wanted:
        raise InputError(
            f"the session was started with other inputs ({saved.get('wanted')}); give the "
            "same files, --seed and --sample to resume, or choose another output",
            path=store.path,
        )
    return saved


def _resumed(saved: dict[str, Any]) -> str:
    done = len(saved.get("records", {}))
    return f"resuming the session of {saved.get('created_at')}: {done} items marked so far"


def _unique_ids(queries: list, path: Path) -> None:
    seen: dict[str, int] = {}
    for q in queries:
        if q.id in seen:
            raise InputError(
                f"duplicate query id {q.id!r} (first on line {seen[q.id]})",
                path=path,
                line=q.line,
                field="id",
            )
        seen[q.id] = q.line


def _context_texts(result: Any, path: Path) -> tuple[dict[str, str], list[str]]:
    """Every chunk text the audit's judge saw: its trace file's, then its golden set's
    corpus (the audit records where both came from, not the texts); and a note when the
    golden set changed since the audit."""
    golden = load_golden(result.golden["source"])
    limit = result.config.get("limit")
    audited = golden.model_copy(update={"cases": golden.cases[:limit]}) if limit else golden
    notes = []
    if result.golden.get("sha256") and audited.content_hash() != result.golden["sha256"]:
        notes.append(
            f"warning: the golden set {result.golden['source']} changed since the "
            "audit; passages are read from it as it is now"
        )
    traces = {}
    source = result.traces.get("source")
    if result.traces.get("sha256") and source and Path(source).is_file():
        k = int(result.config.get("context_k") or DEFAULT_CONTEXT_K)
        traces = read_traces(source, k, golden).traces
    texts = chunk_texts(golden, traces)
    for case in grading.gradable(result):
        missing = [cid for cid in case.context_ids if cid not in texts]
        if missing:
            raise InputError(
                f"case {case.case_id}: no text for context chunk {missing[0]} in the audit's "
                f"golden set or trace file ({result.golden['source']})",
                path=path,
                field="cases",
            )
    return texts, notes


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
