"""``ragtriage audit``: both stages on one golden set, and one label per case.

Flow: golden set -> traces (file, callables, or embedded BM25 + local model) -> the run
engine (``flows/engine.py``: stage 1, stage 2 judging every answer at once, cached so an
interrupted audit resumes for free, calibrated decisions and the cascade, triage) ->
clusters -> :class:`AuditResult` -> with ``out``, its files written by the writer it is
given (``run``/``arun``). Every
calibration record is read once (``triage.calibrated.CalibrationRecords``), and the object
that decided is the one the plots are drawn from.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

from ragtriage.calibration.record import CalibrationRecord
from ragtriage.data.containers import Given, source_sha256
from ragtriage.data.formats.columns import ColumnMap
from ragtriage.data.golden import load_golden
from ragtriage.data.holdout import evaluated_slice, has_holdout
from ragtriage.data.models import DEFAULT_CONTEXT_K, GoldenSet
from ragtriage.data.traces import read_traces
from ragtriage.errors import InputError
from ragtriage.flows.config import (
    API_BASE,
    CACHE,
    COLUMNS,
    CONCURRENCY,
    DEFAULT_DEPTH,
    DEPTH,
    JSON_MODE,
    JUDGE,
    MAX_RANK,
    METRICS,
    OLD_JUDGE,
    TEMPERATURE,
    THREADS,
    TIMEOUT,
    K,
    Setting,
    paths_from_text,
)
from ragtriage.flows.engine import (
    Judged,
    Judges,
    Judging,
    Loaded,
    Order,
    Ran,
    Tick,
    build_judge,
    header,
    judge_label,
    public,
    run_engine,
    slice_name,
)
from ragtriage.judge.api import JudgeRun, ajudge
from ragtriage.judge.judge import Judge, JudgeOptions
from ragtriage.judge.samples import FAITHFUL, UNFAITHFUL
from ragtriage.judge.spec import EMBEDDED, JudgeSpec
from ragtriage.judge.types import ContextChunk, JudgeItem, JudgeResult
from ragtriage.llm.base import ChatModel
from ragtriage.llm.cache import ResponseCache, default_cache_path
from ragtriage.llm.calls import Caller
from ragtriage.llm.local import LocalModel, require_llama
from ragtriage.notices import Notice, Severity, as_notice, notice
from ragtriage.results.run import AuditResult, AuditSettings, GoldenSource, TraceSource
from ragtriage.retrieval.evaluate import DEFAULT_KS, DEFAULT_METRICS
from ragtriage.retrieval.metrics import Measure, expand
from ragtriage.retrieval.retrievers import load_callable
from ragtriage.system.generate import EMBEDDED as GENERATOR
from ragtriage.system.generate import canonical_generator
from ragtriage.system.run import run_system
from ragtriage.triage import cases as case_rows
from ragtriage.triage import mismatch
from ragtriage.triage.actions import clusters
from ragtriage.triage.answer_matrix import answer_matrix
from ragtriage.triage.calibrated import CalibrationRecords, Decider
from ragtriage.triage.diagnostics import summarize

__all__ = [
    "AuditConfig",
    "AuditWriter",
    "PlannedJudge",
    "Tick",
    "arun",
    "escalation_deciders",
    "plan_calls",
    "run",
]


@dataclass
class AuditConfig:
    golden: Annotated[
        Path | Given,
        Setting("Golden set directory or file (ours, or ragas; JSONL, JSON, CSV or Parquet)."),
    ]
    traces: Annotated[
        Path | Given | None,
        Setting(
            "Traces of your system: our trace JSONL/CSV/Parquet, a ragas dataset, or "
            "an OpenInference span export (JSONL or Parquet). Format detected by content."
        ),
    ] = None
    retriever: Annotated[str, Setting("'bm25' or module:function.")] = "bm25"
    generator: Annotated[
        str,
        Setting(
            "'embedded' (the embedded model; 'local' is the same), 'extractive' or module:function."
        ),
    ] = GENERATOR
    # a judge spec (see judge.spec), as text or parsed, or a model
    judge: Annotated[str | JudgeSpec | ChatModel | None, JUDGE] = EMBEDDED
    # for a ChatModel ``judge``; a spec names its own strategy
    strategy: Annotated[str | None, OLD_JUDGE] = None
    calibration: Annotated[Path | None, Setting("Calibration record JSON.")] = None
    context_k: Annotated[
        int, Setting("Top k chunks passed to the generator.", min=1, max=MAX_RANK)
    ] = DEFAULT_CONTEXT_K
    depth: Annotated[int, DEPTH] = DEFAULT_DEPTH
    metrics: Annotated[list[str], METRICS] = field(default_factory=lambda: list(DEFAULT_METRICS))
    k: Annotated[list[int], K] = field(default_factory=lambda: list(DEFAULT_KS))
    concurrency: Annotated[int, CONCURRENCY] = 8
    cache: Annotated[Path | None, CACHE] = None
    threads: Annotated[int | None, THREADS] = None
    limit: Annotated[int | None, Setting("Audit only the first N cases.", min=1)] = None
    check_reference: Annotated[  # claims judges: also judge against reference_answer
        bool, Setting("Claims judges: also judge answers against reference_answer.")
    ] = True
    api_base: Annotated[str | None, API_BASE] = None  # for a litellm judge
    json_mode: Annotated[str | None, JSON_MODE] = None
    timeout: Annotated[float | None, TIMEOUT] = None
    holdout: Annotated[  # audit the held-back slice instead of the development slice
        bool, Setting("Audit the held-back slice (logged next to the golden set).")
    ] = False
    on_mismatch: Annotated[  # see triage/mismatch.py
        str,
        Setting(
            "File mismatches: 'fail' (list them; the gate fails when one makes the result "
            "meaningless), 'warn' (list them and go on) or 'error' (exit 2 on any).",
            choices=mismatch.POLICIES,
        ),
    ] = "fail"
    samples: Annotated[
        int,
        Setting(
            "Judge each answer up to K times, stopping once the majority of K is decided; "
            "no majority is 'unstable', neither pass nor fail (gate reads the spread).",
            min=1,
            max=100,
        ),
    ] = 1
    temperature: Annotated[float | None, TEMPERATURE] = None
    # other column names mapped onto ours, "query=question,..." (data/formats/columns.py)
    columns: Annotated[str | dict[str, str] | ColumnMap | None, COLUMNS] = None
    # the cascade for unsure answers (flows/engine.py: escalate)
    escalate_to: Annotated[
        list[JudgeSpec],
        Setting(
            "Judge the answers the judge is unsure of again with this judge (repeatable: "
            "a cascade, each judging what the one before left unsure); each needs a "
            "calibration record of its own.",
            metavar="SPEC",
        ),
    ] = field(default_factory=list)
    escalate_calibration: Annotated[
        list[Path],
        Setting(
            "The calibration record of each --escalate-to judge, in the same order "
            "(default: a shipped record matching its fingerprint).",
            metavar="FILE",
        ),
    ] = field(default_factory=list)

    # --metrics over --k, parsed once here (a bad name is refused before any case is run)
    measures: list[Measure] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        paths_from_text(self)  # cache="x.sqlite" from Python
        self.generator = canonical_generator(self.generator)  # 'local' is 'embedded'
        self.measures = expand(list(self.metrics), list(self.k))

    def public(self) -> AuditSettings:
        """The config as JSON values (a model object is recorded by its name). With a trace
        file the retriever, generator and depth were not used and are recorded as None
        (a traced audit said "generator local", and compare then saw a change)."""
        unused = {"retriever", "generator", "depth"} if self.traces is not None else set()
        return AuditSettings.model_validate(public(self, frozenset(unused)))


# writes an audit's files into a folder from the result and the calibration record it was
# decided by (its plots): ``render.writer.write_audit``; returns what it wrote by name
AuditWriter = Callable[[AuditResult, CalibrationRecord | None, Path], dict[str, Path]]


def _limited(golden: GoldenSet, limit: int | None) -> GoldenSet:
    if limit is None:
        return golden
    return golden.model_copy(update={"cases": golden.cases[:limit]})


async def arun(
    config: AuditConfig,
    tick: Tick | None = None,
    out: Path | None = None,
    write: AuditWriter | None = None,
) -> AuditResult:
    """Run the whole audit; ``tick(stage, total)`` returns a per-item progress callback.
    With ``out``, ``write`` writes the audit's files there (``results.json``, the reports,
    the calibration's plots: ``render.writer.write_audit``, what ``ragtriage audit``
    passes) from the calibration record the audit read once and decided by."""
    if out is not None and write is None:
        raise TypeError("out= needs write= (e.g. ragtriage.render.writer.write_audit)")
    records = CalibrationRecords()
    result, record = await _audit(config, tick, records)
    if out is not None and write is not None:
        write(result, record, Path(out))
    return result


def run(
    config: AuditConfig,
    tick: Tick | None = None,
    out: Path | None = None,
    write: AuditWriter | None = None,
) -> AuditResult:
    """:func:`arun` to its end."""
    return asyncio.run(arun(config, tick, out, write))


@dataclass
class _Plan:
    """The audit's judges, built once and refused before anything runs: the judge asked
    for, the one that runs (without its model when a model-free rule decides), that
    rule, the one embedded model object of the run, the cascade and the sampling vote."""

    judge: Judge
    planned: Decider | None
    shared_model: ChatModel | None
    generates_locally: bool
    cascade: list[tuple[JudgeSpec, Judge, Decider]]
    vote: Callable[[JudgeResult], str] | None
    notices: list[Notice]


async def _audit(
    config: AuditConfig, tick: Tick | None, records: CalibrationRecords
) -> tuple[AuditResult, CalibrationRecord | None]:
    """The audit's result and the calibration record that decided for its first judge;
    every record is read through ``records``, once. The steps: the inputs and judges
    checked, the traces read or the system run, the engine (``flows/engine.py``), the
    audit's own rows (clusters, diagnostics)."""
    started = time.perf_counter()
    if config.calibration is not None:
        # read (or refused: a traces file, a results.json... named as what it is) before
        # anything is generated or judged; the deciders use this very object
        records.record(config.calibration)
    full = _limited(load_golden(config.golden, columns=config.columns), config.limit)
    golden = evaluated_slice(full, config.holdout)  # held-out cases are not even run
    _check_system(config)  # a bad retriever or generator, before any progress line
    store = ResponseCache(config.cache or default_cache_path())
    try:
        plan = _plan(config, records)
        loaded = await _load(config, full, golden, store, plan, tick)
        judges = Judges(plan.judge, plan.planned, records, store)
        order = _judge_all(config, loaded, plan.vote, tick)
        ran = await run_engine(config, loaded, judges, order, plan.cascade)
    finally:
        store.close()
    return _result(config, ran, started), ran.judged.decider.record


def _plan(config: AuditConfig, records: CalibrationRecords) -> _Plan:
    """The judges of the audit, each built once; an escalation judge without its own
    calibration, or an embedded model without llama.cpp, is refused here."""
    asked = build_judge(config)  # the one judge object (and embedded model) of the run
    # a trace file carries its answers: the generator is needed only to generate
    generates_locally = config.traces is None and config.generator == GENERATOR
    shared_model = _shared_model(config, asked, generates_locally)
    cascade = escalation_deciders(config, shared_model, records)
    # a calibrated rule that reads no model signal: judge without calling the model
    planned = records.model_free(config.calibration, asked.fingerprint)
    judge = asked if planned is None else asked.model_free()
    notices = []
    if planned is not None and asked.options.sampling:
        text = (
            "--samples not drawn: the calibrated rule reads no model signal, so its "
            "verdicts cannot differ between samples"
        )
        notices.append(notice("samples_not_drawn", text, severity=Severity.INFO))
    vote = _sample_vote(config, judge, records) if judge.options.samples > 1 else None
    if generates_locally or (judge.model is not None and judge.model is shared_model):
        require_llama()  # before any answer is generated
    return _Plan(judge, planned, shared_model, generates_locally, cascade, vote, notices)


async def _load(
    config: AuditConfig,
    full: GoldenSet,
    golden: GoldenSet,
    store: ResponseCache,
    plan: _Plan,
    tick: Tick | None,
) -> Loaded:
    """The golden set and its traces: read from the trace file, or made by the system."""
    started = time.perf_counter()
    traces, read, info = await _traces(config, golden, store, plan.shared_model, tick, full)
    known = {c.id for c in golden.cases}
    notes = full.notes + info.get("notes", [])
    return Loaded(
        scored=full,
        golden=golden,
        traces=traces,
        read=read,
        golden_source=GoldenSource(  # the whole set's hash, as the retrieval report records it
            source=str(config.golden),
            sha256=full.content_hash(),
            cases=len(golden.cases),
            slice=slice_name(config.holdout, has_holdout(full)),
            format=full.format,
        ),
        trace_source=TraceSource(
            **{k: v for k, v in info.items() if k in TraceSource.model_fields}
        ),
        notices=[as_notice(n, "reader") for n in notes] + plan.notices,
        assumptions=info.get("assumptions", {}) | mismatch.rising_scores(traces, known),
        timings={"system_s": time.perf_counter() - started},
    )


def _judge_all(
    config: AuditConfig,
    loaded: Loaded,
    vote: Callable[[JudgeResult], str] | None,
    tick: Tick | None,
) -> Order:
    """An audit's judging order: every answer at once (sampled up to ``--samples`` times),
    then, for a claims judge, every answer against its reference answer."""

    async def judge_all(given: Judging) -> Judged:
        items = given.items
        on_result = tick("judge", len(items)) if tick else None
        run = await ajudge(
            given.judge, items, given.concurrency, given.store, on_result=on_result, verdict=vote
        )
        reference: dict[str, Any] = {}
        if run.fingerprint.judge == "claims" and config.check_reference:
            reference, checked = await _reference_check(
                loaded.golden, loaded.traces, given.judge.single(), config, given.store
            )
            if checked is not None:
                run = replace(run, usage=run.usage + checked.usage, cache=checked.cache)
        results = {r.item_id: r for r in run.results}
        return Judged(run, results, given.decider(run.fingerprint), reference)

    return judge_all


def _result(config: AuditConfig, ran: Ran, started: float) -> AuditResult:
    """The header, then the audit's own rows: clusters of failures, RAGChecker's figures."""
    rows = ran.rows
    strategy = "claims" if ran.judged.run.fingerprint.judge == "claims" else "alignment"
    diagnostics = summarize(
        [(r.diagnostics, r.tags) for r in rows if r.diagnostics is not None], strategy
    )
    lexical = config.traces is None and config.retriever == "bm25"
    return AuditResult(
        **header(config, ran, started),
        diagnostics=diagnostics,
        counts=case_rows.label_counts(rows),
        answer_matrix=answer_matrix(rows),
        clusters=clusters(rows, lexical_retriever=lexical),
        cases=rows,
    )


async def _traces(config, golden, store, shared_model, tick, full):
    """``(traces of golden cases, every trace read, what to record of them)``: the second
    shows what did not match. Traces of the other slice's cases (``full`` minus
    ``golden``: a trace file answers every query, held-out ones too) are set aside and
    only counted: their ids listed as "traced not in golden" leaked the held-out slice."""
    if config.traces is not None:
        read = read_traces(config.traces, config.context_k, full, config.columns)
        known = {c.id for c in golden.cases}
        other = {c.id for c in full.cases} - known
        kept = {q: t for q, t in read.traces.items() if q not in other}
        notes = read.notes + (
            [f"{len(read.traces) - len(kept)} traces of cases outside the audited slice "
             "set aside (not scored, not listed)"] if len(kept) < len(read.traces) else []
        )  # fmt: skip
        info = {
            **_trace_info(config),
            "format": read.format,
            "notes": notes,
            "assumptions": read.assumptions,
        }
        return {q: t for q, t in kept.items() if q in known}, kept, info
    caller = Caller(shared_model, store, concurrency=1) if config.generator == GENERATOR else None
    traces = await run_system(
        golden,
        config.retriever,
        config.generator,
        depth=config.depth,
        context_k=config.context_k,
        caller=caller,
        progress=tick("generate", len(golden.cases)) if tick else None,
    )
    return traces, traces, _trace_info(config)


async def _reference_check(
    golden, traces, judge: Judge, config, store
) -> tuple[dict[str, Any], JudgeRun | None]:
    """Judge each answer against its golden reference answer, to catch contradictions;
    the results by case, and the run (its calls count in the audit's usage; its cache
    figures, from the same store, include the main run's).

    Only claims judges give a ``contradicted`` verdict, so only they run this check.
    """
    items = [
        JudgeItem(
            id=c.id,
            question=c.query,
            answer=traces[c.id].answer,
            contexts=(ContextChunk(id="reference", text=c.reference_answer),),
        )
        for c in golden.cases
        if c.reference_answer and c.id in traces and c.expected()
    ]
    if not items:
        return {}, None
    run = await ajudge(judge, items, config.concurrency, store)
    return {r.item_id: r for r in run.results}, run


@dataclass
class PlannedJudge:
    """One judge of the audit's cascade, before anything runs: what it will be sent."""

    judge: str
    answers: float  # expected answers sent (the first judge: every case)
    calls_per_answer: float | None  # from its calibration record; None without one
    usd_per_answer: float | None
    unsure_share: float  # of what it is sent, the share its band leaves unsure (expected)
    samples: int = 1  # --samples K: the most samples an answer gets (the first judge)

    @property
    def calls(self) -> float | None:
        """The most: every answer drawn ``samples`` times."""
        if self.calls_per_answer is None:
            return None
        return self.answers * self.calls_per_answer * self.samples

    @property
    def usd(self) -> float | None:
        if self.usd_per_answer is None:
            return None
        return self.answers * self.usd_per_answer * self.samples

    @property
    def fewest(self) -> float:
        """The share of :attr:`calls` and :attr:`usd` when the first ``floor(K/2) + 1``
        samples of every answer agree (1 without samples)."""
        return (self.samples // 2 + 1) / self.samples


def _unsure_share(decider: Decider) -> float:
    """1 - the outer-fold coverage its record measured (0 for a record without a band)."""
    record = decider.record
    if record is None or record.band is None:
        return 0.0
    scope = next(iter(record.scopes.values()))
    if (
        scope.selective is None
        or scope.selective.coverage.estimate != scope.selective.coverage.estimate
    ):
        return 1.0
    return 1.0 - scope.selective.coverage.estimate


def plan_calls(config: AuditConfig) -> list[PlannedJudge]:
    """The dry run: each judge of the cascade with the answers it is expected to be sent
    (the unsure share of the judge before it, as its calibration measured out of fold)
    and the calls and dollars its record's cost per answer makes of them. Runs nothing."""
    judge = build_judge(config)
    first = judge.fingerprint
    records = CalibrationRecords()
    cascade = escalation_deciders(config, records=records)
    full = _limited(load_golden(config.golden, columns=config.columns), config.limit)
    answers = float(len(evaluated_slice(full, config.holdout).cases))
    judges = [(judge_label(first), records.decider(config.calibration, first))]
    judges += [(str(spec), decider) for spec, _, decider in cascade]
    # the first judge draws --samples if it calls a model whose rule reads a model signal
    sampled = (
        config.samples > 1
        and judge.model is not None
        and records.model_free(config.calibration, first) is None
    )
    out = []
    for k, (name, decider) in enumerate(judges):
        cost = decider.record.cost if decider.record is not None else None
        share = _unsure_share(decider)
        out.append(
            PlannedJudge(
                judge=name,
                answers=answers,
                calls_per_answer=None if cost is None else cost.calls_per_item,
                usd_per_answer=None if cost is None else cost.usd_per_item,
                unsure_share=share,
                samples=config.samples if k == 0 and sampled else 1,
            )
        )
        answers *= share
    return out


def escalation_deciders(
    config: AuditConfig,
    embedded: ChatModel | None = None,
    records: CalibrationRecords | None = None,
) -> list[tuple[JudgeSpec, Judge, Decider]]:
    """Each ``--escalate-to`` judge, built once (``embedded``: the embedded model object
    the audit already holds, for a judge that names it), with the calibration that decides
    for it; a judge without a record matching its fingerprint is refused here, before
    anything runs: it would decide by an uncalibrated 0.5 on its score, or by another
    judge's rule."""
    paths = list(config.escalate_calibration)
    if len(paths) > len(config.escalate_to):
        raise InputError(
            f"{len(paths)} --escalate-calibration records for {len(config.escalate_to)} "
            "--escalate-to judges",
            field="--escalate-calibration",
        )
    options = JudgeOptions.of_config(config).single()  # escalated answers: one sample
    records = records if records is not None else CalibrationRecords()
    out = []
    for k, spec in enumerate(config.escalate_to):
        path = paths[k] if k < len(paths) else None
        judge = Judge.from_spec(spec, options, embedded=embedded, field="--escalate-to")
        if judge.embedded:
            embedded = judge.model  # the next judge naming it shares it
        decider = records.decider(path, judge.fingerprint)
        if decider.record is None or decider.status.stale:
            why = (
                f"its calibration record differs in {', '.join(decider.status.stale)}"
                if decider.record is not None
                else "no calibration record matches it"
            )
            raise InputError(
                f"judge {spec}: {why}; calibrate it on your grades "
                f"(ragtriage calibrate GRADES --judge {spec} --out cal) and pass the record "
                "with --escalate-calibration",
                field="--escalate-to",
            )
        out.append((spec, judge, decider))
    return out


def _shared_model(config: AuditConfig, judge: Judge, generates: bool) -> ChatModel | None:
    """The one embedded model object of the audit: the judge's when its spec names the
    embedded model (it judges and generates), else a new one when the embedded generator
    runs, else ``None`` (the escalation judges make one if they name it)."""
    if judge.embedded and judge.model is not config.judge:
        return judge.model
    return LocalModel(n_threads=config.threads) if generates else None


def _check_system(config: AuditConfig) -> None:
    """A retriever or generator ``module:function`` that cannot be imported is refused
    before anything runs (it printed ``generate: 0/16`` first)."""
    if config.traces is not None:
        return
    if config.retriever != "bm25":
        load_callable(config.retriever)
    if config.generator not in (GENERATOR, "extractive"):
        load_callable(config.generator, field="generator")


def _sample_vote(
    config: AuditConfig, judge: Judge, records: CalibrationRecords
) -> Callable[[JudgeResult], str]:
    """What a sample votes: the decision of the calibration the audit will decide by."""
    decider = records.decider(config.calibration, judge.fingerprint)

    def vote(result: JudgeResult) -> str:
        decision = decider.decide(result)
        if decision is None:
            return result.outcome.value
        return FAITHFUL if decision else UNFAITHFUL

    return vote


def _trace_info(config: AuditConfig) -> dict[str, Any]:
    if config.traces is None:
        return {"source": f"retriever={config.retriever}, generator={config.generator}"}
    return {"source": str(config.traces), "sha256": source_sha256(config.traces)}
