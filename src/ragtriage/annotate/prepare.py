"""Preparing an ``annotate`` page: read the inputs, start or resume the session, return
the task the page works on (:func:`prepare_golden`, :func:`prepare_grades`); the command's
configs and ``run`` are in :mod:`ragtriage.flows.annotate`.

The answers graded are an audit's (``--audit``: those its judge scored, so that the
calibration corrects its rate) or a traces file's (``--answers``: any format
``audit --traces`` reads, with the question and the passages' texts in it), graded
before any audit; the rows are the same, naming the audit or the file they came from.

Resuming: the session beside the output (``<output>.session.json``) records what it was
made from (the files' sha256, the seed, the sample size). The same command resumes it.
A session is extended, its marks kept, when the input grew (more queries in the log, more
answers in the traces file, a newer audit) or ``--sample`` is larger: the items drawn
stay, and the rest of the sample is drawn, with the same seed, from what was not drawn
yet. Only a true conflict is refused, naming the input and the item that changed (a
sampled query whose text is not the same, an answer gone or rewritten, another
``--seed``, a smaller ``--sample``), rather than mixing two samples in one file.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from ragtriage.annotate import grades as grading
from ragtriage.annotate.golden import GoldenTask, render_golden
from ragtriage.annotate.pool import Corpus, run_lists
from ragtriage.annotate.queries import Query, Turn, fold, read_queries, read_turns, sample
from ragtriage.annotate.store import SessionStore
from ragtriage.atomic import file_sha256
from ragtriage.data.golden import load_chunks, load_golden
from ragtriage.data.models import DEFAULT_CONTEXT_K, Trace
from ragtriage.data.runs import load_run
from ragtriage.data.traces import TraceFile, chunk_texts, read_traces
from ragtriage.errors import InputError
from ragtriage.triage.conversations import ConversationsResult
from ragtriage.triage.models import AuditResult

__all__ = [
    "GoldenSettings",
    "GradesSettings",
    "Prepared",
    "ReadAudit",
    "prepare_golden",
    "prepare_grades",
]


class GoldenSettings(Protocol):
    """What :func:`prepare_golden` reads of ``annotate golden``'s config."""

    queries: Path
    corpus: Path
    out: Path
    run: Path | None
    sample: int
    seed: int
    graded: bool


class GradesSettings(Protocol):
    """What :func:`prepare_grades` reads of ``annotate grades``'s config."""

    audit: Path | None
    answers: Path | None
    golden: Path | None
    out: Path
    sample: int
    seed: int
    grader: str | None
    design: str
    show_judge: bool


# an audit's results.json read back: a conversations result, or else an audit
ReadAudit = Callable[[Path], AuditResult | ConversationsResult]


@dataclass
class Prepared:
    task: GoldenTask | grading.GradesTask
    notes: list[str]  # what the person should know (folded duplicates, resumed session)


def prepare_golden(config: GoldenSettings) -> Prepared:
    corpus = Corpus(load_chunks(config.corpus))
    store = SessionStore(config.out, render_golden)
    with _released_on_error(store):
        return _golden(config, corpus, store)


@contextmanager
def _released_on_error(store: SessionStore) -> Iterator[None]:
    """A session refused (a conflicting input) releases its lock at once: the caller may
    be a process that goes on (a test, a notebook), not only a command that exits."""
    try:
        yield
    except BaseException:
        store.close()
        raise


def _golden(config: GoldenSettings, corpus: Corpus, store: SessionStore) -> Prepared:
    origin = {
        "source": str(config.queries),
        "sha256": file_sha256(config.queries) if config.queries.is_file() else None,
    }
    wanted = {"queries": origin["sha256"], "seed": config.seed, "size": config.sample}
    notes: list[str] = [_swept(store)] if store.swept else []
    saved = _resumable(store, "golden")
    if saved is not None and saved.get("wanted") != wanted:
        if saved["options"].get("conversational"):
            raise InputError(
                "a conversation session is not extended (a grown log or another --sample "
                "or --seed): give another --out for a new sample",
                path=config.queries,
            )
        notes += _extend_golden(saved, config, origin, wanted)
    elif saved is None and (turns := read_turns(config.queries)) is not None:
        saved = _conversation_golden(turns, config, origin, wanted, len(corpus.ids))
        notes.append(
            f"{len(turns)} turns of {saved['queries']['distinct']} conversations read; "
            f"{len({q['conversation_id'] for q in saved['sample']})} conversations drawn "
            f"with seed {config.seed}, each labelled turn by turn with its history"
        )
    elif saved is None:
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


def _conversation_golden(
    turns: list[Turn], config: GoldenSettings, origin: dict, wanted: dict, chunks: int
) -> dict[str, Any]:
    """A session over whole conversations: ``--sample`` of them drawn (never a turn
    without the turns before it), each in turn order. Near-duplicate turns are not
    folded: "and the older one?" means something else in every conversation."""
    threads: dict[str, list[Turn]] = {}
    for turn in turns:
        threads.setdefault(turn.conversation_id, []).append(turn)
    drawn = sample(list(threads), config.sample, config.seed)
    return {
        "kind": "golden",
        "created_at": _now(),
        "wanted": wanted,
        "queries": {
            **origin,
            "read": len(turns),
            "exact": 0,
            "near": 0,
            "distinct": len(threads),
        },  # fmt: skip
        "corpus": {"source": str(config.corpus), "chunks": chunks},
        "run": {"source": str(config.run)} if config.run else None,
        "seed": config.seed,
        "sample": [
            {
                "id": t.id,
                "text": t.user,
                "conversation_id": t.conversation_id,
                "turn": t.turn,
                "answer": t.answer,
            }  # fmt: skip
            for conv in drawn
            for t in sorted(threads[conv], key=lambda t: t.turn)
        ],
        "options": {"graded": config.graded, "conversational": True},
    }


def prepare_grades(config: GradesSettings, read_audit: ReadAudit) -> Prepared:
    """``annotate grades``: ``read_audit`` reads ``--audit`` (a conversations result or
    an audit)."""
    if (config.audit is None) == (config.answers is None):
        raise InputError("give --audit FILE or --answers FILE (one of them)", field="--audit")
    if config.golden is not None and config.answers is None:
        raise InputError(
            "--golden goes with --answers (an audit names its golden set)", field="--golden"
        )
    if config.answers is not None:
        return _prepare_answers(config, config.answers)
    assert config.audit is not None
    store = SessionStore(config.out, grading.render_grades)
    with _released_on_error(store):
        return _grades(config, config.audit, store, read_audit)


def _grades(
    config: GradesSettings, audit: Path, store: SessionStore, read_audit: ReadAudit
) -> Prepared:
    digest = file_sha256(audit) if audit.is_file() else None
    wanted = {"audit": digest, "seed": config.seed, "size": config.sample}
    if config.design == "active":  # a different sample: never resumed as a uniform one
        wanted["design"] = "active"
    notes: list[str] = [_swept(store)] if store.swept else []
    saved = _resumable(store, "grades")
    if saved is not None and saved.get("wanted") != wanted:
        if "design" in wanted or "design" in saved.get("wanted", {}):
            raise InputError(
                "this session's sample was drawn by another design or size; an active "
                "sample is not extended (its probabilities would no longer hold): choose "
                "another output",
                field="--design",
            )
        notes += _extend_from_audit(saved, config, audit, digest, wanted, read_audit)
    elif saved is None:
        result = read_audit(audit)
        if isinstance(result, ConversationsResult):
            saved = _conversation_session(result, config, audit, digest, wanted, notes)
        else:
            saved = _audit_session(result, config, audit, digest, wanted, notes)
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


def _audit_session(
    result: AuditResult,
    config: GradesSettings,
    audit: Path,
    digest: str | None,
    wanted: dict[str, Any],
    notes: list[str],
) -> dict[str, Any]:
    """A new session over an audit: a sample of the answers its judge scored (uniform, or
    by the active design)."""
    population = grading.gradable(result)
    if not population:
        raise InputError(
            "the audit has no answer the judge scored: nothing to grade",
            path=audit,
            field="cases",
        )
    texts, changed, references = _context_texts(result, audit)
    notes += changed
    if config.design == "active":
        items = _active_items(result, population, texts, config, audit, references)
        notes.append(
            f"{len(items)} of the audit's {len(population)} scored answers drawn by the "
            f"active design (expected {min(config.sample, len(population))}) with seed "
            f"{config.seed}, the judge's most uncertain first"
        )
    else:
        items = [
            grading.make_item(c, texts, reference=references.get(c.case_id))
            for c in sample(population, config.sample, config.seed)
        ]
        notes.append(
            f"{len(items)} of the audit's {len(population)} scored answers drawn "
            f"with seed {config.seed}"
        )
    return {
        "kind": "grades",
        "created_at": _now(),
        "wanted": wanted,
        "audit": _audit_origin(result, audit, digest),
        "sample": {
            "seed": config.seed,
            "population": len(population),
            **({"design": "active"} if config.design == "active" else {}),
        },
        "items": [i.public() for i in items],
        "options": {},
    }


def _active_items(
    result, population, texts, config: GradesSettings, audit: Path, references: dict[str, str]
) -> list:
    """The active design (``calibration.active``) over the audit's scored answers: each
    drawn with a probability growing with the judge's uncertainty under the audit's own
    calibration record (inside its band: most; else by the margin from the rule's
    cut-off), a fifth of the budget spread uniformly; served most uncertain first."""
    import numpy as np

    from ragtriage.calibration.active import draw, inclusion_probabilities, uncertainty
    from ragtriage.calibration.band import margins
    from ragtriage.calibration.decision import result_features, rule_features
    from ragtriage.calibration.record import load_calibration

    source = result.calibration.source
    if not source or not Path(source).is_file():
        raise InputError(
            "the active design needs the calibration record the audit decided by (its rule "
            "and band say where the judge is unsure); this audit names none that exists "
            f"({source or 'uncalibrated'}): audit with --calibration, or use --design uniform",
            path=audit,
            field="calibration.source",
        )
    record = load_calibration(source)
    groups, distance, unsure = [], [], []
    for case in population:
        row = result_features(case.judge)
        table = {k: np.array([v]) for k, v in row.items()}
        table.update({f: np.array([np.nan]) for f in rule_features(record.rule) if f not in table})
        g, d = margins(record.rule, table)
        groups.append(g[0])
        distance.append(d[0])
        unsure.append(record.is_unsure(case.judge))
    weight = uncertainty(np.array(distance), np.array(unsure), np.array(groups, dtype=object))
    pi = inclusion_probabilities(weight, config.sample)
    drawn = np.flatnonzero(draw(pi, config.seed))
    order = drawn[np.argsort(-pi[drawn], kind="stable")]  # most uncertain first
    items = []
    for k in order:
        case = population[int(k)]
        item = grading.make_item(case, texts, reference=references.get(case.case_id))
        item.probability = round(float(pi[k]), 6)
        items.append(item)
    return items


def _prepare_answers(config: GradesSettings, path: Path) -> Prepared:
    """``--answers``: the answers of a traces file, graded before any audit (no judge's
    verdict to show: the page is blind anyway)."""
    if config.show_judge:
        raise InputError(
            "--show-judge needs --audit: a traces file has no verdict", field="--show-judge"
        )
    store = SessionStore(config.out, grading.render_grades)
    with _released_on_error(store):
        return _answers(config, path, store)


def _answers(config: GradesSettings, path: Path, store: SessionStore) -> Prepared:
    digest = file_sha256(path) if path.is_file() else None
    wanted = {"answers": digest, "seed": config.seed, "size": config.sample}
    notes: list[str] = [_swept(store)] if store.swept else []
    saved = _resumable(store, "grades")
    if saved is not None and saved.get("wanted") != wanted:
        notes += _extend_from_answers(saved, config, path, digest, wanted)
    elif saved is None:
        read, corpus, references = _read_answers(config, path)
        population, texts = _gradable_traces(read, path, corpus)
        left_out = len(read.traces) - len(population)
        if left_out:
            notes.append(
                f"{left_out} traces without an answer (or whose generation failed) left out"
            )
        items = [
            grading.answer_item(
                t.query_id,
                read.queries[t.query_id],
                list(t.context_ids),
                texts,
                t.answer,
                reference=references.get(t.query_id),
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
            "answers": _answers_origin(read, path, digest),
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


def _read_answers(
    config: GradesSettings, path: Path
) -> tuple[TraceFile, dict[str, str], dict[str, str]]:
    """The traces of ``--answers``, the corpus's texts by chunk id and the reference
    answers by trace: with ``--golden`` a trace's query comes from its golden case and a
    passage's text from the corpus, so the documented trace row (``query_id``,
    ``retrieved`` ids, ``context_ids``, ``answer``) can be graded as it stands; and its
    case's reference answer goes into the grade row when a golden chunk is in the
    trace's context (as the audit runs its answer check)."""
    golden = load_golden(config.golden) if config.golden is not None else None
    read = read_traces(path, DEFAULT_CONTEXT_K, golden)
    corpus = golden.corpus if golden is not None and golden.corpus else {}
    cases = {c.id: c for c in golden.cases} if golden is not None else {}
    references = {
        t.query_id: case.reference_answer
        for t in read.traces.values()
        if (case := cases.get(t.query_id)) is not None
        and case.reference_answer
        and set(case.expected()) & set(t.context_ids)
    }
    return read, {cid: chunk.text for cid, chunk in corpus.items() if chunk.text}, references


def _gradable_traces(
    read: TraceFile, path: Path, corpus: dict[str, str] | None = None
) -> tuple[list[Trace], dict[str, str]]:
    """The traces with an answer, and their passages' texts (the trace's own, else the
    corpus's); a trace whose question or passage text is known from neither is refused
    (the page would show a blank)."""
    population = [t for t in read.traces.values() if t.answer and not t.generation_error]
    if not population:
        raise InputError("no trace has an answer: nothing to grade", path=path, field="answer")
    texts = dict(corpus or {})
    texts |= {c.id: c.text for t in population for c in t.retrieved if c.text}
    for trace in population:
        missing = [cid for cid in trace.context_ids if cid not in texts]
        if missing:
            raise InputError(
                f"trace {trace.query_id}: no text for context chunk {missing[0]} (with "
                "--answers the passages' texts must be in the file, or in the corpus of "
                "--golden)",
                path=path,
                field="retrieved",
            )
        if not read.queries.get(trace.query_id):
            raise InputError(
                f"trace {trace.query_id}: no query text (with --answers the question must "
                "be in the file, or give --golden: the golden set whose case it answers)",
                path=path,
                field="query",
            )
    return population, texts


def _resumable(store: SessionStore, kind: str) -> dict[str, Any] | None:
    """The saved session of this kind; None when there is none (a fresh start)."""
    saved = store.load()
    if saved is None:
        if store.output.exists():
            raise InputError(
                "exists and was not written by this command (no session beside it); choose "
                "another output, or remove it",
                path=store.output,
            )
        return None
    if saved.get("kind") != kind or not isinstance(saved.get("wanted"), dict):
        raise InputError(
            f"the session beside this output is not an 'annotate {kind}' session; choose "
            "another output",
            path=store.path,
        )
    return saved


def _growable(saved: dict[str, Any], seed: int, size: int, drawn: int) -> None:
    """A session can take more items with the same seed and a sample at least as large;
    another seed or a smaller sample would be another sample (named, exit 2)."""
    before = saved["wanted"]
    if before.get("seed") != seed:
        raise InputError(
            f"the session was drawn with --seed {before.get('seed')}, not {seed}: give "
            f"--seed {before.get('seed')} to resume or extend it, or choose another output",
            field="--seed",
        )
    if size < drawn:
        raise InputError(
            f"the session already holds {drawn} items, more than --sample {size}: a sample "
            "can grow, not shrink (give at least that), or choose another output",
            field="--sample",
        )


def _kept(
    items: list[dict[str, Any]],
    now: dict[str, dict[str, Any]],
    keys: tuple[str, ...],
    path: Path,
    what: str,
) -> None:
    """Every item the session drew is in the input as it is now, unchanged; else the
    input, the item and the field that changed are named (a mark on it would be a mark
    on something else)."""
    for item in items:
        current = now.get(item["id"])
        if current is None:
            raise InputError(
                f"{what} {item['id']!r} of this session's sample is not in it any more: give "
                "the file the session was drawn from (it may grow), or choose another output",
                path=path,
            )
        for key in keys:
            if current[key] != item[key]:
                raise InputError(
                    f"{what} {item['id']!r} of this session's sample changed ({key} was "
                    f"{_short(item[key])}, is {_short(current[key])}): give the file the "
                    "session was drawn from (it may grow), or choose another output",
                    path=path,
                    line=current.get("line"),
                    field=key,
                )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _drawn(rest: list[Any], size: int, population: int, drawn: int, seed: int) -> list[Any]:
    """What is added to a sample of ``drawn``: uniformly from the ``rest`` (not drawn yet)
    up to ``size`` of the ``population`` (a uniform sample extended uniformly)."""
    return sample(rest, max(0, min(size, population) - drawn), seed)


def _extended(
    saved: dict[str, Any],
    wanted: dict[str, Any],
    before: int | None,
    population: int,
    drawn: int,
    added: int,
) -> list[str]:
    """Record the extension in the session; what the person should know about it. When
    the population itself grew, the first draw came from the earlier one only, so an
    earlier item had a better chance to be drawn than a new one: both chances are said
    (a grading sample then weighs the earlier answers more)."""
    saved["extended"] = [
        *saved.get("extended", []),
        {"at": _now(), "from": saved["wanted"], "population": population, "added": added},
    ]
    saved["wanted"] = wanted
    left = population - drawn
    done = len(saved.get("records", {}))
    notes = [
        f"extending the session of {saved.get('created_at')}: its {drawn} items and {done} "
        f"marks kept; {added} added, drawn with seed {wanted['seed']} from the {left} not "
        f"drawn yet (of {population})"
    ]
    if before and population > before and drawn < before:
        rest = added / left if left else 0.0
        earlier = drawn / before + (1 - drawn / before) * rest
        notes.append(
            f"warning: the input grew from {before} to {population} items since the last "
            f"draw: an earlier item had a {earlier:.0%} chance to be drawn, a new one "
            f"{rest:.0%} (a sample drawn afresh, with another output, gives every one "
            f"{(drawn + added) / population:.0%})"
        )
    return notes


def _extend_golden(
    saved: dict[str, Any], config: GoldenSettings, origin: dict[str, Any], wanted: dict
) -> list[str]:
    """More queries (a grown log, a larger --sample) for a golden-set session."""
    sampled = saved["sample"]
    _growable(saved, config.seed, config.sample, len(sampled))
    read = read_queries(config.queries)
    by_id: dict[str, Query] = {}
    for query in read:
        by_id.setdefault(query.id, query)
    now = {i: {"text": q.text, "line": q.line} for i, q in by_id.items()}
    _kept(sampled, now, ("text",), config.queries, "query")
    ids = {q["id"] for q in sampled}
    # the drawn queries first: a new query repeating one of them is folded, not drawn
    log = fold([by_id[q["id"]] for q in sampled] + [q for q in read if q.id not in ids])
    _unique_ids(log.queries, config.queries)
    rest = [q for q in log.queries if q.id not in ids]
    added = _drawn(rest, config.sample, len(log.queries), len(sampled), config.seed)
    before = saved["queries"].get("distinct")
    saved["sample"] = [*sampled, *({"id": q.id, "text": q.text} for q in added)]
    saved["queries"].update(
        {**origin, "read": log.read, "exact": log.exact, "near": log.near,
         "distinct": len(log.queries)}
    )  # fmt: skip
    return _extended(saved, wanted, before, len(log.queries), len(sampled), len(added))


def _extend_from_answers(
    saved: dict[str, Any], config: GradesSettings, path: Path, digest: str | None, wanted: dict
) -> list[str]:
    """More answers (a grown traces file, a larger --sample) for a grading session."""
    if "answers" not in saved:
        raise InputError(
            "the session grades an audit's answers (--audit), not a traces file's; give "
            "--audit, or choose another output",
            field="--answers",
        )
    items = saved["items"]
    _growable(saved, config.seed, config.sample, len(items))
    read, corpus, references = _read_answers(config, path)
    population, texts = _gradable_traces(read, path, corpus)

    def view(t: Any) -> tuple[str, dict[str, Any]]:
        question = read.queries[t.query_id]
        return t.query_id, {"question": question, "answer": t.answer,
                            "context_ids": list(t.context_ids)}  # fmt: skip

    def make(added: list[Any]) -> list[dict[str, Any]]:
        return [
            grading.answer_item(
                t.query_id,
                read.queries[t.query_id],
                list(t.context_ids),
                texts,
                t.answer,
                reference=references.get(t.query_id),
            ).public()
            for t in added
        ]

    origin = ("answers", _answers_origin(read, path, digest))
    return _grown(saved, config, wanted, path, "answer", population, view, make, origin)


def _extend_from_audit(
    saved: dict[str, Any],
    config: GradesSettings,
    path: Path,
    digest: str | None,
    wanted: dict,
    read_audit: ReadAudit,
) -> list[str]:
    """More answers (a newer audit of the same answers and others, a larger --sample)."""
    if "audit" not in saved:
        raise InputError(
            "the session grades a traces file's answers (--answers), not an audit's; give "
            "--answers, or choose another output",
            field="--audit",
        )
    items = saved["items"]
    _growable(saved, config.seed, config.sample, len(items))
    result = read_audit(path)
    if isinstance(result, ConversationsResult):
        raise InputError(
            "a grades session of a conversations result is not extended: choose another "
            "output (--out) for a new sample",
            path=path,
            field="--audit",
        )
    population = grading.gradable(result)

    def view(c: Any) -> tuple[str, dict[str, Any]]:
        return c.case_id, {"question": c.query, "answer": c.answer,
                           "context_ids": list(c.context_ids)}  # fmt: skip

    def make(added: list[Any]) -> list[dict[str, Any]]:
        texts, _, references = _context_texts(result, path) if added else ({}, [], {})
        return [
            grading.make_item(c, texts, reference=references.get(c.case_id)).public() for c in added
        ]

    origin = ("audit", _audit_origin(result, path, digest))
    return _grown(saved, config, wanted, path, "scored answer", population, view, make, origin)


def _grown(
    saved: dict[str, Any],
    config: GradesSettings,
    wanted: dict,
    path: Path,
    label: str,
    population: list[Any],
    view: Callable[[Any], tuple[str, dict[str, Any]]],
    make: Callable[[list[Any]], list[dict[str, Any]]],
    origin: tuple[str, dict[str, Any]],
) -> list[str]:
    """The session's items kept (each must still read as ``view`` shows it now) and more
    drawn from the rest of ``population``, made by ``make``; ``origin`` is the session's
    new source record."""
    items = saved["items"]
    _kept(items, dict(map(view, population)), ("question", "answer", "context_ids"), path, label)
    ids = {i["id"] for i in items}
    rest = [x for x in population if view(x)[0] not in ids]
    added = _drawn(rest, config.sample, len(population), len(items), config.seed)
    saved["items"] = [*items, *make(added)]
    saved[origin[0]] = origin[1]
    before = saved["sample"]["population"]
    saved["sample"]["population"] = len(population)
    return _extended(saved, wanted, before, len(population), len(items), len(added))


def _conversation_session(
    result: ConversationsResult,
    config: GradesSettings,
    path: Path,
    digest: str | None,
    wanted: dict[str, Any],
    notes: list[str],
) -> dict[str, Any]:
    """A new session over a ``ragtriage conversations`` result: a seeded sample of its
    scored turns, each shown with its admissible history (annotate/grades.turn_item)."""
    if config.design == "active":  # it served a page and recorded no probabilities
        raise InputError(
            "--design active draws an audit's answers with the probabilities its calibration "
            "gives; the turns of a conversations result are drawn uniformly: use "
            "--design uniform",
            path=path,
            field="--design",
        )
    population = grading.gradable_turns(result)
    if not population:
        raise InputError("the result has no turn the judge scored: nothing to grade",
                         path=path, field="turns")  # fmt: skip
    items = [grading.turn_item(t) for t in sample(population, config.sample, config.seed)]
    notes.append(f"{len(items)} of the conversations' {len(population)} scored turns drawn "
                 f"with seed {config.seed}, each with the history it may rest on")  # fmt: skip
    return {
        "kind": "grades",
        "created_at": _now(),
        "wanted": wanted,
        "audit": _audit_origin(result, path, digest),
        "sample": {"seed": config.seed, "population": len(population)},
        "items": [i.public() for i in items],
        "options": {},
    }


def _audit_origin(
    result: AuditResult | ConversationsResult, path: Path, digest: str | None
) -> dict[str, Any]:
    return {
        "id": f"{result.created_at} {digest[:12] if digest else ''}".strip(),
        "source": str(path),
        "sha256": digest,
        "judge": result.config.judge,
    }


def _answers_origin(read: TraceFile, path: Path, digest: str | None) -> dict[str, Any]:
    return {
        "id": f"{path.name} {digest[:12] if digest else ''}".strip(),
        "source": str(path),
        "sha256": digest,
        "format": read.format,
    }


def _swept(store: SessionStore) -> str:
    return f"{store.swept} temporary files a stopped server left beside the output removed"


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


def _context_texts(
    result: AuditResult, path: Path
) -> tuple[dict[str, str], list[str], dict[str, str]]:
    """Every chunk text the audit's judge saw: its trace file's, then its golden set's
    corpus (the audit records where both came from, not the texts); a note when the
    golden set changed since the audit; and the golden cases' reference answers by id
    (the grade rows carry them, so ``calibrate`` can run the answer check on them)."""
    golden = load_golden(result.golden.source)
    limit = result.config.limit
    audited = golden.model_copy(update={"cases": golden.cases[:limit]}) if limit else golden
    notes = []
    if result.golden.sha256 and audited.content_hash() != result.golden.sha256:
        notes.append(
            f"warning: the golden set {result.golden.source} changed since the "
            "audit; passages are read from it as it is now"
        )
    traces = {}
    source = result.traces.source
    if result.traces.sha256 and source and Path(source).is_file():
        k = result.config.context_k
        traces = read_traces(source, k, golden).traces
    texts = chunk_texts(golden, traces)
    for case in grading.gradable(result):
        missing = [cid for cid in case.context_ids if cid not in texts]
        if missing:
            raise InputError(
                f"case {case.case_id}: no text for context chunk {missing[0]} in the audit's "
                f"golden set or trace file ({result.golden.source})",
                path=path,
                field="cases",
            )
    references = {c.id: c.reference_answer for c in audited.cases if c.reference_answer}
    return texts, notes, references


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
