"""Conversation traces of every shape we read, each declared to the one format registry.

A conversation format's reader turns a file's records into conversations: ``(given
conversation id or None, [(line, turn record in our shape)], first line)``; the turns are
then validated as our own turn rows (``data/conversation_traces.py``). The four shapes
(ours, DeepEval ``ConversationalTestCase``, ragas ``MultiTurnSample``, OpenInference spans
by ``session.id``) are told apart by the records' fields
(``registry.recognise_conversations``); what each gives is in docs/conversations.md ("The
traces"). Every passage DeepEval and ragas give is the context (they keep only what the
generator read); spans give the top ``--context-k``. A ragas ``ai`` message's tool call is the
search (the rewritten query), the ``tool`` messages after it the passages, the last
``ai`` message without tool calls the answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ragtriage.data.containers import check_type
from ragtriage.data.formats import openinference as oi
from ragtriage.data.formats.base import Conversation, Format
from ragtriage.data.formats.text import normalise, text_id
from ragtriage.data.jsontext import NOT_JSON, decode_json_text
from ragtriage.data.rows import TurnRow, validated
from ragtriage.errors import InputError

__all__ = ["DEEPEVAL", "OURS", "RAGAS", "SPANS", "check_turns"]

Record = dict[str, Any]


def check_turns(keyed: Iterable[tuple[str, int, int]], path: Path, what: str = "turn") -> None:
    """``(conversation, turn, line)`` in file order: each conversation's turns must be
    ``1..n`` with none twice; a gap is refused (a missing turn is missing history, and
    the turns after it would be judged without it)."""
    seen: dict[tuple[str, int], int] = {}
    by_conv: dict[str, list[tuple[int, int]]] = {}
    for conv, turn, line in keyed:
        if (conv, turn) in seen:
            raise InputError(
                f"conversation {conv!r} {what} {turn} already on line {seen[conv, turn]}",
                path=path,
                line=line,
                field="turn",
            )
        seen[conv, turn] = line
        by_conv.setdefault(conv, []).append((turn, line))
    for conv, turns in by_conv.items():
        numbers = sorted(t for t, _ in turns)
        if numbers != list(range(1, len(numbers) + 1)):
            gap = next(n for n in range(1, len(numbers) + 2) if n not in numbers)
            last = max(turns)[1]
            raise InputError(
                f"conversation {conv!r} has turns {numbers}: turn {gap} is missing (turns "
                "must be 1, 2, ... with none left out)",
                path=path,
                line=last,
                field="turn",
            )


def _ours(records: list[tuple[int, Record]], path: Path) -> list[Conversation]:
    by_conv: dict[str, list[tuple[int, Record]]] = {}
    for line, record in records:
        row = validated(TurnRow, record, path, line)
        by_conv.setdefault(row.conversation_id, []).append((line, record))
    check_turns(((str(r["conversation_id"]), r["turn"], ln) for ln, r in records), path)
    return [
        (conv, sorted(turns, key=lambda t: t[1]["turn"]), turns[0][0])
        for conv, turns in by_conv.items()
    ]


def _deepeval(records: list[tuple[int, Record]], path: Path) -> list[Conversation]:
    out: list[Conversation] = []
    for line, record in records:
        turns = check_type(record.get("turns"), "turns", list, path, line)
        rows: list[tuple[int, Record]] = []
        for i, turn in enumerate(turns):
            check_type(turn, f"turns[{i}]", dict, path, line)
            role = turn.get("role")
            content = check_type(turn.get("content") or "", f"turns[{i}].content", str, path, line)
            if role == "user":
                rows.append((line, {"user": content, "retrieved": [], "answer": None}))
            elif role == "assistant":
                if not rows or rows[-1][1]["answer"] is not None:
                    raise InputError(
                        "an assistant turn without a user turn before it",
                        path=path, line=line, field=f"turns[{i}]",
                    )  # fmt: skip
                texts = turn.get("retrieval_context") or []
                check_type(texts, f"turns[{i}].retrieval_context", list, path, line)
                row = rows[-1][1]
                row["retrieved"] = [_passage(t, path, line, f"turns[{i}].retrieval_context")
                                    for t in texts]  # fmt: skip
                row["answer"] = content
                meta = turn.get("metadata") or {}
                if isinstance(meta, dict) and meta.get("rewritten_query") is not None:
                    row["rewritten_query"] = meta["rewritten_query"]
            else:
                raise InputError(
                    f"role must be 'user' or 'assistant', got {role!r}",
                    path=path, line=line, field=f"turns[{i}].role",
                )  # fmt: skip
        name = record.get("name")
        out.append((str(name) if name not in (None, "") else None, _all_read(rows), line))
    return out


def _ragas(records: list[tuple[int, Record]], path: Path) -> list[Conversation]:
    out: list[Conversation] = []
    for line, record in records:
        messages = check_type(record.get("user_input"), "user_input", list, path, line)
        rows: list[tuple[int, Record]] = []
        for i, message in enumerate(messages):
            field = f"user_input[{i}]"
            check_type(message, field, dict, path, line)
            kind = message.get("type")
            content = check_type(message.get("content") or "", f"{field}.content", str, path, line)
            if kind == "human":
                rows.append((line, {"user": content, "retrieved": [], "answer": None}))
                continue
            if not rows:
                raise InputError("a message before the first human message", path=path,
                                 line=line, field=field)  # fmt: skip
            row = rows[-1][1]
            if kind == "ai" and message.get("tool_calls"):
                query = _tool_query(message["tool_calls"])
                if query is not None and "rewritten_query" not in row:
                    row["rewritten_query"] = query
            elif kind == "ai":
                row["answer"] = content
            elif kind == "tool":
                row["retrieved"] += _tool_passages(content, path, line, f"{field}.content")
            else:
                raise InputError(f"unknown message type {kind!r}", path=path, line=line,
                                 field=f"{field}.type")  # fmt: skip
        out.append((None, _all_read(rows), line))
    return out


def _all_read(rows: list[tuple[int, Record]]) -> list[tuple[int, Record]]:
    """DeepEval's ``retrieval_context`` and ragas' tool passages are what the generator
    read: all of them are the turn's context, as the single-turn readers take them. The
    top ``--context-k`` instead labelled a golden passage the model read below k
    ``ranking``."""
    for _, row in rows:
        row["context_ids"] = [passage["id"] for passage in row["retrieved"]]
    return rows


def _tool_query(calls: Any) -> str | None:
    """The search the agent asked for: its first tool call's ``query`` argument, else its
    first text argument."""
    if not isinstance(calls, list) or not calls or not isinstance(calls[0], dict):
        return None
    args = calls[0].get("args") or {}
    if not isinstance(args, dict):
        return None
    if isinstance(args.get("query"), str):
        return args["query"]
    return next((v for v in args.values() if isinstance(v, str)), None)


def _tool_passages(content: str, path: Path, line: int, field: str) -> list[Record]:
    """A retriever tool's output: a JSON list of passages, else one passage of text."""
    parsed = None
    if content.lstrip().startswith("["):
        parsed = decode_json_text(content, path=path, line=line, field=field, lenient=True)
    if parsed is None or parsed is NOT_JSON or not isinstance(parsed, list):
        return [_passage(content, path, line, field)] if content.strip() else []
    return [_passage(item, path, line, field) for item in parsed]


def _passage(item: Any, path: Path, line: int, field: str) -> Record:
    """A passage as ``{id, text, score?}``: a text gets its hash id (renamed to the
    corpus id of the same text later), an object its own id."""
    if isinstance(item, str):
        return {"id": text_id(item), "text": item}
    check_type(item, field, dict, path, line)
    text = item.get("text", item.get("page_content", item.get("content", "")))
    meta = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
    given = item.get("id", meta.get("id"))
    check_type(text, f"{field}.text", str, path, line)
    out: Record = {"id": str(given) if given not in (None, "") else text_id(text), "text": text}
    score = item.get("score", meta.get("score"))
    if isinstance(score, int | float) and not isinstance(score, bool):
        out["score"] = score
    return out


def _spans(records: list[tuple[int, Record]], path: Path) -> list[Conversation]:
    """Every root trace of a session is a turn, with or without a retriever span (a turn
    answered from the history runs none), in turn order (:func:`_turn_order`)."""
    by_trace = oi.spans_by_trace(records, path)
    sessions: dict[str, list[Ordered]] = {}
    for trace, members in by_trace.items():
        session = next((str(s.attributes["session.id"]) for s in members
                        if s.attributes.get("session.id") not in (None, "")), None)  # fmt: skip
        if session is None:
            continue  # a trace of no conversation
        line = min(s.line for s in members)
        row = _span_turn(members, path, line)
        start = min((s.start for s in members if s.start is not None), default=float("inf"))
        order = (_turn_number(members, path), start, line)
        sessions.setdefault(session, []).append((trace, order, row))
    return [
        (session, _turn_order(turns), min(order[2] for _, order, _ in turns))
        for session, turns in sessions.items()
    ]


def _span_turn(members: list[oi.Span], path: Path, line: int) -> Record:
    """One trace as a turn: the user's message, the first retriever's documents (none when
    the turn ran no retriever) and the answer."""
    retrievers = [s for s in members if s.kind == "RETRIEVER"]
    anchor = retrievers[0] if retrievers else oi.root_spans(members)[0]
    user = oi.trace_query(members, anchor) or _last_user_message(members)
    if user is None:
        raise InputError("a turn's trace has no input.value", path=path, line=line,
                         field="input.value")  # fmt: skip
    docs = oi.documents(retrievers[0], path) if retrievers else []
    row: Record = {"user": user, "retrieved": docs, "answer": oi.trace_answer(members)}
    searched = oi.text_value(retrievers[0], "input") if retrievers else None
    if searched is not None and normalise(searched) != normalise(user):
        row["rewritten_query"] = searched
    return row


_USER_ROLE = re.compile(r"llm\.input_messages\.(\d+)\.message\.role$")


def _last_user_message(members: list[oi.Span]) -> str | None:
    """A trace with no chain input (a bare LLM call answering from the conversation):
    the last ``user`` message its LLM span was given."""
    for span in (s for s in members if s.kind == "LLM"):
        said = [
            (int(m[1]), span.attributes.get(f"llm.input_messages.{m[1]}.message.content"))
            for key, role in span.attributes.items()
            if (m := _USER_ROLE.match(key)) and role == "user"
        ]
        texts = [text for _, text in sorted(said) if isinstance(text, str) and text.strip()]
        if texts:
            return texts[-1]
    return None


Ordered = tuple[str, tuple[int, float, int], Record]  # trace id, (turn, start, line), turn


def _turn_order(turns: list[Ordered]) -> list[tuple[int, Record]]:
    """A session's turns in order: by the turn numbers the application set in the spans'
    metadata when every trace has one, else by parsed start time (offsets applied), then
    file line."""
    numbered = all(order[0] > 0 for _, order, _ in turns)
    turns = sorted(turns, key=lambda t: t[1] if numbered else t[1][1:])
    return [(order[2], row) for _, order, row in turns]


_TURN_KEYS = ("turn", "turn_number", "turn_index")


def _turn_number(members: list[oi.Span], path: Path) -> int:
    """The turn number an application set in a span's metadata (``metadata`` JSON or
    ``metadata.turn``; ``turn_index`` counts from 0), else 0."""
    for key, value in oi.metadata_values(members, _TURN_KEYS, path, lenient=True):
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value + 1 if key == "turn_index" else value
    return 0


OURS = Format(
    name="ragtriage-conversations",
    tool="ragtriage (one line per turn: conversation_id, turn, user, retrieved, answer)",
    recognises=lambda keys: {"conversation_id", "turn"} <= keys,
    conversations=_ours,
    what="conversation trace file",
)
DEEPEVAL = Format(
    name="deepeval-conversational",
    tool="DeepEval ConversationalTestCase (EvaluationDataset.save_as json)",
    recognises=lambda keys: "turns" in keys,
    conversations=_deepeval,
    what="DeepEval conversational test cases",
)
RAGAS = Format(
    name="ragas-multiturn",
    tool="ragas MultiTurnSample (EvaluationDataset.to_jsonl)",
    recognises=lambda keys: "user_input" in keys,
    conversations=_ragas,
    what="ragas multi-turn samples",
)
SPANS = Format(
    name="openinference-sessions",
    tool="OpenInference spans grouped by session.id",
    recognises=oi.is_openinference,
    conversations=_spans,
    renamed=False,
    what="span export of sessions",
)
