"""``ragtriage audit``: both stages on one golden set, and one label per case.

Golden set -> traces (file, callables, or embedded BM25 + local model) -> the run engine
(``flows/engine.py``), judging every answer at once -> clusters -> :class:`AuditResult`.
Every calibration record is read once (``triage.calibrated.CalibrationRecords``), and the
object that decided is the one the plots are drawn from.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

from ragtriage.calibration.record import CalibrationRecord, Cost
from ragtriage.data.containers import Given, source_sha256
from ragtriage.data.formats.columns import ColumnMap
from ragtriage.data.golden import load_golden, resolve_golden
from ragtriage.data.holdout import evaluated_slice, has_holdout
from ragtriage.data.models import DEFAULT_CONTEXT_K, GoldenSet
from ragtriage.data.traces import read_traces
from ragtriage.errors import InputError
from ragtriage.flows.config import (
    COLUMNS,
    DEFAULT_DEPTH,
    DEPTH,
    MAX_RANK,
    OLD_JUDGE,
    TEMPERATURE,
    Setting,
)
from ragtriage.flows.engine import (
    Judged,
    Judges,
    Judging,
    Loaded,
    Order,
    Ran,
    RunConfig,
    Tick,
    Writer,
    build_judge,
    header,
    judge_label,
    model_free,
    ordered_as,
    plan_judges,
    public,
    run_command,
    run_engine,
    slice_name,
)
from ragtriage.judge.api import JudgeRun, ajudge
from ragtriage.judge.judge import Judge, JudgeOptions
from ragtriage.judge.spec import JudgeSpec
from ragtriage.judge.types import ContextChunk, JudgeItem
from ragtriage.llm.base import ChatModel
from ragtriage.llm.cache import ResponseCache
from ragtriage.llm.calls import Caller
from ragtriage.llm.recorded import Recording, find_recording, read_recording
from ragtriage.notices import as_notice
from ragtriage.results.run import (
    AuditResult,
    AuditSettings,
    GoldenSource,
    RecordedAnswers,
    TraceSource,
)
from ragtriage.retrieval.retrievers import load_callable
from ragtriage.system.generate import EMBEDDED as GENERATOR
from ragtriage.system.generate import LocalGenerator, canonical_generator
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


@ordered_as(AuditSettings)
@dataclass
class AuditConfig(RunConfig):
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
    live: Annotated[
        bool,
        Setting(
            "Have the embedded generator write every answer now, even those it wrote "
            "earlier that ship with the golden set (embedded_answers.jsonl beside it)."
        ),
    ] = False
    # for a ChatModel ``judge``; a spec names its own strategy
    strategy: Annotated[str | None, OLD_JUDGE] = None
    context_k: Annotated[
        int, Setting("Top k chunks passed to the generator.", min=1, max=MAX_RANK)
    ] = DEFAULT_CONTEXT_K
    depth: Annotated[int, DEPTH] = DEFAULT_DEPTH
    limit: Annotated[int | None, Setting("Audit only the first N cases.", min=1)] = None
    check_reference: Annotated[  # claims judges: also judge against reference_answer
        bool, Setting("Claims judges: also judge answers against reference_answer.")
    ] = True
    holdout: Annotated[  # audit the held-back slice instead of the development slice
        bool, Setting("Audit the held-back slice (logged next to the golden set).")
    ] = False
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

    def __post_init__(self) -> None:
        super().__post_init__()
        self.generator = canonical_generator(self.generator)  # 'local' is 'embedded'

    def public(self) -> AuditSettings:
        """The config as JSON values (a model object is recorded by its name). With a trace
        file the retriever, generator and depth were not used and are recorded as None
        (a traced audit said "generator local", and compare then saw a change)."""
        unused = {"retriever", "generator", "depth", "live"} if self.traces is not None else set()
        return AuditSettings.model_validate(public(self, frozenset(unused)))


# an audit's writer: ``render.writer.write_audit`` (its calibration's plots too)
AuditWriter = Writer[AuditResult]


def _golden(config: AuditConfig) -> tuple[GoldenSet, GoldenSet]:
    """The golden set (its first ``--limit`` cases) and its evaluated slice: held-out cases
    are not even run."""
    full = load_golden(config.golden, columns=config.columns)
    if config.limit is not None:
        full = full.model_copy(update={"cases": full.cases[: config.limit]})
    return full, evaluated_slice(full, config.holdout)


async def arun(
    config: AuditConfig,
    tick: Tick | None = None,
    out: Path | None = None,
    write: AuditWriter | None = None,
) -> AuditResult:
    """Run the whole audit; ``tick(stage, total)`` returns a per-item progress callback.
    With ``out``, ``write`` (``render.writer.write_audit``) writes the audit's files there
    from the calibration record the audit read once and decided by."""
    return await run_command(lambda records: _audit(config, tick, records), out, write)


def run(
    config: AuditConfig,
    tick: Tick | None = None,
    out: Path | None = None,
    write: AuditWriter | None = None,
) -> AuditResult:
    """:func:`arun` to its end."""
    return asyncio.run(arun(config, tick, out, write))


async def _audit(
    config: AuditConfig, tick: Tick | None, records: CalibrationRecords
) -> tuple[AuditResult, CalibrationRecord | None]:
    """The audit's result and the calibration record that decided for its first judge;
    every record is read through ``records``, once."""
    started = time.perf_counter()
    if config.calibration is not None:
        # read (or refused: a traces file, a results.json... named as what it is) before
        # anything is generated or judged; the deciders use this very object
        records.record(config.calibration)
    full, golden = _golden(config)
    _check_system(config)  # a bad retriever or generator, before any progress line
    judges = plan_judges(
        config,
        records,
        # a trace file carries its answers: the generator is needed only to generate
        generates=config.traces is None and config.generator == GENERATOR,
        writes=lambda: _recording(config) is None,
        escalate=lambda shared: escalation_deciders(config, shared, records),
    )

    async def load(store: ResponseCache) -> Loaded:
        return await _load(config, full, golden, store, judges, tick)

    ran = await run_engine(config, judges, load, _judge_all(config, tick))
    return _result(config, ran, started), ran.judged.decider.record


async def _load(
    config: AuditConfig,
    full: GoldenSet,
    golden: GoldenSet,
    store: ResponseCache,
    judges: Judges,
    tick: Tick | None,
) -> Loaded:
    """The golden set and its traces: read from the trace file, or made by the system."""
    started = time.perf_counter()
    read, info = await _traces(config, golden, store, judges.shared_model, tick, full)
    notes = full.notes + info.get("notes", [])
    return Loaded(
        scored=full,
        golden=golden,
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
        notices=[as_notice(n, "reader") for n in notes] + judges.notices,
        assumptions=info.get("assumptions", {})
        | mismatch.rising_scores(read, {c.id for c in golden.cases}),
        timings={"system_s": time.perf_counter() - started},
    )


def _judge_all(config: AuditConfig, tick: Tick | None) -> Order:
    """An audit's judging order: every answer at once (sampled up to ``--samples`` times),
    then, for a claims judge, every answer against its reference answer."""

    async def judge_all(given: Judging) -> Judged:
        items = given.items
        on_result = tick("judge", len(items)) if tick else None
        vote = given.judges.vote
        run = await ajudge(
            given.judge, items, given.concurrency, given.store, on_result=on_result, verdict=vote
        )
        reference: dict[str, Any] = {}
        if run.fingerprint.judge == "claims" and config.check_reference:
            reference, checked = await _reference_check(given)
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
        counts=case_rows.label_counts(r.label for r in rows),
        answer_matrix=answer_matrix(rows),
        clusters=clusters(rows, lexical_retriever=lexical),
        cases=rows,
    )


def _recording(config: AuditConfig) -> Recording | None:
    """The answers the embedded model wrote for this golden set, shipped beside it, so the
    demo needs no model (``None`` with ``--live``, or when none ship)."""
    if config.live or not isinstance(config.golden, Path):  # rows given in Python: no folder
        return None
    path = find_recording(resolve_golden(config.golden))  # "handbook": the shipped set
    return read_recording(path) if path is not None else None


def _recorded_info(recording: Recording | None, generator: Any) -> dict[str, Any]:
    """What the results record of the answers read from a recording (none read: nothing)."""
    if recording is None or not isinstance(generator, LocalGenerator) or not generator.served:
        return {}
    answers = RecordedAnswers(
        file=str(recording.path), answers=generator.served, **recording.provenance
    )
    return {"recorded": answers}


async def _traces(config, golden, store, shared_model, tick, full):
    """``(every trace read, what to record of them)``. Traces of the other slice's cases (a
    trace file answers held-out queries too) are set aside and only counted: listing their
    ids as "traced not in golden" would leak the held-out slice."""
    if config.traces is not None:
        read = read_traces(config.traces, config.context_k, full, config.columns)
        other = {c.id for c in full.cases} - {c.id for c in golden.cases}
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
        return kept, info
    caller = Caller(shared_model, store, concurrency=1) if config.generator == GENERATOR else None
    recording = _recording(config) if caller is not None else None
    generator = LocalGenerator(caller, recording) if caller is not None else config.generator
    traces = await run_system(
        golden,
        config.retriever,
        generator,
        depth=config.depth,
        context_k=config.context_k,
        caller=caller,
        progress=tick("generate", len(golden.cases)) if tick else None,
    )
    recorded = _recorded_info(recording, generator) if caller is not None else {}
    return traces, _trace_info(config) | recorded


async def _reference_check(given: Judging) -> tuple[dict[str, Any], JudgeRun | None]:
    """Judge each answer against its golden reference answer, to catch contradictions (a
    claims judge's ``contradicted``); the results by case, and the run (its calls count in
    the audit's usage; its cache figures, from the same store, include the main run's)."""
    traces = given.loaded.traces
    items = [
        JudgeItem(
            id=c.id,
            question=c.query,
            answer=traces[c.id].answer,
            contexts=(ContextChunk(id="reference", text=c.reference_answer),),
        )
        for c in given.loaded.golden.cases
        if c.reference_answer and c.id in traces and c.expected()
    ]
    if not items:
        return {}, None
    run = await ajudge(given.judge.single(), items, given.concurrency, given.store)
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

    def _most(self, per_answer: float | None) -> float | None:
        """The most: every answer drawn ``samples`` times."""
        return None if per_answer is None else self.answers * per_answer * self.samples

    @property
    def calls(self) -> float | None:
        return self._most(self.calls_per_answer)

    @property
    def usd(self) -> float | None:
        return self._most(self.usd_per_answer)

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
    selective = next(iter(record.scopes.values())).selective
    if selective is None or math.isnan(selective.coverage.estimate):
        return 1.0
    return 1.0 - selective.coverage.estimate


def plan_calls(config: AuditConfig) -> list[PlannedJudge]:
    """The dry run: each judge of the cascade with the answers it is expected to be sent
    (the unsure share of the judge before it, as its calibration measured out of fold)
    and the calls and dollars its record's cost per answer makes of them. Runs nothing."""
    judge = build_judge(config)
    first = judge.fingerprint
    records = CalibrationRecords()
    cascade = escalation_deciders(config, records=records)
    answers = float(len(_golden(config)[1].cases))
    # a judge calls its model unless its calibrated rule reads no model signal (the audit
    # then judges without it: engine.model_free); the dry run counted calls never made
    calls = judge.model is not None and records.model_free(config.calibration, first) is None
    judges = [(judge_label(first), records.decider(config.calibration, first), calls)]
    judges += [(str(spec), decider, j.model is not None) for spec, j, decider in cascade]
    out = []
    for k, (name, decider, calls) in enumerate(judges):
        cost = decider.record.cost if decider.record is not None else None
        share = _unsure_share(decider)
        out.append(
            PlannedJudge(
                judge=name,
                answers=answers,
                calls_per_answer=_per_answer(cost, "calls_per_item", calls),
                usd_per_answer=_per_answer(cost, "usd_per_item", calls),
                unsure_share=share,
                # the first judge draws --samples if it calls its model
                samples=config.samples if k == 0 and calls else 1,
            )
        )
        answers *= share
    return out


def _per_answer(cost: Cost | None, field: str, calls: bool) -> float | None:
    """A cost per answer its record measured (None without a record); 0 for a judge that
    will not call its model."""
    if not calls:
        return 0.0
    return None if cost is None else getattr(cost, field)


def escalation_deciders(
    config: AuditConfig,
    embedded: ChatModel | None = None,
    records: CalibrationRecords | None = None,
) -> list[tuple[JudgeSpec, Judge, Decider]]:
    """Each ``--escalate-to`` judge, built once (``embedded``: the audit's embedded model),
    with the calibration that decides for it; a judge without a record matching its
    fingerprint is refused before anything runs (it would decide by an uncalibrated 0.5
    or by another judge's rule)."""
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
        judge, free = model_free(judge, path, records)  # as the first judge does
        out.append((spec, judge, free or decider))
    return out


def _check_system(config: AuditConfig) -> None:
    """A retriever or generator ``module:function`` that cannot be imported is refused."""
    if config.traces is not None:
        return
    if config.retriever != "bm25":
        load_callable(config.retriever)
    if config.generator not in (GENERATOR, "extractive"):
        load_callable(config.generator, field="generator")


def _trace_info(config: AuditConfig) -> dict[str, Any]:
    if config.traces is None:
        return {"source": f"retriever={config.retriever}, generator={config.generator}"}
    return {"source": str(config.traces), "sha256": source_sha256(config.traces)}
