"""Triage of conversations: one label per turn, the first failing turn per conversation.

Each turn gets the single-turn labels (triage/rules.py), judged with its admissible
history (judge/history.py), plus ``rewrite`` when the logged rewritten query is what lost
the golden chunk (:func:`probe_rewrites`). The probe retriever is the same for both
queries, so the difference is the query's and not the retriever's; the test, its
outcomes and the first failing turn are the user's manual (docs/conversations.md, the
paragraphs on ``rewrite``).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragtriage.data.conversations import ConversationGolden, TracedTurn, slice_tags
from ragtriage.data.formats.text import normalise
from ragtriage.data.models import Chunk
from ragtriage.judge.history import HISTORY_TURNS, SentenceSource
from ragtriage.judge.types import ContextChunk
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.triage.models import CaseResult, Label

__all__ = [
    "ConversationSummary",
    "HistorySentence",
    "RetrievalSlice",
    "RewriteProbe",
    "TURN_FAILURES",
    "TurnLabel",
    "TurnResult",
    "probe_rewrites",
    "retrieval_slices",
    "roll_up",
    "history_label",
    "turn_label",
]


class TurnLabel(StrEnum):
    """Exactly one per turn: the single-turn labels, and ``rewrite``."""

    PASS = "pass"
    REWRITE = "rewrite"  # the logged rewritten query lost what the turn needed
    RETRIEVAL = "retrieval"
    RANKING = "ranking"
    GENERATION = "generation"
    UNSCORED = "unscored"
    # the calibration's band left the turn's answer undecided: neither pass nor failure
    UNSURE = "unsure"


TURN_FAILURES = (TurnLabel.REWRITE, TurnLabel.RETRIEVAL, TurnLabel.RANKING, TurnLabel.GENERATION)


class RewriteProbe(BaseModel):
    """The rewrite test of one turn (module docstring)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    k: int
    """Probe depth: a golden chunk counts as found in the top ``k`` with a score above 0."""
    with_history: str
    """The probe query of the turn with its history (the user's messages joined)."""
    rewritten_query: str
    """The system's rewritten query, as logged."""
    history_rank: int | None
    """1-based probe rank of the first golden chunk for ``with_history``; null: not in the
    top ``k``."""
    rewrite_rank: int | None
    """The same for the rewritten query."""

    @property
    def lost(self) -> bool:
        return self.history_rank is not None and self.rewrite_rank is None


class HistorySentence(BaseModel):
    """A sentence of the answer whose support lies in the conversation (judge/history.py)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    sentence: str
    """The sentence (or a claims judge's claim)."""
    source: str
    """``history-supported`` (an earlier user message or grounded answer supports it) or
    ``ungrounded-history`` (only an earlier answer that was not found faithful has it)."""
    turn: int | None
    """The earlier turn it rests on."""
    alignment: float
    """Share of its content words found there (0-1)."""


class TurnResult(BaseModel):
    """One turn: the single-turn case row, its turn label and the history it was judged with."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    conversation_id: str
    """The conversation."""
    turn: int
    """The turn's number, 1 first."""
    standalone: bool
    """From the golden set: the turn makes sense without the history."""
    rewritten_query: str | None = None
    """The search query the system made of the user's message; null when none was logged."""
    label: TurnLabel
    """The turn's label: the case row's, or ``rewrite`` (module docstring)."""
    reason: str
    """Why, in one sentence."""
    grounded: bool
    """The answer was decided faithful, so later turns may rest on it."""
    judged_with_history: bool = False
    """The decision is the judge's with the admissible history in context: the passages
    alone did not make the answer faithful, and with the history they do."""
    passages: list[ContextChunk] = Field(default_factory=list)
    """The chunks passed to the generator, with their text, as the judge read them."""
    admissible_history: list[ContextChunk] = Field(default_factory=list)
    """The history the turn may rest on (ids ``history:user:T``, ``history:answer:T``):
    earlier user messages and grounded answers; ``annotate grades`` shows it."""
    history: list[HistorySentence] = Field(default_factory=list)
    """Sentences supported by the conversation rather than the passages."""
    probe: RewriteProbe | None = None
    """The rewrite test, when it ran (a rewritten query logged, the chunk not passed on)."""
    case: CaseResult
    """The flattened turn as a single-turn case (id ``conversation#turn``), judged with the
    history; its ``label`` is the single-turn label."""


class ConversationSummary(BaseModel):
    """One conversation rolled up: its turns' labels and the first failing turn."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    conversation_id: str
    """The conversation."""
    labels: list[TurnLabel]
    """The label of each turn, turn 1 first."""
    first_failing_turn: int | None
    """The earliest turn labelled retrieval, ranking, generation or rewrite; null if none."""
    first_failing_label: TurnLabel | None
    """That turn's label."""


class RetrievalSlice(BaseModel):
    """Stage 1's per-turn metrics over a slice of the turns."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    slice: str
    """``turn:1``, ``turn:2``, ``turn:3+``, ``standalone``, ``follow-up``, ``answerable``,
    ``unanswerable``."""
    n_turns: int
    """Turns in the slice (count)."""
    n_answerable: int
    """Of them, turns with a chunk judged relevant: the means are over these."""
    means: dict[str, float | None]
    """Metric -> mean over the slice's answerable turns (null with none); the per-turn
    values are the report's ``per_query``, trec_eval's on the flattened turns."""


def _first_rank(hits: Sequence[Any], expected: set[str]) -> int | None:
    for rank, hit in enumerate(hits, start=1):
        if hit.id in expected and hit.score > 0:
            return rank
    return None


def probe_rewrites(
    golden: ConversationGolden,
    traced: dict[str, TracedTurn],
    candidates: set[str],
    corpus: dict[str, Chunk],
    k: int,
) -> dict[str, RewriteProbe]:
    """The rewrite test (module docstring) of each turn id in ``candidates`` that logged
    a rewrite differing from its message."""
    from ragtriage.retrieval.retrievers import BM25Retriever

    wanted: list[tuple[str, str, str, set[str]]] = []
    for turns in golden.conversations().values():
        for i, gold in enumerate(turns):
            turn = traced.get(gold.case.id)
            if gold.case.id not in candidates or turn is None or not turn.rewritten_query:
                continue
            if normalise(turn.rewritten_query) == normalise(turn.user):
                continue
            # the turn and the history it is judged with (judge.history.recent)
            history = "\n".join(t.user for t in turns[max(0, i - HISTORY_TURNS) : i + 1])
            wanted.append((gold.case.id, history, turn.rewritten_query, set(gold.case.expected())))
    if not wanted:
        return {}
    retriever = BM25Retriever(corpus)
    queries = [q for _, history, rewrite, _ in wanted for q in (history, rewrite)]
    hits = retriever.search_many(queries, k)
    out: dict[str, RewriteProbe] = {}
    for n, (case_id, history, rewrite, expected) in enumerate(wanted):
        out[case_id] = RewriteProbe(
            k=k,
            with_history=history,
            rewritten_query=rewrite,
            history_rank=_first_rank(hits[2 * n], expected),
            rewrite_rank=_first_rank(hits[2 * n + 1], expected),
        )
    return out


def turn_label(
    case: CaseResult,
    probe: RewriteProbe | None,
    sources: Sequence[SentenceSource] = (),
    with_history: bool = False,
) -> tuple[TurnLabel, str]:
    """The turn's label: the history's when it decides the turn (:func:`history_label`),
    else ``rewrite`` when the probe shows the rewrite lost the chunk of a turn that failed
    before the generator, else the case's own label and reason."""
    decided = history_label(case, sources, with_history)
    if decided is not None:
        return decided
    if probe is not None and probe.lost and case.label in (Label.RETRIEVAL, Label.RANKING):
        return TurnLabel.REWRITE, (
            f"the rewritten query lost what the turn needed: with its history the turn finds "
            f"a golden chunk at probe rank {probe.history_rank}, the rewrite "
            f"{probe.rewritten_query!r} none in the top {probe.k} (the system: {case.reason})"
        )
    return TurnLabel(case.label.value), case.reason


def history_label(
    case: CaseResult, sources: Sequence[SentenceSource], with_history: bool
) -> tuple[TurnLabel, str] | None:
    """A turn its passages do not answer (``retrieval``, ``ranking``: it ran no retrieval
    or found nothing) that the conversation decides, both ways: its answer, judged with
    the admissible history, is faithful -> ``pass`` (answered from what earlier turns
    grounded or the user said: no retrieval was needed); it repeats an earlier answer
    that was not grounded -> ``generation`` (the unsupported claim carried on). ``None``
    when the history decides nothing."""
    if case.label not in (Label.RETRIEVAL, Label.RANKING):
        return None
    where = "ran no retrieval" if not case.retrieved_ids else "found no relevant chunk"
    if with_history and case.faithful:
        turns = sorted({s.turn for s in sources if s.source == "history-supported" and s.turn})
        rest = f"turn {', '.join(map(str, turns))} of" if turns else "earlier turns of"
        return TurnLabel.PASS, (
            f"the turn {where}, and its answer rests on {rest} the conversation, which "
            "grounded it (history-supported)"
        )
    repeated = [s for s in sources if s.source == "ungrounded-history"]
    if repeated and case.faithful is False:
        first = repeated[0]
        return TurnLabel.GENERATION, (
            f"the turn {where} and repeats turn {first.turn}'s answer, which no passage "
            f"grounded: {first.sentence!r}"
        )
    return None


def history_rows(sources: Sequence[SentenceSource]) -> list[HistorySentence]:
    return [
        HistorySentence(sentence=s.sentence, source=s.source, turn=s.turn, alignment=s.alignment)
        for s in sources
        if s.source != "context"
    ]


def roll_up(turns: Sequence[TurnResult], order: Sequence[str]) -> list[ConversationSummary]:
    by_conv: dict[str, list[TurnResult]] = {}
    for turn in turns:
        by_conv.setdefault(turn.conversation_id, []).append(turn)
    out = []
    for conv in order:
        rows = sorted(by_conv.get(conv, []), key=lambda t: t.turn)
        failing = next((t for t in rows if t.label in TURN_FAILURES), None)
        out.append(
            ConversationSummary(
                conversation_id=conv,
                labels=[t.label for t in rows],
                first_failing_turn=failing.turn if failing else None,
                first_failing_label=failing.label if failing else None,
            )
        )
    return out


def retrieval_slices(report: RetrievalReport, golden: ConversationGolden) -> list[RetrievalSlice]:
    """The per-turn metrics (``report.per_query``, one row per scored turn) averaged over
    each slice's answerable turns."""
    per_query = report.per_query
    order = ("turn:1", "turn:2", "turn:3+", "standalone", "follow-up", "answerable",
             "unanswerable")  # fmt: skip
    members: dict[str, list[tuple[str, bool]]] = {name: [] for name in order}
    for turn in golden.turns:
        answerable = turn.case.answerable(report.config.relevance_level)
        kind = "answerable" if answerable else "unanswerable"
        for name in (*slice_tags(turn.turn, turn.standalone), kind):
            members[name].append((turn.case.id, answerable))
    out = []
    for name in (name for name in order if members[name]):
        ids = [q for q, answerable in members[name] if answerable and q in per_query.index]
        means = {
            str(m): (float(per_query.loc[ids, m].mean()) if ids else None)
            for m in per_query.columns
        }
        out.append(
            RetrievalSlice(
                slice=name,
                n_turns=len(members[name]),
                n_answerable=sum(a for _, a in members[name]),
                means=means,
            )
        )
    return out
