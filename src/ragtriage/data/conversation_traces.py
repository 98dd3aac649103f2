"""Conversation traces from the files users have, as :class:`TracedTurn` rows.

Every shape is declared in ``data/formats/conversations.py`` and recognised by the one
registry (``registry.recognise_conversations``); its reader gives conversations of turn
records in our shape, validated here into traced turns. Passages known only by text get
their corpus id when the corpus has the same text. A conversation without an id of the
golden set is matched to the golden conversation asking the same user messages (normalised
text); one matching none is set aside and listed in a note.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragtriage.data.containers import read_table
from ragtriage.data.conversations import (
    ConversationGolden,
    TracedTurn,
    TurnRecords,
    turn_id,
)
from ragtriage.data.formats.base import Conversation, Format
from ragtriage.data.formats.conversations import SPANS
from ragtriage.data.formats.detect import corpus_ids
from ragtriage.data.formats.registry import recognise_conversations
from ragtriage.data.formats.text import normalise, query_key
from ragtriage.data.models import GoldenSet
from ragtriage.data.rows import TurnRow, validated
from ragtriage.data.traces import parse_trace
from ragtriage.errors import InputError

__all__ = ["detect", "read_conversation_traces"]

Record = dict[str, Any]


# fields of the single-turn shapes the libraries write -> what the file is, in words
SINGLE_TURN = {
    frozenset({"query_id", "retrieved"}): "a single-turn trace file (ours)",
    frozenset({"user_input", "retrieved_contexts"}): "a ragas single-turn dataset",
    frozenset({"input", "actual_output"}): "a DeepEval single-turn dataset (LLMTestCase)",
    frozenset({"input", "expected_output"}): "a DeepEval single-turn dataset (Golden)",
    frozenset({"question", "answer"}): "a single-turn question-answer table",
}


def detect(records: list[tuple[int, Record]], path: Path) -> Format:
    if not records:
        raise InputError("trace file is empty", path=path)
    line, first = records[0]
    keys = set(first)
    fmt = recognise_conversations(records)
    if fmt is not None:
        return fmt
    if (what := next((w for need, w in SINGLE_TURN.items() if need <= keys), None)) is not None:
        raise InputError(
            f"this is {what}, one answer per question, not conversations: give it to "
            "audit --traces (with the golden set of its questions)",
            path=path,
            line=line,
        )
    raise InputError(
        "not a conversation trace: expected our turns (conversation_id, turn), DeepEval "
        "conversational test cases (turns), ragas multi-turn samples (user_input) or "
        f"OpenInference spans; found fields {sorted(keys)[:8]}",
        path=path,
        line=line,
    )


def read_conversation_traces(
    path: str | Path, default_k: int, golden: ConversationGolden
) -> TurnRecords:
    """Every traced turn of a file matched to the golden conversations, with notes."""
    path = Path(path)
    # any container: the libraries write CSV, Parquet and HF save_to_disk folders too
    records = read_table(path).rows
    fmt = detect(records, path)
    conversations = fmt.conversations(records, path)  # type: ignore[misc]
    notes: list[str] = []
    if fmt is SPANS and not conversations:
        raise InputError(
            "no trace with a session.id: spans of a chat app carry session.id "
            "(openinference using_session)",
            path=path,
        )
    flat = _with_corpus_ids(conversations, golden, notes, path)
    matched, unmatched = _match(flat, golden)
    if unmatched:
        notes.append(f"{path}: {len(unmatched)} traced conversations match no golden "
                     f"conversation, set aside: {', '.join(unmatched[:5])}")  # fmt: skip
    turns: list[TracedTurn] = []
    for conv, rows, _ in matched:
        for n, (line, record) in enumerate(rows, start=1):
            turns.append(_turn(str(conv), n, record, path, line, default_k))
    turns, differ = _same_messages(turns, golden)
    if differ:
        notes.append(differ)
    if fmt.name != "ragtriage-conversations":
        hashed = sum(c.id.startswith("h:") for t in turns for c in t.trace.retrieved)
        if hashed:
            notes.append(f"{path}: {hashed} retrieved passages known only by text match no "
                         "corpus text; their ids are hashes of the normalised text")  # fmt: skip
    return TurnRecords(turns=turns, format=fmt.name, notes=notes)


def _same_messages(
    turns: list[TracedTurn], golden: ConversationGolden
) -> tuple[list[TracedTurn], str | None]:
    """The traced turns whose user message is the golden turn's, and a note naming those
    set aside: such a turn reads as untraced (unscored), not as an answer to a question it
    was not asked."""
    gold = {t.case.id: t.user for t in golden.turns}
    kept, differ = [], []
    for turn in turns:
        asked = gold.get(turn.trace.query_id)
        if asked is None or normalise(asked) == normalise(turn.user):
            kept.append(turn)
        else:
            differ.append(f"{turn.trace.query_id} (line {turn.line}: {turn.user[:60]!r}, "
                          f"golden: {asked[:60]!r})")  # fmt: skip
    if not differ:
        return kept, None
    # notice code turn_mismatch (ragtriage.notices.CODES)
    return kept, (
        f"TURN MISMATCH: {len(differ)} traced turns ask another user message than the golden "
        f"turn of the same number, set aside (unscored): {'; '.join(differ[:3])}"
    )


def _turn(conv: str, n: int, record: Record, path: Path, line: int, k: int) -> TracedTurn:
    turn = record.get("turn", n)
    if record.get("answer") is None:
        raise InputError("a turn without the system's answer", path=path, line=line,
                         field="answer")  # fmt: skip
    trace = parse_trace({**record, "query_id": turn_id(conv, turn)}, path, line, k)
    row = validated(TurnRow, {**record, "conversation_id": conv, "turn": turn}, path, line)
    query = row.rewritten_query
    if query is not None and normalise(query) == normalise(row.user):
        query = None  # searching with the message itself is no rewrite
    return TracedTurn(
        conversation_id=conv,
        turn=turn,
        user=row.user,
        rewritten_query=query,
        trace=trace,
        line=line,
    )


def _with_corpus_ids(
    conversations: list[Conversation], golden: ConversationGolden, notes: list[str], path: Path
) -> list[Conversation]:
    """Passages known by text renamed to the corpus id of the same text (detect.corpus_ids)."""
    if golden.corpus is None:
        return conversations
    shell = GoldenSet(cases=[], corpus=golden.corpus)
    out: list[Conversation] = []
    renamed = 0
    for conv, rows, line in conversations:
        fixed, n = corpus_ids(rows, shell)
        renamed += n
        out.append((conv, fixed, line))
    if renamed:
        notes.append(f"{path}: {renamed} passages known only by text given the corpus id of "
                     "the same text")  # fmt: skip
    return out


def _match(
    conversations: list[Conversation], golden: ConversationGolden
) -> tuple[list[Conversation], list[str]]:
    """Conversations with the golden id each belongs to: its own when the golden set has
    it, else the golden conversation whose user messages are the same, in order."""
    threads = golden.conversations()
    by_messages = {
        tuple(normalise(t.user) for t in turns): conv for conv, turns in reversed(threads.items())
    }
    matched: list[Conversation] = []
    unmatched: list[str] = []
    taken: set[str] = set()
    for given, rows, line in conversations:
        messages = tuple(normalise(r["user"]) for _, r in rows)
        conv = given if given in threads else by_messages.get(messages)
        if conv is None or conv in taken:
            unmatched.append(given or query_key(" ".join(messages)))
            continue
        taken.add(conv)
        matched.append((conv, rows, line))
    return matched, unmatched
