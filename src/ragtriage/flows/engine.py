"""The one run engine of ``ragtriage audit`` and ``ragtriage conversations``.

The steps of a run are docs/architecture.md's "Data flow" (file mismatches checked
before stage 1). Each command reads its own
inputs (:class:`Loaded`) and judges in its own *order* (an audit all at once, a
conversation turn by turn with history); everything between reading and the command's own
rows (an audit's clusters, a conversation's roll-up) is here, once.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel

from ragtriage.calibration.fit_check import misfit
from ragtriage.calibration.record import CalibrationRecord
from ragtriage.data.containers import Given
from ragtriage.data.formats.columns import ColumnMap
from ragtriage.data.models import DEFAULT_CONTEXT_K, GoldenSet
from ragtriage.data.traces import chunk_texts, run_from_traces
from ragtriage.errors import InputError
from ragtriage.flows.config import (
    API_BASE,
    CACHE,
    CONCURRENCY,
    JSON_MODE,
    JUDGE,
    METRICS,
    THREADS,
    TIMEOUT,
    K,
    Setting,
    paths_from_text,
)
from ragtriage.judge.api import JudgeRun, ajudge
from ragtriage.judge.judge import Judge, JudgeOptions
from ragtriage.judge.samples import FAITHFUL, UNFAITHFUL
from ragtriage.judge.spec import EMBEDDED, JudgeSpec
from ragtriage.judge.types import ContextChunk, JudgeFingerprint, JudgeItem, JudgeResult, Outcome
from ragtriage.llm.base import ChatModel
from ragtriage.llm.cache import ResponseCache, default_cache_path
from ragtriage.llm.local import LocalModel, require_llama
from ragtriage.notices import Notice, Severity, as_notice, notice
from ragtriage.results.run import GoldenSource, TraceSource
from ragtriage.retrieval.evaluate import DEFAULT_KS, DEFAULT_METRICS, evaluate_retrieval
from ragtriage.retrieval.metrics import Measure, expand
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.retrieval.sections import versions
from ragtriage.retrieval.split import log_reveal
from ragtriage.triage import cases as case_rows
from ragtriage.triage import mismatch
from ragtriage.triage.calibrated import (
    CalibrationRecords,
    Decider,
    decided_by_grades,
    say_graded,
)
from ragtriage.triage.models import CaseResult, Escalation, GenerationSummary, Label, Trace

__all__ = [
    "Judged",
    "Judges",
    "Judging",
    "Loaded",
    "Order",
    "Ran",
    "RunConfig",
    "Tick",
    "Writer",
    "build_judge",
    "header",
    "judge_label",
    "model_free",
    "ordered_as",
    "plan_judges",
    "public",
    "run_command",
    "run_engine",
    "sample_vote",
    "slice_name",
]

R = TypeVar("R")
# writes a run's files into a folder from its result and the calibration record it was
# decided by (an audit's plots: ``render.writer.write_audit``); returns them by name
Writer = Callable[[R, CalibrationRecord | None, Path], dict[str, Path]]
# labels that are no decision on an answer: an escalation leaving a case so decided nothing
UNDECIDED = (Label.UNSURE, Label.UNSCORED, Label.UNSTABLE)
# the per-item callback is called with no argument (generation) or the judge's result
Tick = Callable[[str, int], Callable[..., None]]
# an --escalate-to judge: its spec, the judge built once, the decider of its record
Cascade = list[tuple[JudgeSpec, Judge, Decider]]
# case -> the result that decides it in the first judge's place, its decider, the judge's
# name (a grade of the calibration, an --escalate-to judge): ``triage.cases.Judgments``
Escalated = dict[str, tuple[JudgeResult, Decider, str]]


@dataclass(kw_only=True)
class RunConfig:
    """The settings audits and conversations share, declared once; each command's config
    declares ``golden``, ``traces``, ``context_k`` and ``holdout`` again with its own help
    (typed here for the engine), its fields in the order it records (:func:`ordered_as`)."""

    golden: Path | Given
    traces: Path | Given | None  # no default here: a conversation's traces are required
    # a judge spec (see judge.spec), as text or parsed, or a model
    judge: Annotated[str | JudgeSpec | ChatModel | None, JUDGE] = EMBEDDED
    calibration: Annotated[Path | None, Setting("Calibration record JSON.")] = None
    context_k: int = DEFAULT_CONTEXT_K
    metrics: Annotated[list[str], METRICS] = field(default_factory=lambda: list(DEFAULT_METRICS))
    k: Annotated[list[int], K] = field(default_factory=lambda: list(DEFAULT_KS))
    concurrency: Annotated[int, CONCURRENCY] = 8
    cache: Annotated[Path | None, CACHE] = None
    threads: Annotated[int | None, THREADS] = None
    api_base: Annotated[str | None, API_BASE] = None  # for a litellm judge
    json_mode: Annotated[str | None, JSON_MODE] = None
    timeout: Annotated[float | None, TIMEOUT] = None
    holdout: bool = False
    on_mismatch: Annotated[  # see triage/mismatch.py: a meaningless result fails the gate
        str,
        Setting(
            "File mismatches: 'fail' (list them; the gate fails when one makes the result "
            "meaningless), 'warn' (list them and go on) or 'error' (exit 2 on any).",
            choices=mismatch.POLICIES,
        ),
    ] = "fail"

    # --metrics over --k, parsed once here (a bad name is refused before any case is run)
    measures: list[Measure] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        paths_from_text(self)  # cache="x.sqlite" from Python
        self.measures = expand(list(self.metrics), list(self.k))


C = TypeVar("C", bound=type[RunConfig])


def ordered_as(settings: type[BaseModel]) -> Callable[[C], C]:
    """A config's fields, :class:`RunConfig`'s and its own, in the order of the settings it
    records (``results/run.py``): results.json's and the command line's order."""

    def order(config: C) -> C:
        rank = {name: n for n, name in enumerate(settings.model_fields)}
        found = config.__dataclass_fields__  # type: ignore[attr-defined]
        config.__dataclass_fields__ = dict(  # type: ignore[attr-defined]
            sorted(found.items(), key=lambda item: rank.get(item[0], len(rank)))
        )
        return config

    return order


@dataclass
class Loaded:
    """A run's inputs, read: ``scored`` is the set stage 1 scores against and whose hash
    the header records (an audit's whole set, both slices; a conversation's flattened
    turns), ``golden`` the evaluated slice, ``read`` every trace read of the slice (what
    matched nothing shows; the other slice's set aside), ``traces`` those of its cases,
    with where each came from and what was noticed or assumed reading them."""

    scored: GoldenSet
    golden: GoldenSet
    read: dict[str, Trace]
    golden_source: GoldenSource
    trace_source: TraceSource
    notices: list[Notice] = field(default_factory=list)
    assumptions: dict[str, str] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)  # reading (running the system)
    traces: dict[str, Trace] = field(init=False)

    def __post_init__(self) -> None:
        known = {c.id for c in self.golden.cases}
        self.traces = {q: t for q, t in self.read.items() if q in known}


@dataclass(frozen=True)
class Judges:
    """The run's judges, built once and refused before anything runs (:func:`plan_judges`);
    ``planned``: the model-free rule that decides when the judge runs without its model."""

    judge: Judge
    planned: Decider | None
    records: CalibrationRecords
    shared_model: ChatModel | None = None
    cascade: Cascade = field(default_factory=list)
    vote: Callable[[JudgeResult], str] | None = None
    notices: list[Notice] = field(default_factory=list)


@dataclass
class Judging:
    """What a judging order is given: every judgeable answer (golden order) and what the
    judges and the rows need."""

    loaded: Loaded
    items: list[JudgeItem]
    judges: Judges
    calibration: Path | None
    store: ResponseCache
    concurrency: int
    texts: dict[str, str]
    unjudged: dict[str, str]
    retrieval: RetrievalReport

    @property
    def judge(self) -> Judge:
        return self.judges.judge

    def decider(self, fingerprint: JudgeFingerprint) -> Decider:
        """The decider of the judge's calibration (the planned one when there is one)."""
        planned, records = self.judges.planned, self.judges.records
        return planned or records.decider(self.calibration, fingerprint)


@dataclass
class Judged:
    """Stage 2's outcome; the run's usage and cache are over every call, the reference
    check's (``reference``, claims judges) too."""

    run: JudgeRun
    results: dict[str, JudgeResult]
    decider: Decider
    reference: dict[str, JudgeResult] = field(default_factory=dict)


# the order answers are judged in: all at once (an audit), turn by turn (a conversation)
Order = Callable[[Judging], Awaitable[Judged]]


@dataclass
class Ran:
    """What the engine found, for the command to add its own rows to."""

    loaded: Loaded
    retrieval: RetrievalReport
    texts: dict[str, str]
    judged: Judged
    rows: list[CaseResult]
    generation: GenerationSummary
    escalations: list[Escalation]
    mismatches: dict[str, list[str]]
    meaningless: dict[str, str]
    notices: list[Notice]
    timings: dict[str, float]


async def run_engine(
    config: RunConfig,
    judges: Judges,
    load: Loaded | Callable[[ResponseCache], Awaitable[Loaded]],
    order: Order,
) -> Ran:
    """The response store open while the inputs are read (``load``: read already, or read
    with the store, through which an audit's system generates) and judged: :func:`_run`."""
    store = ResponseCache(config.cache or default_cache_path())
    try:
        loaded = load if isinstance(load, Loaded) else await load(store)
        return await _run(config, loaded, judges, store, order)
    finally:
        store.close()


async def _run(
    config: RunConfig, loaded: Loaded, judges: Judges, store: ResponseCache, order: Order
) -> Ran:
    """Mismatches, stage 1, stage 2 in ``order``, decisions and the cascade, rows."""
    texts = chunk_texts(loaded.golden, loaded.traces)
    found = mismatch.find(loaded.golden, loaded.read, texts)
    # the trace file a mismatch error names (empty for a run of the system)
    source = loaded.trace_source.source if loaded.trace_source.sha256 else ""
    notices = loaded.notices + mismatch.apply(found, config.on_mismatch, source)
    started = time.perf_counter()
    retrieval = stage1(config, loaded)
    timings = loaded.timings | {"retrieval_s": time.perf_counter() - started}
    unjudged = unjudgeable_cases(loaded, texts)
    started = time.perf_counter()
    given = Judging(
        loaded=loaded,
        items=judge_items(loaded, texts, unjudged),
        judges=judges,
        calibration=config.calibration,
        store=store,
        concurrency=config.concurrency,
        texts=texts,
        unjudged=unjudged,
        retrieval=retrieval,
    )
    judged = await order(given)
    timings["judge_s"] = time.perf_counter() - started
    # an answer a person graded in the calibration is decided by the grade
    escalated = decided_by_grades(judged.decider, loaded.traces, judged.results)
    rows = _rows(given, judged, escalated)
    # the first judge's figures and fit, before the cascade decides its unsure answers
    generation = case_rows.generation_summary(rows, list(judged.results.values()), judged.decider)
    shape_misfit(judged.decider, rows, texts)
    rows, escalations = await escalate(given, judged, rows, escalated)
    notices += band_notice(rows, judged.decider, escalated)
    say_graded(rows)
    if escalated:  # the outcomes of the results that decided the cases, not the first's
        first = list(judged.results.values())
        final = [escalated.get(r.item_id, (r,))[0] for r in first]
        generation = case_rows.generation_summary(rows, final, judged.decider, rated=first)
    return Ran(
        loaded=loaded,
        retrieval=retrieval,
        texts=texts,
        judged=judged,
        rows=rows,
        generation=generation,
        escalations=escalations,
        mismatches={k: v for k, v in found.items() if v},
        meaningless=mismatch.meaningless(found, loaded.golden, loaded.read)
        | mismatch.nothing_retrieved(loaded.golden, loaded.read),
        notices=notices + [as_notice(w, "retrieval") for w in retrieval.warnings],
        timings=timings,
    )


def stage1(config: RunConfig, loaded: Loaded) -> RetrievalReport:
    """trec_eval's figures on the slice's retrieved lists (a held-out slice's reveal
    logged against the path the run was given)."""
    retrieval = evaluate_retrieval(
        loaded.scored,
        run_from_traces(loaded.traces, loaded.golden),
        config.measures,
        k=config.k,
        miss_k=config.context_k,
        split="holdout" if config.holdout else None,
    )
    if not config.holdout:
        return retrieval
    if isinstance(config.golden, Given):  # the reveal log lives beside the golden file
        raise InputError(
            "a held-out slice needs the golden set as a file, not rows", field="--holdout"
        )
    return log_reveal(retrieval, config.golden)


def unjudgeable_cases(loaded: Loaded, texts: dict[str, str]) -> dict[str, str]:
    """Case -> why its traced answer cannot be judged (``triage.cases.unjudgeable``)."""
    return {
        case.id: reason
        for case in loaded.golden.cases
        if case.id in loaded.traces
        and (reason := case_rows.unjudgeable(loaded.traces[case.id], texts))
    }


def judge_items(loaded: Loaded, texts: dict[str, str], unjudged: dict[str, str]) -> list[JudgeItem]:
    """The judge's input for every traced, judgeable case, in golden order."""
    return [
        judge_item(case.id, case.query, loaded.traces[case.id], texts)
        for case in loaded.golden.cases
        if case.id in loaded.traces and case.id not in unjudged
    ]


def judge_item(case_id: str, query: str, trace: Trace, texts: dict[str, str]) -> JudgeItem:
    """One answer with its context chunks' texts (call only for judgeable traces)."""
    chunks = tuple(ContextChunk(id=cid, text=texts[cid]) for cid in trace.context_ids)
    return JudgeItem(id=case_id, question=query, contexts=chunks, answer=trace.answer)


def _rows(given: Judging, judged: Judged, escalated: Escalated) -> list[CaseResult]:
    judgments = case_rows.Judgments(
        results=judged.results,
        decider=judged.decider,
        reference=judged.reference,
        escalated=escalated,
        judge_name=judge_label(judged.run.fingerprint),
        unjudged=given.unjudged,
    )
    loaded = given.loaded
    return case_rows.build(loaded.golden, loaded.traces, judgments, given.retrieval, given.texts)


async def escalate(
    given: Judging, judged: Judged, rows: list[CaseResult], escalated: Escalated
) -> tuple[list[CaseResult], list[Escalation]]:
    """Each ``--escalate-to`` judge in turn judges, and its calibration decides, the answers
    left unsure before it; the rows again, and what each step was sent and decided."""
    escalations: list[Escalation] = []
    for spec, judge, decider in given.judges.cascade:
        unsure = {r.case_id for r in rows if r.label == Label.UNSURE}
        sent = [i for i in given.items if i.id in unsure]
        step = Escalation(judge=str(spec), calibration=decider.status.source, sent=len(sent))
        escalations.append(step)
        if not sent:
            continue
        if judge.embedded:
            require_llama()
        run = await ajudge(judge, sent, given.concurrency, given.store)
        step.fingerprint, step.usage = run.fingerprint, run.usage
        escalated |= {r.item_id: (r, decider, str(spec)) for r in run.results}
        rows = _rows(given, judged, escalated)
        # decided: a pass or fail now; an escalated answer left unscored (the judge
        # failed, a closed endpoint) or unstable is not, nor counted as one
        step.decided = sum(r.case_id in unsure and r.label not in UNDECIDED for r in rows)
        step.unscored = sum(
            r.case_id in unsure and r.label in (Label.UNSCORED, Label.UNSTABLE) for r in rows
        )
    return rows, escalations


def band_notice(rows: list[CaseResult], decider: Decider, escalated: Escalated) -> list[Notice]:
    """A lead notice when labels rest on verdicts inside the calibration's inert band (its
    fallback ``rule``): the counts and the rates include verdicts its grades do not back."""
    deciders = {case: found[1] for case, found in escalated.items()}
    unbacked = [
        r.case_id
        for r in rows
        if case_rows.unbacked(r.label, r.judge, deciders.get(r.case_id, decider))
    ]
    if not unbacked:
        return []
    scored = [r.judge for r in rows if r.judge is not None and r.judge.outcome == Outcome.SCORED]
    text = (
        f"{len(unbacked)} of {len(scored)} verdicts on scored answers stand inside the "
        "calibration's inert band: it decides too few answers at its stated agreement, and "
        "its fallback 'rule' keeps the rule's verdicts, which its grades do not back (each "
        "case says so). Grade more answers, or calibrate with --band-fallback unsure."
    )
    return [notice("band_inert", text, severity=Severity.LEAD, unbacked=len(unbacked))]


def shape_misfit(decider: Decider, rows: list[CaseResult], texts: dict[str, str]) -> None:
    """How the run's answers differ from those the calibration was graded on, into its
    status (``calibration.fit_check``)."""
    record = decider.record
    if record is None or record.grade_shape is None:
        return
    shapes = []
    for row in rows:
        if row.judge is None or row.judge.outcome != Outcome.SCORED:
            continue
        chars = sum(len(texts.get(c, "")) for c in row.context_ids)
        shapes.append({**row.judge.signals, "context_chars": float(chars)})
    decider.status.misfit = misfit(record.grade_shape, shapes)


def header(config: Any, ran: Ran, started: float) -> dict[str, Any]:
    """The fields of ``RunHeader`` a run fills the same way, audit or conversations."""
    judged = ran.judged
    timings = ran.timings | {"total_s": time.perf_counter() - started}
    return {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "config": config.public(),
        "versions": versions(),
        "golden": ran.loaded.golden_source,
        "traces": ran.loaded.trace_source,
        "judge_fingerprint": judged.run.fingerprint,
        "judge_usage": judged.run.usage,
        "judge_cache": judged.run.cache,
        "escalations": ran.escalations,
        "calibration": judged.decider.status,
        "retrieval": ran.retrieval,
        "generation": ran.generation,
        "warnings": ran.notices,
        "mismatches": ran.mismatches,
        "meaningless": ran.meaningless,
        "assumptions": ran.loaded.assumptions,
        "timings": {k: round(v, 2) for k, v in timings.items()},
    }


def slice_name(holdout: bool, has_holdout: bool) -> str:
    """Which slice a run scored: ``holdout`` when asked, ``dev`` when the set has a
    held-out slice, else ``all``."""
    return "holdout" if holdout else "dev" if has_holdout else "all"


async def run_command(
    made: Callable[[CalibrationRecords], Awaitable[tuple[R, CalibrationRecord | None]]],
    out: Path | None,
    write: Writer[R] | None,
) -> R:
    """A command's run (``made``: its result and the calibration record that decided, every
    record read through the records it is given, once); with ``out``, ``write`` writes its
    files there (``render.writer``)."""
    if out is not None and write is None:
        raise TypeError("out= needs write= (e.g. ragtriage.render.writer.write_audit)")
    result, record = await made(CalibrationRecords())
    if out is not None and write is not None:
        write(result, record, Path(out))
    return result


def plan_judges(
    config: RunConfig,
    records: CalibrationRecords,
    generates: bool = False,
    writes: Callable[[], bool] = lambda: False,
    escalate: Callable[[ChatModel | None], Cascade] = lambda _: [],
) -> Judges:
    """The judges of a run, each built once; an escalation judge without its own calibration,
    or an embedded model without llama.cpp, is refused here. ``generates``: the embedded
    generator runs; ``writes``: it writes answers (none are read from a recording)."""
    asked = build_judge(config)  # the one judge object (and embedded model) of the run
    shared_model = _shared_model(config, asked, generates)
    cascade = escalate(shared_model)
    judge, planned = model_free(asked, config.calibration, records)
    notices = []
    if planned is not None and asked.options.sampling:
        text = (
            "--samples not drawn: the calibrated rule reads no model signal, so its "
            "verdicts cannot differ between samples"
        )
        notices.append(notice("samples_not_drawn", text, severity=Severity.INFO))
    vote = None
    if judge.options.samples > 1:
        vote = sample_vote(records.decider(config.calibration, judge.fingerprint))
    # the answers the model wrote that ship with the set need no model (a request they do
    # not hold asks for it when it comes: LocalGenerator)
    if (generates and writes()) or (judge.model is not None and judge.model is shared_model):
        require_llama()  # before any answer is generated
    return Judges(judge, planned, records, shared_model, cascade, vote, notices)


def model_free(
    judge: Judge, path: Path | None, records: CalibrationRecords
) -> tuple[Judge, Decider | None]:
    """A judge whose calibration's rule (in ``path``, or shipped) reads no model signal
    judges without calling its model (calls its rule would ignore), and that rule decides
    (``None``: the judge as is)."""
    free = records.model_free(path, judge.fingerprint)
    return (judge, None) if free is None else (judge.model_free(), free)


def _shared_model(config: RunConfig, judge: Judge, generates: bool) -> ChatModel | None:
    """The one embedded model object of the run: the judge's when its spec names the
    embedded model (it judges and generates), else a new one when the embedded generator
    runs, else ``None`` (the escalation judges make one if they name it)."""
    if judge.embedded and judge.model is not config.judge:
        return judge.model
    return LocalModel(n_threads=config.threads) if generates else None


def sample_vote(decider: Decider) -> Callable[[JudgeResult], str]:
    """What a sample votes: the decision of the calibration the run will decide by."""

    def vote(result: JudgeResult) -> str:
        decision = decider.decide(result)
        if decision is None:
            return result.outcome.value
        return FAITHFUL if decision else UNFAITHFUL

    return vote


def build_judge(config: Any) -> Judge:
    """The run's judge, built once: its spec (``None``: the default), or a
    :class:`ChatModel` with the config's ``strategy`` (if it has one)."""
    options = JudgeOptions.of_config(config)
    strategy = getattr(config, "strategy", None)
    if config.judge is not None and not isinstance(config.judge, str | JudgeSpec):
        return Judge.from_model(config.judge, strategy, options)
    spec = config.judge if isinstance(config.judge, JudgeSpec) else JudgeSpec.parse(config.judge)
    if strategy is not None:
        if spec.strategy is not None and spec.strategy != strategy:
            raise InputError(
                f"the judge spec names strategy {spec.strategy}, the config {strategy}; "
                f"give one (e.g. judge='{strategy}@MODEL')",
                field="strategy",
            )
        spec = replace(spec, strategy=strategy)
    return Judge.from_spec(spec, options)


def judge_label(fingerprint: JudgeFingerprint) -> str:
    """A judge by name in a case row: ``lexical``, or ``STRATEGY@MODEL``."""
    if fingerprint.model == "none":
        return fingerprint.judge
    return f"{fingerprint.judge}@{fingerprint.model}"


def public(config: Any, unused: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A config's settings as JSON values (``unused`` ones null; ``measures`` is
    ``metrics`` over ``k``, recorded as those)."""
    values = {k: v for k, v in config.__dict__.items() if k != "measures"}
    return {k: None if k in unused else _public(v) for k, v in values.items()}


def _public(value: Any) -> Any:
    """A setting as JSON: a parsed spec as the user wrote it (a column mapping as
    ``ours=theirs,...``), a path by its last part, a model object by its name."""
    if isinstance(value, list):  # --escalate-to's specs, --escalate-calibration's paths
        return [_public(v) for v in value]
    if isinstance(value, str | int | float | bool | dict | type(None)):
        return value
    if isinstance(value, JudgeSpec):
        return value.source or str(value)
    if isinstance(value, ColumnMap):
        return ",".join(f"{ours}={theirs}" for ours, theirs in value.pairs.items()) or None
    return getattr(value, "name", str(value))
