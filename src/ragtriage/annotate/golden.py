"""Golden-set labelling: what a page shows for each query, what a mark means, the file.

A record per query: ``relevance`` (chunk id -> grade; binary marks are 1, graded 0-3),
``unanswerable`` (nothing in the corpus answers it: ``expected: []``), ``tags``,
``skipped``, ``note``, ``reference_answer``, ``added`` (chunks the person pulled in from
the keyword search, so they stay in the pool on return) and ``seconds`` spent on it. The
output holds the labelled cases only (:func:`is_labelled`), in sample order, in the
golden-set format (docs/golden-sets.md, 'Label in the browser').
"""

from __future__ import annotations

from typing import Any

from ragtriage.annotate import fields
from ragtriage.annotate.pool import Corpus, interleave
from ragtriage.annotate.queries import Query
from ragtriage.annotate.store import SessionStore, StoredTask, jsonl, pace
from ragtriage.errors import InputError

__all__ = [
    "AWKWARD_TAGS",
    "GoldenTask",
    "COMFORTABLE",
    "TARGET",
    "coverage",
    "is_labelled",
    "render_golden",
    "golden_row",
]

TARGET = 50  # cases for a useful golden set
COMFORTABLE = 100
AWKWARD_TAGS = ("paraphrase", "product-code", "multi-section", "unanswerable")


def is_labelled(record: dict[str, Any]) -> bool:
    if record.get("skipped"):
        return False
    return bool(record.get("unanswerable")) or any(
        g >= 1 for g in record.get("relevance", {}).values()
    )


def golden_row(query: dict[str, Any], record: dict[str, Any], graded: bool, source: str) -> dict:
    """One case in the golden-set format; tags ``unanswerable`` when it is."""
    relevance = {} if record.get("unanswerable") else dict(record.get("relevance", {}))
    tags = list(dict.fromkeys(record.get("tags", [])))
    if record.get("unanswerable") and "unanswerable" not in tags:
        tags.append("unanswerable")
    row: dict[str, Any] = {
        "id": query["id"],
        "query": query["text"],
        "expected": [doc for doc, grade in relevance.items() if grade >= 1],
    }
    if graded and relevance:
        row["relevance_grades"] = relevance
    row["tags"] = tags
    if record.get("reference_answer"):
        row["reference_answer"] = record["reference_answer"]
    if record.get("note"):
        row["notes"] = record["note"]
    row["source"] = source
    return row


def conversation_rows(session: dict[str, Any], graded: bool, source: str) -> list[dict[str, Any]]:
    """A conversation session's file (``conversations.jsonl``): each conversation's turns
    up to its first turn not labelled (skipped or open); a later turn is left out
    because without that one its history has a gap, which the golden set refuses."""
    rows: list[dict[str, Any]] = []
    stopped: set[str] = set()
    for query in session["sample"]:
        conv = query["conversation_id"]
        record = session["records"].get(query["id"], {})
        if conv in stopped or not is_labelled(record):
            stopped.add(conv)
            continue
        case = golden_row(query, record, graded, source)
        row: dict[str, Any] = {"conversation_id": conv, "turn": query["turn"],
                               "user": query["text"]}  # fmt: skip
        row |= {k: v for k, v in case.items() if k not in ("id", "query")}
        row["standalone"] = bool(record.get("standalone", False))
        rows.append(row)
    return rows


def render_golden(session: dict[str, Any]) -> str:
    graded = bool(session["options"].get("graded"))
    source = f"annotate:{session['queries']['source']}"
    if session["options"].get("conversational"):
        return jsonl(conversation_rows(session, graded, source))
    return jsonl(
        golden_row(query, session["records"][query["id"]], graded, source)
        for query in session["sample"]
        if is_labelled(session["records"].get(query["id"], {}))
    )


def candidates(
    query: Query, corpus: Corpus, run: dict[str, list[str]], record: dict[str, Any]
) -> list[str]:
    """The pool shown for a query: BM25 and run interleaved, then chunks the person
    added or marked (a marked chunk always stays visible)."""
    pooled = interleave(corpus.bm25_ids(query.text), run.get(query.id, []))
    extra = [*record.get("added", []), *record.get("relevance", {})]
    return list(dict.fromkeys([*pooled, *(c for c in extra if c in corpus.chunks)]))


def coverage(session: dict[str, Any]) -> dict[str, Any]:
    """The coverage panel: done / target, awkward kinds, unanswerable share, pace."""
    records = session["records"]
    done = [r for r in records.values() if is_labelled(r)]
    tags = {tag: 0 for tag in AWKWARD_TAGS}
    for record in done:
        for tag in set(record.get("tags", [])) | (
            {"unanswerable"} if record.get("unanswerable") else set()
        ):
            if tag in tags:
                tags[tag] += 1
    target = TARGET if len(done) < TARGET else COMFORTABLE
    left = max(0, target - len(done))
    return {
        "done": len(done),
        "target": target,
        "comfortable": COMFORTABLE,
        "skipped": sum(bool(r.get("skipped")) for r in records.values()),
        "sample": len(session["sample"]),
        "tags": tags,
        "unanswerable_share": (tags["unanswerable"] / len(done)) if done else None,
        **pace(done, left),
    }


_GRADES = range(0, 4)


class GoldenTask(StoredTask):
    """The labelling session the page works on (see ``annotate.app.Task``)."""

    kind = "golden"

    def __init__(
        self, store: SessionStore, corpus: Corpus, run: dict[str, list[str]], command: str
    ) -> None:
        super().__init__(store, command)
        self.corpus = corpus
        self.run = run
        self.sample = [Query(q["id"], q["text"], 0) for q in store.data["sample"]]
        self.total = len(self.sample)
        # a conversation's earlier turns, shown read-only above the turn being labelled
        self.turns = [q for q in store.data["sample"] if "conversation_id" in q]

    coverage_of = staticmethod(coverage)

    def extra_state(self) -> dict[str, Any]:
        return {"awkward_tags": list(AWKWARD_TAGS)}

    def item(self, index: int) -> dict[str, Any]:
        query = self.sample[index]
        record, version = self.store.record(query.id)
        return {
            "index": index,
            "id": query.id,
            "query": query.text,
            "candidates": [
                self._chunk(c) for c in candidates(query, self.corpus, self.run, record)
            ],
            "record": record,
            "version": version,
            **self._conversation(index),
        }

    def _conversation(self, index: int) -> dict[str, Any]:
        """The turn's conversation and its history; nothing for a query log."""
        if not self.turns:
            return {}
        this = self.turns[index]
        history = [
            {"turn": q["turn"], "user": q["text"], "answer": q["answer"]}
            for q in self.turns
            if q["conversation_id"] == this["conversation_id"] and q["turn"] < this["turn"]
        ]
        return {"conversation_id": this["conversation_id"], "turn": this["turn"],
                "history": history}  # fmt: skip

    def _chunk(self, chunk_id: str) -> dict[str, str]:
        chunk = self.corpus.chunks[chunk_id]
        return {"id": chunk.id, "title": chunk.title, "text": chunk.text}

    def save(self, index: int, body: dict[str, Any]) -> dict[str, Any]:
        query = self.sample[index]
        record = self._checked(body.get("record"))
        version = self._stored(query.id, record, body, index)
        return {"version": version, "record": record, "coverage": coverage(self.store.data)}

    def search(self, text: str) -> dict[str, Any]:
        found = self.corpus.search(text)
        return {
            "results": [self._chunk(c) for c in found.ids],
            "total": found.total,
            "capped": found.capped,
        }

    def _checked(self, record: Any) -> dict[str, Any]:
        """A record as the page sent it, every field checked (the page is ours, but the
        file it writes is the user's golden set); an absent field is its empty value."""
        if not isinstance(record, dict):
            raise InputError("expected an object", field="record")
        relevance = record.get("relevance", {})
        if not isinstance(relevance, dict):
            raise InputError("expected an object", field="record.relevance")
        if len(relevance) > fields.MAX_ITEMS:
            raise InputError(
                f"expected at most {fields.MAX_ITEMS} marked chunks", field="record.relevance"
            )
        for doc, grade in relevance.items():
            if doc not in self.corpus.chunks:
                raise InputError(
                    f"no chunk {fields.encodable(doc, 'record.relevance')!r} in the corpus",
                    field="record.relevance",
                )
            if not isinstance(grade, int) or isinstance(grade, bool) or grade not in _GRADES:
                raise InputError("a grade is 0, 1, 2 or 3", field=f"record.relevance.{doc}")
        added = fields.strings(record.get("added", []), "record.added")
        tags = fields.strings(
            record.get("tags", []), "record.tags", fields.MAX_TAGS, fields.MAX_TAG
        )
        return {
            "relevance": dict(relevance),
            "unanswerable": fields.flag(record.get("unanswerable", False), "record.unanswerable"),
            "skipped": fields.flag(record.get("skipped", False), "record.skipped"),
            "standalone": fields.flag(record.get("standalone", False), "record.standalone"),
            "tags": list(dict.fromkeys(t.strip() for t in tags if t.strip())),
            "note": fields.text(record.get("note", ""), "record.note"),
            "reference_answer": fields.text(
                record.get("reference_answer", ""), "record.reference_answer"
            ),
            "added": list(dict.fromkeys(c for c in added if c in self.corpus.chunks)),
        }
