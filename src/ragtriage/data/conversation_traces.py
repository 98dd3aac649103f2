"""Conversation traces from the files users have, as :class:`TracedTurn` rows.

Four shapes, told apart by the records' fields (first record decides, every record must
agree):

* **ours** (JSONL/JSON): one record per turn, ``conversation_id``, ``turn``, ``user``,
  ``rewritten_query`` (optional), ``retrieved``, ``context_ids`` or ``context_k``,
  ``answer`` (data/conversations.py).
* **DeepEval** ``ConversationalTestCase`` (``EvaluationDataset.save_as("json")`` of
  conversational test cases, or ``model_dump`` of each, one per line): ``turns`` of
  ``{role, content, retrieval_context}``. Each ``user`` turn opens a turn; the next
  ``assistant`` turn is its answer and its ``retrieval_context`` the ranked passages
  (the context: DeepEval does not say which reached the prompt). The conversation id is
  ``name``; a rewritten query may be logged in the assistant turn's
  ``metadata.rewritten_query``.
* **ragas** ``MultiTurnSample`` (``EvaluationDataset.to_jsonl``): ``user_input`` is the
  message list. Each ``human`` message opens a turn; an ``ai`` message's tool call is
  the search the agent made (its ``query`` argument, else its first text argument, is
  the rewritten query); the ``tool`` messages after it are the retrieved passages (a
  JSON list of texts or ``{id|metadata.id, text|page_content}`` objects, else one
  passage); the last ``ai`` message without tool calls is the answer. No conversation id.
* **OpenInference spans** (data/formats/openinference.py layouts): each trace is a turn
  (its query, retriever documents and answer read as for single-turn spans), grouped by
  the ``session.id`` attribute and ordered by start time (file order without one); the
  retriever span's own input, when it differs from the user's message, is the rewritten
  query (a history-aware retriever searches with the rewrite).

Passages known only by text get their corpus id when the corpus has the same text,
else a hash id (counted in a note). A conversation without an id of the golden set is
matched to the golden conversation asking the same user messages (normalised text,
data/formats/text.py); one matching none is set aside and listed in a note.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragtriage.data.containers import check_type, iter_records, require
from ragtriage.data.conversations import (
    ConversationGolden,
    TracedTurn,
    TurnRecords,
    check_turns,
    rewritten,
    turn_id,
)
from ragtriage.data.formats import openinference as oi
from ragtriage.data.formats.detect import corpus_ids
from ragtriage.data.formats.text import normalise, query_key, text_id
from ragtriage.data.jsontext import NOT_JSON, decode_json_text
from ragtriage.data.models import GoldenSet
from ragtriage.data.traces import parse_trace
from ragtriage.errors import InputError

__all__ = ["FORMATS", "Conversation", "detect", "read_conversation_traces"]

Record = dict[str, Any]
# (given conversation id or None, [(line, turn record in our shape)], first line)
Conversation = tuple[str | None, list[tuple[int, Record]], int]


def _ours(records: list[tuple[int, Record]], path: Path) -> list[Conversation]:
    by_conv: dict[str, list[tuple[int, Record]]] = {}
    for line, record in records:
        conv = str(require(record, "conversation_id", (str, int), path, line))
        turn = require(record, "turn", int, path, line)
        if isinstance(turn, bool) or turn < 1:
            raise InputError("must be an integer >= 1", path=path, line=line, field="turn")
        require(record, "user", str, path, line)
        by_conv.setdefault(conv, []).append((line, record))
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
        out.append((str(name) if name not in (None, "") else None, rows, line))
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
        out.append((None, rows, line))
    return out


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
    starts: dict[str, str] = {}
    for _, span_row in records:
        context = span_row["context"] if isinstance(span_row.get("context"), dict) else {}
        trace = span_row.get("context.trace_id", context.get("trace_id"))
        start = span_row.get("start_time")
        if trace is not None and isinstance(start, str):
            starts[str(trace)] = min(starts.get(str(trace), start), start)
    by_trace: dict[str, list[oi.Span]] = {}
    for span in oi.spans(records, path):
        by_trace.setdefault(span.trace_id, []).append(span)
    sessions: dict[str, list[tuple[str, int, Record]]] = {}
    for trace, members in by_trace.items():
        retrievers = [s for s in members if s.kind == "RETRIEVER"]
        session = next((str(s.attributes["session.id"]) for s in members
                        if s.attributes.get("session.id") not in (None, "")), None)  # fmt: skip
        if not retrievers or session is None:
            continue  # counted below: a trace of no conversation
        docs, _ = oi.documents(retrievers[0], path)
        user = oi.trace_query(members, retrievers[0])
        answer = oi.trace_answer(members)
        if user is None:
            raise InputError("a turn's trace has no input.value", path=path,
                             line=retrievers[0].line, field="input.value")  # fmt: skip
        row: Record = {"user": user, "retrieved": docs, "answer": answer}
        searched = oi.text_value(retrievers[0], "input")
        if searched is not None and normalise(searched) != normalise(user):
            row["rewritten_query"] = searched
        line = min(s.line for s in members)
        sessions.setdefault(session, []).append((starts.get(trace, ""), line, row))
    out: list[Conversation] = []
    for session, turns in sessions.items():
        turns.sort(key=lambda t: (t[0], t[1]))
        out.append((session, [(ln, row) for _, ln, row in turns], turns[0][1]))
    return out


def _is_ours(keys: set[str]) -> bool:
    return {"conversation_id", "turn"} <= keys


def _is_deepeval(keys: set[str]) -> bool:
    return "turns" in keys


def _is_ragas(keys: set[str]) -> bool:
    return "user_input" in keys


FORMATS: dict[str, tuple[Callable[[set[str]], bool],
                         Callable[[list[tuple[int, Record]], Path], list[Conversation]]]] = {
    "ragtriage-conversations": (_is_ours, _ours),
    "deepeval-conversational": (_is_deepeval, _deepeval),
    "ragas-multiturn": (_is_ragas, _ragas),
    "openinference-sessions": (oi.is_openinference, _spans),
}  # fmt: skip


def detect(records: list[tuple[int, Record]], path: Path) -> str:
    """The format name of the records, by their fields (module docstring)."""
    if not records:
        raise InputError("trace file is empty", path=path)
    line, first = records[0]
    keys = set(first)
    for name, (recognises, _) in FORMATS.items():
        if recognises(keys):
            return name
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
    records = list(iter_records(path))
    fmt = detect(records, path)
    conversations = FORMATS[fmt][1](records, path)
    notes: list[str] = []
    if fmt == "openinference-sessions" and not conversations:
        raise InputError(
            "no trace with a RETRIEVER span and a session.id: spans of a chat app carry "
            "session.id (openinference using_session)",
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
    if fmt != "ragtriage-conversations":
        hashed = sum(t.trace.retrieved[i].id.startswith("h:") for t in turns
                     for i in range(len(t.trace.retrieved)))  # fmt: skip
        if hashed:
            notes.append(f"{path}: {hashed} retrieved passages known only by text match no "
                         "corpus text; their ids are hashes of the normalised text")  # fmt: skip
    return TurnRecords(turns=turns, format=fmt, notes=notes)


def _same_messages(
    turns: list[TracedTurn], golden: ConversationGolden
) -> tuple[list[TracedTurn], str | None]:
    """The traced turns whose user message is the golden turn's, and a note naming those
    set aside: a trace matched by conversation id whose turn 2 asked something else was
    judged as golden turn 2 without a word (issue 52 item 5a). Set aside, such a turn
    reads as untraced (unscored), not as an answer to a question it was not asked."""
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
    query = rewritten(record, path, line)
    if query is not None and normalise(query) == normalise(record["user"]):
        query = None  # searching with the message itself is no rewrite
    return TracedTurn(
        conversation_id=conv,
        turn=turn,
        user=record["user"],
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
