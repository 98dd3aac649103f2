"""``ragtriage conversations``: audit a multi-turn RAG system turn by turn.

The audit's engine (``flows/engine.py``) with a conversation's inputs and judging order:
the turns flattened into cases ``conversation#turn``, judged with their admissible history
one turn index at a time (:class:`TurnOrder`: an earlier answer is evidence only once it
was found faithful), plus ``rewrite`` (triage/conversations.py) and the roll-up per turn
slice and conversation.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated

from ragtriage.atomic import file_sha256
from ragtriage.calibration.record import CalibrationRecord
from ragtriage.data.conversation_traces import read_conversation_traces
from ragtriage.data.conversations import (
    ConversationGolden,
    GoldenTurn,
    TracedTurn,
    load_conversation_golden,
)
from ragtriage.data.models import DEFAULT_CONTEXT_K
from ragtriage.flows.config import MAX_RANK, Setting
from ragtriage.flows.engine import (
    Judged,
    Judging,
    Loaded,
    Ran,
    RunConfig,
    Writer,
    header,
    judge_item,
    ordered_as,
    plan_judges,
    public,
    run_command,
    run_engine,
    slice_name,
)
from ragtriage.judge.api import JudgeRun, ajudge
from ragtriage.judge.history import (
    PriorTurn,
    ajudge_with_history,
    attribute,
    history_chunks,
    recent,
)
from ragtriage.judge.types import ContextChunk, JudgeItem, JudgeResult, Outcome, Usage
from ragtriage.notices import Severity, as_notice, notice
from ragtriage.results.run import (
    ConversationsResult,
    ConversationsSettings,
    GoldenSource,
    TraceSource,
)
from ragtriage.triage.answer_matrix import answer_matrix
from ragtriage.triage.calibrated import CalibrationRecords, Decider
from ragtriage.triage.cases import label_counts
from ragtriage.triage.conversations import (
    RewriteProbe,
    TurnLabel,
    TurnResult,
    history_rows,
    probe_rewrites,
    retrieval_slices,
    roll_up,
    turn_label,
)
from ragtriage.triage.models import CaseResult, Label

__all__ = ["ConversationsConfig", "arun", "run"]


@ordered_as(ConversationsSettings)
@dataclass
class ConversationsConfig(RunConfig):
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
    holdout: Annotated[
        bool, Setting("Audit the held-back conversations (logged next to the golden set).")
    ] = False

    def public(self) -> ConversationsSettings:
        """The config as JSON values, as an audit's (``flows.engine.public``)."""
        return ConversationsSettings.model_validate(public(self))


async def arun(
    config: ConversationsConfig,
    out: Path | None = None,
    write: Writer[ConversationsResult] | None = None,
) -> ConversationsResult:
    """Judge every turn of the conversation golden set in context, and roll it up; with
    ``out``, ``write`` writes the files there (``render.writer.write_conversations``)."""
    return await run_command(lambda records: _conversations(config, records), out, write)


def run(
    config: ConversationsConfig,
    out: Path | None = None,
    write: Writer[ConversationsResult] | None = None,
) -> ConversationsResult:
    """:func:`arun` to its end."""
    return asyncio.run(arun(config, out, write))


async def _conversations(
    config: ConversationsConfig, records: CalibrationRecords
) -> tuple[ConversationsResult, CalibrationRecord | None]:
    """The result and the calibration record that decided: the inputs read, the judges
    planned, the engine in :class:`TurnOrder`, the turns' own rows."""
    started = time.perf_counter()
    golden, loaded, traced = _load(config)
    judges = plan_judges(config, records)
    order = TurnOrder(golden, traced)
    ran = await run_engine(config, judges, loaded, order)
    return _result(config, ran, order, started), ran.judged.decider.record


def _load(config: ConversationsConfig) -> tuple[ConversationGolden, Loaded, dict[str, TracedTurn]]:
    """The evaluated slice of the conversations (held-back ones are not even judged), their
    turns flattened, and that slice's traced turns (the other slice's set aside)."""
    whole = load_conversation_golden(config.golden)
    golden = whole
    if whole.has_holdout() or config.holdout:
        golden = whole.select("holdout" if config.holdout else "dev")
    flat = golden.flat()
    read = read_conversation_traces(config.traces, config.context_k, whole)
    notices = [as_notice(n, "reader") for n in read.notes]
    other = {t.case.id for t in whole.turns} - {c.id for c in flat.cases}
    if set_aside := [t for t in read.turns if t.trace.query_id in other]:
        text = (f"{len(set_aside)} traced turns of conversations outside the audited slice "
                "set aside (not scored, not listed)")  # fmt: skip
        notices.append(notice("set_aside", text, severity=Severity.INFO, turns=len(set_aside)))
    traced = {t.trace.query_id: t for t in read.turns if t.trace.query_id not in other}
    loaded = Loaded(
        scored=flat,
        golden=flat,
        read={q: t.trace for q, t in traced.items()},
        golden_source=GoldenSource(
            source=str(config.golden),
            sha256=flat.content_hash(),
            cases=len(golden.turns),
            slice=slice_name(config.holdout, whole.has_holdout()),
            conversations=len(golden.conversations()),
        ),
        trace_source=TraceSource(
            source=str(config.traces), sha256=file_sha256(config.traces), format=read.format
        ),
        notices=notices,
    )
    return golden, loaded, traced


@dataclass
class TurnOrder:
    """A conversation's judging order: every traced turn judged with its admissible
    history, one turn index at a time (all first turns, then all second turns...): a
    turn's history needs the decisions on the turns before it. Each turn is judged on its
    passages, and again with its history when that does not make it faithful
    (``judge.history.ajudge_with_history``, as calibrate's graded turns are)."""

    golden: ConversationGolden
    traced: dict[str, TracedTurn]
    prior: dict[str, list[PriorTurn]] = field(default_factory=dict)
    with_prior: set[str] = field(default_factory=set)
    # each conversation's judged turns as later ones see them, grown one turn index at a
    # time (rebuilt from turn 1 for every turn it made the judging quadratic)
    seen: dict[str, list[PriorTurn]] = field(default_factory=dict)

    # the judging so far: the results, usage over every batch, the last run (its
    # fingerprint), and the decider, found from the judge's own fingerprint
    judged: dict[str, JudgeResult] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    last: JudgeRun | None = None
    decider: Decider | None = None

    async def __call__(self, given: Judging) -> Judged:
        threads = self.golden.conversations()
        self.decider = given.judges.planned

        async def judge(batch: list[JudgeItem]) -> list[JudgeResult]:
            run = await ajudge(given.judge, batch, given.concurrency, given.store)
            self.usage, self.last = self.usage + run.usage, run
            return run.results

        def decide(result: JudgeResult) -> bool | None:
            if self.decider is None:  # the judge's own fingerprint finds its calibration
                self.decider = given.decider(result.fingerprint)
            return self.decider.decide(result)

        for index in range(max(len(turns) for turns in threads.values())):
            items = self._items(threads, index, given)
            if not items and self.last is not None:
                continue
            history = {item.id: history_chunks(self.prior[item.id]) for item in items}
            results, rested = await ajudge_with_history(items, history, judge, decide)
            self.judged.update(results)
            self.with_prior |= rested
            if self.decider is None and self.last is not None:
                self.decider = given.decider(self.last.fingerprint)
        assert self.last is not None and self.decider is not None  # one index was judged
        return Judged(replace(self.last, usage=self.usage), self.judged, self.decider)

    def _items(
        self, threads: dict[str, list[GoldenTurn]], index: int, given: Judging
    ) -> list[JudgeItem]:
        """The judge's input for each conversation's turn ``index`` (its recent prior
        turns, ``judge.history.recent``, recorded as judged so far)."""
        items = []
        for conv, turns in threads.items():
            if index >= len(turns):
                continue
            gold = turns[index]
            seen = self.seen.setdefault(conv, [])
            if index and (before := self._prior(turns[index - 1])):
                seen.append(before)
            self.prior[gold.case.id] = list(recent(seen))
            turn = self.traced.get(gold.case.id)
            if turn is None or gold.case.id in given.unjudged:
                continue
            items.append(judge_item(gold.case.id, gold.user, turn.trace, given.texts))
        return items

    def _prior(self, gold: GoldenTurn) -> PriorTurn | None:
        """An earlier turn as later turns see it; ``None`` when it was not traced (its
        message is then unknown to the system too)."""
        turn = self.traced.get(gold.case.id)
        if turn is None:
            return None
        result, decider = self.judged.get(gold.case.id), self.decider
        grounded = bool(result is not None and decider is not None and decider.decide(result))
        return PriorTurn(
            turn=gold.turn, user=turn.user, answer=turn.trace.answer, grounded=grounded
        )


def _result(
    config: ConversationsConfig, ran: Ran, order: TurnOrder, started: float
) -> ConversationsResult:
    """The header, then the turns (the engine's rows with the rewrite test and the
    history's part) and their roll-up per conversation."""
    probes, notices = _probes(config, ran, order)
    by_id = {r.case_id: r for r in ran.rows}
    threads = order.golden.conversations()
    turns = [
        _turn_result(gold, by_id[gold.case.id], ran, probes, order)
        for conversation in threads.values()
        for gold in conversation
    ]
    head = header(config, ran, started)
    head["warnings"] = head["warnings"] + notices
    return ConversationsResult(
        **head,
        slices=retrieval_slices(ran.retrieval, order.golden),
        counts=label_counts((t.label for t in turns), TurnLabel),
        answer_matrix=answer_matrix([t.case for t in turns], [t.label.value for t in turns]),
        conversations=roll_up(turns, list(threads)),
        turns=turns,
    )


def _probes(
    config: ConversationsConfig, ran: Ran, order: TurnOrder
) -> tuple[dict[str, RewriteProbe], list]:
    """The rewrite test on the turns that failed retrieval or ranking (it searches the
    golden corpus: without one it cannot run, and says so)."""
    golden, traced = order.golden, order.traced
    candidates = {r.case_id for r in ran.rows if r.label in (Label.RETRIEVAL, Label.RANKING)}
    corpus = ran.loaded.golden.corpus
    if corpus:
        return probe_rewrites(golden, traced, candidates, corpus, config.probe_k), []
    if not any(t.rewritten_query for t in traced.values()):
        return {}, []
    text = (
        "REWRITE NOT TESTED: the golden set has no corpus.jsonl, and the rewrite test "
        "searches the corpus with the turn and with its rewrite; a rewrite that lost "
        "the chunk reads as retrieval or ranking"
    )
    return {}, [notice("rewrite_not_tested", text)]


def _turn_result(
    gold: GoldenTurn, case: CaseResult, ran: Ran, probes: dict[str, RewriteProbe], order: TurnOrder
) -> TurnResult:
    """One turn's row: the case row, its turn label, and which sentences the history
    supports."""
    probe = probes.get(gold.case.id)
    turn = order.traced.get(gold.case.id)
    result = ran.judged.results.get(gold.case.id)
    texts = ran.texts
    passages = [ContextChunk(id=c, text=texts[c]) for c in case.context_ids if c in texts]
    prior = order.prior.get(gold.case.id, [])
    sources = []
    if turn is not None and result is not None and result.outcome == Outcome.SCORED:
        sources = attribute(turn.trace.answer, passages, prior, result)
    label, reason = turn_label(case, probe, sources, gold.case.id in order.with_prior)
    return TurnResult(
        conversation_id=gold.conversation_id,
        turn=gold.turn,
        standalone=gold.standalone,
        rewritten_query=turn.rewritten_query if turn else None,
        label=label,
        reason=reason,
        grounded=bool(case.faithful),
        judged_with_history=gold.case.id in order.with_prior,
        passages=passages,
        admissible_history=list(history_chunks(prior)),
        history=history_rows(sources),
        probe=probe,
        case=case,
    )
