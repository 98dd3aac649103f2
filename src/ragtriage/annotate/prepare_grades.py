"""Preparing the grading page (``annotate grades``): read the inputs (an audit's scored
answers, ``--audit``, or a traces file's, ``--answers``), start or resume the session
(:class:`~ragtriage.annotate.session.GradesSession`), return the task the page works on;
the golden-set page's is :mod:`ragtriage.annotate.prepare_golden`, the command's configs
and ``run`` are in :mod:`ragtriage.flows.annotate`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from ragtriage.annotate import grades as grading
from ragtriage.annotate.queries import sample
from ragtriage.annotate.session import (
    Draw,
    GradesSession,
    Origin,
    Prepared,
    drawn,
    growable,
    kept,
    now,
    opened,
    released_on_error,
    resumed,
)
from ragtriage.annotate.store import SessionStore
from ragtriage.data.golden import load_golden
from ragtriage.data.models import DEFAULT_CONTEXT_K, Trace
from ragtriage.data.traces import TraceFile, chunk_texts, read_traces
from ragtriage.errors import InputError
from ragtriage.judge.outcomes import classify_answer
from ragtriage.results.run import AuditResult, ConversationsResult

__all__ = ["GradesSettings", "ReadAudit", "prepare_grades"]


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


def prepare_grades(config: GradesSettings, read_audit: ReadAudit) -> Prepared:
    """``annotate grades``: ``read_audit`` reads ``--audit`` (a conversations result or
    an audit)."""
    if (config.audit is None) == (config.answers is None):
        raise InputError("give --audit FILE or --answers FILE (one of them)", field="--audit")
    if config.golden is not None and config.answers is None:
        raise InputError(
            "--golden goes with --answers (an audit names its golden set)", field="--golden"
        )
    if config.answers is not None and config.show_judge:  # no judge's verdict to show
        raise InputError(
            "--show-judge needs --audit: a traces file has no verdict", field="--show-judge"
        )
    store = SessionStore(config.out, grading.render_grades)
    with released_on_error(store):
        if config.answers is not None:
            return _answers(config, config.answers, store)
        assert config.audit is not None
        return _grades(config, config.audit, store, read_audit)


def _grades(
    config: GradesSettings, audit: Path, store: SessionStore, read_audit: ReadAudit
) -> Prepared:
    digest, wanted, notes, session = opened(store, GradesSession, "audit", audit, config)
    if config.design == "active":  # a different sample: never resumed as a uniform one
        wanted["design"] = "active"
    if session is not None and session.wanted != wanted:
        if "design" in wanted or "design" in session.wanted:
            raise InputError(
                "this session's sample was drawn by another design or size; an active "
                "sample is not extended (its probabilities would no longer hold): choose "
                "another output",
                field="--design",
            )
        notes += _extend_from_audit(session, config, audit, digest, wanted, read_audit)
    elif session is None:
        result = read_audit(audit)
        if isinstance(result, ConversationsResult):
            session = _conversation_session(result, config, audit, digest, wanted, notes)
        else:
            session = _audit_session(result, config, audit, digest, wanted, notes)
    else:
        notes.append(resumed(session))
    judge = (session.audit.model_extra or {}).get("judge") if session.audit else None
    return _started(store, session, config, notes, str(judge or "embedded"))


def _started(
    store: SessionStore, session: GradesSession, config: GradesSettings, notes: list, judge: str
) -> Prepared:
    """The session saved with this run's options, and the task the page works on (its
    next step: ``calibrate`` these grades against ``judge``)."""
    session.options = {"grader": config.grader, "show_judge": config.show_judge}
    store.start(session.stored())
    command = ["ragtriage", "calibrate", str(config.out), "--judge", judge, "--out", "calibration"]
    return Prepared(grading.GradesTask(store, shlex.join(command)), notes)


def _new_session(
    config: GradesSettings, wanted: dict, population: int, items: list, **origin: Any
) -> GradesSession:
    """A fresh session of ``items`` drawn from ``population`` with ``--seed`` (``origin``:
    its ``audit`` or ``answers``, and an active ``design``)."""
    design = {"design": "active"} if origin.pop("active", False) else {}
    return GradesSession(
        kind="grades",
        created_at=now(),
        wanted=wanted,
        sample=Draw(seed=config.seed, population=population, **design),
        items=[i.public() for i in items],
        options={},
        **origin,
    )


def _audit_session(
    result: AuditResult,
    config: GradesSettings,
    audit: Path,
    digest: str | None,
    wanted: dict[str, Any],
    notes: list[str],
) -> GradesSession:
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
    origin, active = _audit_origin(result, audit, digest), config.design == "active"
    return _new_session(config, wanted, len(population), items, audit=origin, active=active)


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


def _answers(config: GradesSettings, path: Path, store: SessionStore) -> Prepared:
    """``--answers``: the answers of a traces file, graded before any audit (no judge's
    verdict to show: the page is blind anyway)."""
    digest, wanted, notes, session = opened(store, GradesSession, "answers", path, config)
    if session is not None and session.wanted != wanted:
        notes += _extend_from_answers(session, config, path, digest, wanted)
    elif session is None:
        read, corpus, references = _read_answers(config, path)
        population, texts = _gradable_traces(read, path, corpus)
        left_out = len(read.traces) - len(population)
        if left_out:
            notes.append(
                f"{left_out} traces without an answer to grade (none, a failed generation, "
                "an abstention or a refusal) left out"
            )
        items = [
            _answer_item(t, read, texts, references)
            for t in sample(population, config.sample, config.seed)
        ]
        notes.append(
            f"{len(items)} of the file's {len(population)} answers drawn with seed {config.seed}"
        )
        origin = _answers_origin(read, path, digest)
        session = _new_session(config, wanted, len(population), items, answers=origin)
    else:
        notes.append(resumed(session))
    return _started(store, session, config, notes, "embedded")


def _answer_item(
    trace: Trace, read: TraceFile, texts: dict[str, str], references: dict[str, str]
) -> grading.AnswerItem:
    return grading.answer_item(
        trace.query_id,
        read.queries[trace.query_id],
        list(trace.context_ids),
        texts,
        trace.answer,
        reference=references.get(trace.query_id),
    )


def _read_answers(
    config: GradesSettings, path: Path
) -> tuple[TraceFile, dict[str, str], dict[str, str]]:
    """The traces of ``--answers``, the corpus's texts by chunk id (with ``--golden`` the
    documented trace row, ids only, is graded as it stands) and the reference answers by
    trace, where a golden chunk is in its context (as the audit runs its answer check)."""
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


def _gradable_answer(trace: Trace) -> bool:
    """An answer that asserts something: an abstention or a refusal is no faithfulness
    question (the audit never judges one, and ``--audit`` never offers one)."""
    if not trace.answer or trace.generation_error:
        return False
    return classify_answer(trace.answer)[0] is None


def _gradable_traces(
    read: TraceFile, path: Path, corpus: dict[str, str] | None = None
) -> tuple[list[Trace], dict[str, str]]:
    """The traces with an answer, and their passages' texts (the trace's own, else the
    corpus's); a trace whose question or passage text is known from neither is refused
    (the page would show a blank)."""
    population = [t for t in read.traces.values() if _gradable_answer(t)]
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


def _extend_from_answers(
    session: GradesSession, config: GradesSettings, path: Path, digest: str | None, wanted: dict
) -> list[str]:
    """More answers (a grown traces file, a larger --sample) for a grading session."""
    _growable(session, config, "answers")
    read, corpus, references = _read_answers(config, path)
    population, texts = _gradable_traces(read, path, corpus)

    def view(t: Any) -> tuple[str, dict[str, Any]]:
        question = read.queries[t.query_id]
        return t.query_id, {"question": question, "answer": t.answer,
                            "context_ids": list(t.context_ids)}  # fmt: skip

    def make(added: list[Any]) -> list[dict[str, Any]]:
        return [_answer_item(t, read, texts, references).public() for t in added]

    origin = ("answers", _answers_origin(read, path, digest))
    return _grown(session, config, wanted, path, "answer", population, view, make, origin)


def _extend_from_audit(
    session: GradesSession,
    config: GradesSettings,
    path: Path,
    digest: str | None,
    wanted: dict,
    read_audit: ReadAudit,
) -> list[str]:
    """More answers (a newer audit of the same answers and others, a larger --sample)."""
    _growable(session, config, "audit")
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
    return _grown(session, config, wanted, path, "scored answer", population, view, make, origin)


_WHOSE = {"audit": "an audit's", "answers": "a traces file's"}


def _growable(session: GradesSession, config: GradesSettings, source: str) -> None:
    """The session drew from this kind of ``source`` (``audit`` or ``answers``), with
    this seed, and ``--sample`` did not shrink."""
    if getattr(session, source) is None:
        other = "answers" if source == "audit" else "audit"
        raise InputError(
            f"the session grades {_WHOSE[other]} answers (--{other}), not {_WHOSE[source]}; "
            f"give --{other}, or choose another output",
            field=f"--{source}",
        )
    growable(session, config.seed, config.sample, len(session.items))


def _grown(
    session: GradesSession,
    config: GradesSettings,
    wanted: dict,
    path: Path,
    label: str,
    population: list[Any],
    view: Callable[[Any], tuple[str, dict[str, Any]]],
    make: Callable[[list[Any]], list[dict[str, Any]]],
    origin: tuple[str, Origin],
) -> list[str]:
    """The session's items kept (each must still read as ``view`` shows it now) and more
    drawn from the rest of ``population``, made by ``make``; ``origin`` is the session's
    new source record."""
    items = session.items
    kept(items, dict(map(view, population)), ("question", "answer", "context_ids"), path, label)
    ids = {i["id"] for i in items}
    rest = [x for x in population if view(x)[0] not in ids]
    added = drawn(rest, config.sample, len(population), len(items), config.seed)
    session.items = [*items, *make(added)]
    setattr(session, origin[0], origin[1])
    before = session.sample.population
    session.sample = session.sample.model_copy(update={"population": len(population)})
    return session.extend(wanted, before, len(population), len(items), len(added))


def _conversation_session(
    result: ConversationsResult,
    config: GradesSettings,
    path: Path,
    digest: str | None,
    wanted: dict[str, Any],
    notes: list[str],
) -> GradesSession:
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
    origin = _audit_origin(result, path, digest)
    return _new_session(config, wanted, len(population), items, audit=origin)


def _audit_origin(
    result: AuditResult | ConversationsResult, path: Path, digest: str | None
) -> Origin:
    return _origin(result.created_at, path, digest, judge=result.config.judge)


def _answers_origin(read: TraceFile, path: Path, digest: str | None) -> Origin:
    return _origin(path.name, path, digest, format=read.format)


def _origin(name: str, path: Path, digest: str | None, **what: Any) -> Origin:
    """The file drawn from, named on the grade rows by ``name`` and its digest's start."""
    ident = f"{name} {digest[:12] if digest else ''}".strip()
    return Origin(id=ident, source=str(path), sha256=digest, **what)


def beside_audit(source: str, audit: Path) -> str:
    """A path the audit recorded, as given (relative to the folder the audit ran in): when
    it is not there from here, the same path from the audit file's folder or a folder
    above it (``results/results.json`` of an audit run in the repository names
    ``golden_sets/handbook``), so ``annotate grades --audit`` works from elsewhere."""
    given = Path(source)
    if given.is_absolute() or given.exists():
        return source
    for folder in [audit.parent, *audit.resolve().parent.parents]:
        if (folder / given).exists():
            return str(folder / given)
    return source


def _context_texts(
    result: AuditResult, path: Path
) -> tuple[dict[str, str], list[str], dict[str, str]]:
    """Every chunk text the audit's judge saw: its trace file's, then its golden set's
    corpus (the audit records where both came from, not the texts); a note when the
    golden set changed since the audit; and the golden cases' reference answers by id
    (the grade rows carry them, so ``calibrate`` can run the answer check on them)."""
    golden = load_golden(beside_audit(result.golden.source, path))
    limit = result.config.limit
    audited = golden.model_copy(update={"cases": golden.cases[:limit]}) if limit else golden
    notes = []
    if result.golden.sha256 and audited.content_hash() != result.golden.sha256:
        notes.append(
            f"warning: the golden set {result.golden.source} changed since the "
            "audit; passages are read from it as it is now"
        )
    traces = {}
    source = beside_audit(result.traces.source, path) if result.traces.sha256 else None
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
