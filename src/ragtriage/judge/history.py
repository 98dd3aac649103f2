"""Judging a turn of a conversation with its history as evidence.

A chat assistant answers from its passages *and* the conversation so far ("Your N4-300 has
four bays" after the user said they own one). So a turn whose passages do not make a
scored answer faithful is judged again with the **admissible history**: earlier user
messages, and earlier answers the same judge and rule found faithful (*grounded*), turn by
turn in order (docs/conversations.md, 'Judging with the history'). An ungrounded answer is
no evidence: a turn that repeats it repeats an unsupported claim. Passages first, not
together: an earlier answer's wording could veto a sentence its passages support.

The history is the last :data:`HISTORY_TURNS` turns (issue 52 item 6): the whole history
made each turn's work grow with the conversation, quadratic in all
(``benchmarks/results/conversation_scale.txt``). It enters the judge as context chunks
``history:user:T`` and ``history:answer:T`` (T the earlier turn's number) after the turn's
own passages, so every strategy judges against it unchanged; :func:`attribute` marks each
sentence ``history-supported``, ``context`` or ``ungrounded-history``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from ragtriage.judge.alignment import stems, window_terms
from ragtriage.judge.lexical import claim_sentences
from ragtriage.judge.types import ContextChunk, JudgeItem, JudgeResult, Outcome

__all__ = [
    "HISTORY",
    "HISTORY_TURNS",
    "PriorTurn",
    "SentenceSource",
    "ajudge_with_history",
    "attribute",
    "history_chunks",
    "is_history",
    "judge_with_history",
    "recent",
    "split_history",
    "with_history",
]

Decide = Callable[[JudgeResult], bool | None]  # the decision rule: faithful, not, undecided

HISTORY = "history:"
# the earlier turns a turn is judged with: longer than the chats seen (a few to 20 turns),
# and a bound on each turn's work, so a conversation is audited in linear time
HISTORY_TURNS = 20
SOURCES = ("context", "history-supported", "ungrounded-history")


@dataclass(frozen=True)
class PriorTurn:
    """An earlier turn as the judge of a later one sees it."""

    turn: int
    user: str
    answer: str
    grounded: bool  # the answer was decided faithful to its own evidence


@dataclass(frozen=True)
class SentenceSource:
    """One answer sentence and where its support lies (module docstring)."""

    sentence: str
    source: str  # one of SOURCES
    turn: int | None = None  # the history turn it rests on, if any
    alignment: float = 0.0  # share of its content words found in that evidence


def is_history(chunk_id: str) -> bool:
    return chunk_id.startswith(HISTORY)


def recent(prior: Sequence[PriorTurn]) -> Sequence[PriorTurn]:
    """The last :data:`HISTORY_TURNS` earlier turns: the history a turn is judged with."""
    return prior[-HISTORY_TURNS:]


def history_chunks(prior: Sequence[PriorTurn]) -> tuple[ContextChunk, ...]:
    """The admissible history: every user message, the grounded answers only, of the
    recent turns."""
    out: list[ContextChunk] = []
    for turn in recent(prior):
        out.append(ContextChunk(id=f"{HISTORY}user:{turn.turn}", text=turn.user))
        if turn.grounded and turn.answer.strip():
            out.append(ContextChunk(id=f"{HISTORY}answer:{turn.turn}", text=turn.answer))
    return tuple(out)


def with_history(item: JudgeItem, prior: Sequence[PriorTurn]) -> JudgeItem:
    """The judge's input for a turn: its passages, then the admissible history."""
    return item.model_copy(update={"contexts": item.contexts + history_chunks(prior)})


def split_history(item: JudgeItem) -> tuple[JudgeItem, tuple[ContextChunk, ...]]:
    """``item`` with its passages only, and the history chunks it carried (a graded turn
    carries both, history last: ``annotate grades`` writes them so)."""
    passages = tuple(c for c in item.contexts if not is_history(c.id))
    history = tuple(c for c in item.contexts if is_history(c.id))
    return item.model_copy(update={"contexts": passages}), history


def _again(
    items: Sequence[JudgeItem],
    first: Mapping[str, JudgeResult],
    history: Mapping[str, Sequence[ContextChunk]],
    decide: Decide,
) -> list[JudgeItem]:
    """The turns to judge again with their history: a scored answer the passages alone
    do not make faithful, with some admissible history to add."""
    return [
        item.model_copy(update={"contexts": item.contexts + tuple(history[item.id])})
        for item in items
        if history.get(item.id) and first[item.id].outcome == Outcome.SCORED
        and decide(first[item.id]) is not True
    ]  # fmt: skip


def _kept(
    first: dict[str, JudgeResult], again: Sequence[JudgeResult], decide: Decide
) -> tuple[dict[str, JudgeResult], set[str]]:
    """The history only adds support (module doc): a result with it replaces the
    passages' one only when it is decided faithful."""
    kept = {r.item_id for r in again if decide(r) is True}
    return {**first, **{r.item_id: r for r in again if r.item_id in kept}}, kept


async def ajudge_with_history(
    items: Sequence[JudgeItem],
    history: Mapping[str, Sequence[ContextChunk]],
    judge: Callable[[list[JudgeItem]], Awaitable[Sequence[JudgeResult]]],
    decide: Decide,
) -> tuple[dict[str, JudgeResult], set[str]]:
    """Each turn judged on its passages (``items``), then again with its admissible
    ``history`` (item id -> chunks) when that does not make it faithful by ``decide``
    (module docstring). ``ragtriage conversations`` and ``calibrate`` on graded turns both
    judge through here, so a graded turn gets the verdict the command gives it. Returns
    every result by item id and the ids whose result rests on the history."""
    first = {r.item_id: r for r in await judge(list(items))}
    again = _again(items, first, history, decide)
    return _kept(first, await judge(again), decide) if again else (first, set())


def judge_with_history(
    items: Sequence[JudgeItem],
    history: Mapping[str, Sequence[ContextChunk]],
    judge: Callable[[list[JudgeItem]], Sequence[JudgeResult]],
    decide: Decide,
) -> tuple[dict[str, JudgeResult], set[str]]:
    """:func:`ajudge_with_history` with a judge that is not a coroutine (``calibrate``'s)."""
    first = {r.item_id: r for r in judge(list(items))}
    again = _again(items, first, history, decide)
    return _kept(first, judge(again), decide) if again else (first, set())


def _turn_of(chunk_id: str) -> int:
    return int(chunk_id.rsplit(":", 1)[1])


def attribute(
    answer: str,
    passages: Sequence[ContextChunk],
    prior: Sequence[PriorTurn],
    result: JudgeResult | None = None,
) -> list[SentenceSource]:
    """Where each sentence of ``answer`` finds its support. A claims judge's citations
    decide when it cited a history chunk for a claim; otherwise the sentence's best
    alignment against the passages, the admissible history and the excluded (ungrounded)
    answers is compared: a strictly better match in history wins."""
    cited = _cited_history(result)
    admissible = history_chunks(prior)
    excluded = tuple(
        ContextChunk(id=f"{HISTORY}answer:{t.turn}", text=t.answer)
        for t in recent(prior)
        if not t.grounded and t.answer.strip()
    )
    out: list[SentenceSource] = []
    # a claims judge's claims are what it judged; the other judges judge sentences
    claims = [c.text for c in result.claims] if result and any(
        c.verdict is not None for c in result.claims) else claim_sentences(answer)  # fmt: skip
    for sentence in claims:
        if sentence in cited:
            out.append(SentenceSource(sentence, "history-supported", cited[sentence], 1.0))
            continue
        own = _best(sentence, passages)
        good = _best(sentence, admissible)
        bad = _best(sentence, excluded)
        if own is None:
            continue  # no content words: nothing to attribute
        if good is not None and good[0] > own[0] and good[0] >= (bad[0] if bad else 0.0):
            out.append(SentenceSource(sentence, "history-supported", good[1], good[0]))
        elif bad is not None and bad[0] > own[0] and bad[0] > (good[0] if good else 0.0):
            out.append(SentenceSource(sentence, "ungrounded-history", bad[1], bad[0]))
        else:
            out.append(SentenceSource(sentence, "context", None, own[0]))
    return out


def _best(sentence: str, chunks: Sequence[ContextChunk]) -> tuple[float, int | None] | None:
    """``(alignment, history turn)`` of the chunk aligning best with ``sentence``;
    ``None`` when the sentence has no content words. One chunk at a time, so the turn
    it rests on is known (``align_sentence``'s alignment of a one-chunk pool, from each
    chunk's window terms computed once: the BM25 ranking it also does is not needed)."""
    wanted = set(stems(sentence))
    if not wanted:
        return None
    best: tuple[float, int | None] | None = None
    for chunk in chunks or (ContextChunk(id="none", text=""),):
        shared = max((len(wanted & terms) for terms in window_terms(chunk.text)), default=0)
        turn = _turn_of(chunk.id) if is_history(chunk.id) else None
        if best is None or shared / len(wanted) > best[0]:
            best = (shared / len(wanted), turn)
    return best


def _cited_history(result: JudgeResult | None) -> dict[str, int]:
    """Claims a claims judge supported by citing a history chunk, with its turn."""
    if result is None:
        return {}
    out: dict[str, int] = {}
    for claim in result.claims:
        ids = [c for c in claim.chunk_ids if is_history(c)]
        if ids and claim.verdict == "supported" and len(ids) == len(claim.chunk_ids):
            out[claim.text] = _turn_of(ids[0])
    return out
