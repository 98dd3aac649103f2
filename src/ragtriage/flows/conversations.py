"""``ragtriage conversations``: audit a multi-turn RAG system turn by turn.

Flow: conversational golden set + conversation traces (ours, DeepEval, ragas, OpenInference
sessions) -> stage 1 on the flattened turns (ids ``conversation#turn``: trec_eval's
figures), sliced by turn index, standalone or not, answerable or not -> stage 2 judges
each turn with its admissible history (judge/history.py), turn 1 of every conversation
first, then turn 2, ... (an earlier answer is evidence only once it was found faithful)
-> the single-turn triage rules per turn, plus ``rewrite`` (triage/conversations.py) ->
the first failing turn per conversation -> :class:`ConversationsResult`.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

from ragtriage.atomic import file_sha256
from ragtriage.data.conversation_traces import read_conversation_traces
from ragtriage.data.conversations import ConversationGolden, TracedTurn, load_conversation_golden
from ragtriage.data.models import DEFAULT_CONTEXT_K
from ragtriage.data.traces import chunk_texts, run_from_traces
from ragtriage.flows.audit import unjudgeable
from ragtriage.flows.config import (
    API_BASE,
    CACHE,
    CONCURRENCY,
    JSON_MODE,
    JUDGE,
    MAX_RANK,
    METRICS,
    THREADS,
    TIMEOUT,
    K,
    Setting,
    paths_from_text,
)
from ragtriage.judge.api import JudgeRun, ajudge
from ragtriage.judge.history import (
    PriorTurn,
    ajudge_with_history,
    attribute,
    history_chunks,
    recent,
)
from ragtriage.judge.judge import Judge, JudgeOptions
from ragtriage.judge.spec import EMBEDDED, JudgeSpec
from ragtriage.judge.types import ContextChunk, JudgeItem, JudgeResult, Outcome, Usage
from ragtriage.llm.base import ChatModel
from ragtriage.llm.cache import ResponseCache, default_cache_path
from ragtriage.llm.local import require_llama
from ragtriage.retrieval.evaluate import DEFAULT_KS, DEFAULT_METRICS, evaluate_retrieval
from ragtriage.retrieval.metrics import Measure, expand
from ragtriage.retrieval.sections import versions
from ragtriage.retrieval.split import log_reveal
from ragtriage.triage import cases as case_rows
from ragtriage.triage import mismatch
from ragtriage.triage.calibrated import Decider, find_decider, model_free_decider
from ragtriage.triage.conversations import (
    ConversationsGolden,
    ConversationsResult,
    ConversationsSettings,
    TurnResult,
    history_rows,
    probe_rewrites,
    retrieval_slices,
    roll_up,
    turn_label,
    turn_label_counts,
)
from ragtriage.triage.models import Label, TraceSource

__all__ = ["ConversationsConfig", "arun", "run"]


@dataclass
class ConversationsConfig:
    golden: Annotated[
        Path,
        Setting("Conversational golden set: conversations.jsonl, or a folder holding it "
                "(corpus.jsonl beside it)."),
    ]  # fmt: skip
    traces: Annotated[
        Path,
        Setting("Conversation traces: ours (JSONL), DeepEval conversational test cases, ragas "
                "multi-turn samples or OpenInference spans with session.id."),
    ]  # fmt: skip
    # a judge spec (judge.spec), as text or parsed, or a model (its default strategy)
    judge: Annotated[str | JudgeSpec | ChatModel | None, JUDGE] = EMBEDDED
    calibration: Annotated[Path | None, Setting("Calibration record JSON.")] = None
    context_k: Annotated[
        int,
        Setting("Top k chunks passed to the generator, when a trace does not list them.",
                min=1, max=MAX_RANK),
    ] = DEFAULT_CONTEXT_K  # fmt: skip
    probe_k: Annotated[
        int,
        Setting("Depth of the rewrite test: a golden chunk in the probe's top k (score > 0) "
                "counts as found.", min=1, max=MAX_RANK),
    ] = 10  # fmt: skip
    metrics: Annotated[list[str], METRICS] = field(default_factory=lambda: list(DEFAULT_METRICS))
    k: Annotated[list[int], K] = field(default_factory=lambda: list(DEFAULT_KS))
    concurrency: Annotated[int, CONCURRENCY] = 8
    cache: Annotated[Path | None, CACHE] = None
    threads: Annotated[int | None, THREADS] = None
    api_base: Annotated[str | None, API_BASE] = None
    json_mode: Annotated[str | None, JSON_MODE] = None
    timeout: Annotated[float | None, TIMEOUT] = None
    holdout: Annotated[
        bool, Setting("Audit the held-back conversations (logged next to the golden set).")
    ] = False
    on_mismatch: Annotated[
        str,
        Setting("'warn' (list and go on) or 'error' (exit 2) on file mismatches.",
                choices=("warn", "error")),
    ] = "warn"  # fmt: skip

    measures: list[Measure] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        paths_from_text(self)  # a path given as text from Python
        self.measures = expand(list(self.metrics), list(self.k))

    def public(self) -> ConversationsSettings:
        values = {k: v for k, v in self.__dict__.items() if k != "measures"}
        return ConversationsSettings.model_validate({k: _public(v) for k, v in values.items()})


def _public(value: Any) -> Any:
    """A setting as JSON: a spec as written, a path as text, a model object by its name."""
    if isinstance(value, JudgeSpec):
        return value.source or str(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, str | int | float | bool | list | type(None)):
        return value
    return getattr(value, "name", str(value))


def _judge(config: ConversationsConfig) -> Judge:
    """The judge of the run, built once: a spec, or a model object (its default strategy)."""
    options = JudgeOptions.of_config(config)
    if config.judge is not None and not isinstance(config.judge, str | JudgeSpec):
        return Judge.from_model(config.judge, None, options)
    return Judge.from_spec(config.judge, options)


async def arun(config: ConversationsConfig) -> ConversationsResult:
    """Judge every turn of the conversation golden set in context, and roll it up."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    whole = load_conversation_golden(config.golden)
    golden = whole  # the evaluated slice: held-back conversations are not even judged
    if whole.has_holdout() or config.holdout:
        golden = whole.select("holdout" if config.holdout else "dev")
    flat = golden.flat()
    read = read_conversation_traces(config.traces, config.context_k, whole)
    other = {t.case.id for t in whole.turns} - {c.id for c in flat.cases}
    if set_aside := [t for t in read.turns if t.trace.query_id in other]:
        read.notes.append(f"{len(set_aside)} traced turns of conversations outside the "
                          "audited slice set aside (not scored, not listed)")  # fmt: skip
    traced = {t.trace.query_id: t for t in read.turns if t.trace.query_id not in other}
    traces = {q: t.trace for q, t in traced.items()}
    texts = chunk_texts(flat, traces)
    mismatches = mismatch.find(flat, traces, texts)
    warnings = read.notes + mismatch.apply(mismatches, config.on_mismatch, str(config.traces))
    known = {c.id for c in flat.cases}
    traces = {q: t for q, t in traces.items() if q in known}

    t0 = time.perf_counter()
    retrieval = evaluate_retrieval(
        flat, run_from_traces(traces, flat), config.measures, k=config.k,
        miss_k=config.context_k, split="holdout" if config.holdout else None,
    )  # fmt: skip
    if config.holdout:  # logged against the path the audit was given
        retrieval = log_reveal(retrieval, config.golden)
    timings["retrieval_s"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    asked = _judge(config)
    planned = model_free_decider(config.calibration, asked.fingerprint)
    judge = asked if planned is None else asked.model_free()
    if judge.embedded and judge.model is not config.judge:
        require_llama()
    unjudged = {q: why for q, t in traces.items() if (why := unjudgeable(t, texts))}
    store = ResponseCache(config.cache or default_cache_path())
    try:
        judged, run, decider, prior, with_prior = await _judge_turns(
            golden, traced, traces, texts, unjudged, judge, planned, store, config
        )
    finally:
        store.close()
    timings["judge_s"] = time.perf_counter() - t0

    rows = case_rows.build(flat, traces, judged, decider, retrieval, {}, unjudged)
    candidates = {r.case_id for r in rows if r.label in (Label.RETRIEVAL, Label.RANKING)}
    probes = {}
    if flat.corpus:
        probes = probe_rewrites(golden, traced, candidates, flat.corpus, config.probe_k)
    elif any(t.rewritten_query for t in traced.values()):
        warnings.append(
            "REWRITE NOT TESTED: the golden set has no corpus.jsonl, and the rewrite test "
            "searches the corpus with the turn and with its rewrite; a rewrite that lost "
            "the chunk reads as retrieval or ranking"
        )
    turns = _turn_results(golden, traced, rows, judged, probes, prior, texts, with_prior)
    result = ConversationsResult(
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        config=config.public(),
        versions=versions(),
        golden=ConversationsGolden(
            source=str(config.golden),
            sha256=flat.content_hash(),
            conversations=len(golden.conversations()),
            turns=len(golden.turns),
            slice="holdout" if config.holdout else "dev" if whole.has_holdout() else "all",
        ),
        traces=TraceSource(
            source=str(config.traces), sha256=file_sha256(config.traces), format=read.format
        ),
        judge_fingerprint=run.fingerprint,
        judge_usage=run.usage,
        calibration=decider.status,
        retrieval=retrieval,
        slices=retrieval_slices(retrieval, golden),
        generation=case_rows.generation_summary(rows, list(judged.values()), decider),
        counts=turn_label_counts(turns),
        conversations=roll_up(turns, list(golden.conversations())),
        turns=turns,
        warnings=warnings + retrieval.warnings,
        mismatches={k: v for k, v in mismatches.items() if v},
    )
    timings["total_s"] = time.perf_counter() - started
    result.timings = {k: round(v, 2) for k, v in timings.items()}
    return result


async def _judge_turns(
    golden: ConversationGolden,
    traced: dict[str, TracedTurn],
    traces: dict[str, Any],
    texts: dict[str, str],
    unjudged: dict[str, str],
    judge: Judge,
    planned: Decider | None,
    store: ResponseCache,
    config: ConversationsConfig,
) -> tuple[dict[str, JudgeResult], JudgeRun, Decider, dict[str, list[PriorTurn]], set[str]]:
    """Every traced turn judged with its admissible history, one turn index at a time
    (all first turns, then all second turns...): a turn's history needs the decisions on
    the turns before it. Each turn is judged on its passages first, and again with its
    admissible history when that does not make it faithful (judge.history.
    ajudge_with_history, which calibrate's graded turns go through too). Returns the
    results, the last run (its fingerprint; usage summed over all), the decider, each
    turn's prior turns as judged and the turns whose decision rests on the history."""
    threads = golden.conversations()
    depth = max(len(turns) for turns in threads.values())
    judged: dict[str, JudgeResult] = {}
    prior: dict[str, list[PriorTurn]] = {}
    decider = planned
    usage = Usage()
    with_prior: set[str] = set()
    last: JudgeRun | None = None
    # each conversation's judged turns as later ones see them, grown one turn index at a
    # time (rebuilt from turn 1 for every turn it made the judging quadratic)
    seen: dict[str, list[PriorTurn]] = {conv: [] for conv in threads}
    for index in range(depth):
        items: list[JudgeItem] = []
        for conv, turns in threads.items():
            if index >= len(turns):
                continue
            gold = turns[index]
            if index and (before := _prior(turns[index - 1], traced, judged, decider)):
                seen[conv].append(before)
            prior[gold.case.id] = list(recent(seen[conv]))
            trace = traces.get(gold.case.id)
            if trace is None or gold.case.id in unjudged:
                continue
            chunks = tuple(ContextChunk(id=c, text=texts[c]) for c in trace.context_ids)
            items.append(JudgeItem(id=gold.case.id, question=gold.user, contexts=chunks,
                                   answer=trace.answer))  # fmt: skip
        if not items and last is not None:
            continue

        async def judge_batch(batch: list[JudgeItem]) -> list[JudgeResult]:
            nonlocal usage, last
            run = await ajudge(judge, batch, config.concurrency, store)
            usage, last = usage + run.usage, run
            return run.results

        def decide(result: JudgeResult) -> bool | None:
            nonlocal decider
            if decider is None:  # the judge's own fingerprint finds its calibration
                decider = find_decider(config.calibration, result.fingerprint)
            return decider.decide(result)

        history = {item.id: history_chunks(prior[item.id]) for item in items}
        results, rested = await ajudge_with_history(items, history, judge_batch, decide)
        judged.update(results)
        with_prior |= rested
        if decider is None and last is not None:
            decider = find_decider(config.calibration, last.fingerprint)
    assert last is not None and decider is not None  # at least one turn index was judged
    return judged, replace(last, usage=usage), decider, prior, with_prior


def _prior(
    gold: Any,
    traced: dict[str, TracedTurn],
    judged: dict[str, JudgeResult],
    decider: Decider | None,
) -> PriorTurn | None:
    """An earlier turn as later turns see it; ``None`` when it was not traced (its
    message is then unknown to the system too)."""
    turn = traced.get(gold.case.id)
    if turn is None:
        return None
    result = judged.get(gold.case.id)
    grounded = bool(result is not None and decider is not None and decider.decide(result))
    return PriorTurn(turn=gold.turn, user=turn.user, answer=turn.trace.answer, grounded=grounded)


def _turn_results(
    golden, traced, rows, judged, probes, prior, texts, with_prior
) -> list[TurnResult]:
    by_id = {r.case_id: r for r in rows}
    out = []
    for turns in golden.conversations().values():
        for gold in turns:
            case = by_id[gold.case.id]
            probe = probes.get(gold.case.id)
            label, reason = turn_label(case, probe)
            turn = traced.get(gold.case.id)
            sources = []
            result = judged.get(gold.case.id)
            passages = [ContextChunk(id=c, text=texts[c]) for c in case.context_ids if c in texts]
            if turn is not None and result is not None and result.outcome == Outcome.SCORED:
                sources = attribute(turn.trace.answer, passages, prior.get(gold.case.id, []),
                                    result)  # fmt: skip
            out.append(
                TurnResult(
                    conversation_id=gold.conversation_id,
                    turn=gold.turn,
                    standalone=gold.standalone,
                    rewritten_query=turn.rewritten_query if turn else None,
                    label=label,
                    reason=reason,
                    grounded=bool(case.faithful),
                    judged_with_history=gold.case.id in with_prior,
                    passages=passages,
                    admissible_history=list(history_chunks(prior.get(gold.case.id, []))),
                    history=history_rows(sources),
                    probe=probe,
                    case=case,
                )
            )
    return out


def run(config: ConversationsConfig) -> ConversationsResult:
    """:func:`arun` to its end."""
    return asyncio.run(arun(config))
