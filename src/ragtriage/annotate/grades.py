"""Answer grading: the items of an audit a person grades, what a mark means, the file.

The sample is uniform over the audit's scored answers, drawn with a recorded seed,
because PPI corrects the audit's rate only for answers drawn like the graded ones. Each
item shows the answer split into the sentences the judge checks
(:func:`ragtriage.judge.lexical.claim_sentences`), each with the passage window the
judge aligned it to (:func:`ragtriage.judge.alignment.align_sentence`). A record per
answer: ``sentences`` (one of :data:`VERDICTS` or None per sentence), ``label`` (an
override of the overall label, or None), ``answers`` (does it answer the question:
True/False/None), ``note``, ``grader`` and ``seconds``. What a mark means, and the rows
written (the format ``ragtriage calibrate`` reads), are in docs/calibration.md ('Grade in
the browser'); a row carries ``answers_question`` and, when a golden chunk was in
context, the case's ``reference_answer``, on which ``calibrate`` measures the audit's
answer check.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ragtriage.annotate import fields
from ragtriage.annotate.store import SessionStore, StoredTask, jsonl, pace
from ragtriage.calibration.grades import sha256_text
from ragtriage.errors import InputError
from ragtriage.judge.alignment import align_sentence
from ragtriage.judge.lexical import claim_sentences, split_sentences
from ragtriage.judge.types import ContextChunk, Outcome
from ragtriage.results.run import AuditResult, ConversationsResult
from ragtriage.triage.conversations import TurnResult
from ragtriage.triage.models import CaseResult

__all__ = [
    "VERDICTS",
    "AnswerItem",
    "GradesTask",
    "answer_item",
    "coverage",
    "gradable",
    "gradable_turns",
    "make_item",
    "turn_item",
    "overall",
    "render_grades",
]

VERDICTS = ("supported", "unsupported", "unsure")


@dataclass
class AnswerItem:
    id: str
    question: str
    context_ids: list[str]
    contexts: list[str]
    answer: str
    sentences: list[str]
    # per sentence: the judge's aligned window as (passage index, start, end), or None
    evidence: list[tuple[int, int, int] | None]
    judge: dict[str, Any] = field(default_factory=dict)  # shown only with --show-judge
    # the golden case's reference answer, kept only when a golden chunk was in context (as
    # the audit runs its answer check); written into the grade row, never shown: the
    # grader decides "answers the question" from the question
    reference_answer: str | None = None
    # the probability the active design drew it with (calibration.active); None: uniform
    probability: float | None = None

    def public(self) -> dict[str, Any]:
        return asdict(self)


def gradable(result: AuditResult) -> list[CaseResult]:
    """The audit's answers its faithfulness rate is computed on: those the judge scored."""
    return [c for c in result.cases if c.judge is not None and c.judge.outcome == Outcome.SCORED]


def gradable_turns(result: ConversationsResult) -> list[TurnResult]:
    """A conversations result's turns the judge scored (as :func:`gradable`)."""
    return [t for t in result.turns if t.case.judge and t.case.judge.outcome == Outcome.SCORED]


def turn_item(turn: TurnResult) -> AnswerItem:
    """The item for one turn: its passages, then its admissible history (earlier user
    messages and grounded answers, ids ``history:...``), so the grader reads what the
    turn may rest on and the grade row carries it to ``calibrate``."""
    chunks = [*turn.passages, *turn.admissible_history]
    return make_item(turn.case, {c.id: c.text for c in chunks}, [c.id for c in chunks])


def make_item(
    case: CaseResult,
    texts: dict[str, str],
    context_ids: list[str] | None = None,
    reference: str | None = None,
) -> AnswerItem:
    """The item for one audited case (as :func:`answer_item`); ``reference`` is kept only
    when an expected chunk is in the case's context."""
    judge = case.judge
    gold_in_context = bool(set(case.expected) & set(case.context_ids))
    item = answer_item(
        case.case_id,
        case.query,
        list(case.context_ids) if context_ids is None else context_ids,
        texts,
        case.answer,
        judge={
            "score": judge.score if judge else None,
            "faithful": case.faithful,
            "reason": judge.reason if judge else "",
            "claims": [
                {"text": c.text, "verdict": c.verdict.value if c.verdict else None}
                for c in (judge.claims if judge else [])
            ],
        },
    )
    item.reference_answer = reference if gold_in_context else None
    return item


def answer_item(
    item_id: str,
    question: str,
    context_ids: list[str],
    texts: dict[str, str],
    answer: str,
    judge: dict[str, Any] | None = None,
    reference: str | None = None,
) -> AnswerItem:
    """The item for one answer (audited, or read from a traces file before any audit:
    then no ``judge``); ``texts`` has every one of its context chunks; ``reference`` the
    golden case's reference answer where the caller found a golden chunk in context."""
    contexts = [texts[cid] for cid in context_ids]
    chunks = [ContextChunk(id=cid, text=t) for cid, t in zip(context_ids, contexts, strict=True)]
    sentences = claim_sentences(answer)
    return AnswerItem(
        id=item_id,
        question=question,
        context_ids=context_ids,
        contexts=contexts,
        answer=answer,
        sentences=sentences,
        evidence=[_evidence(s, chunks) for s in sentences],
        judge=judge or {},
        reference_answer=reference,
    )


def _evidence(sentence: str, chunks: list[ContextChunk]) -> tuple[int, int, int] | None:
    """Where the judge's best window for ``sentence`` lies in its passage: a window is one
    sentence of a passage or two adjacent ones joined by a space, so its first sentence
    is found verbatim and the span runs to the end of its last."""
    aligned = align_sentence(sentence, chunks)
    if aligned is None or not aligned.windows:
        return None
    window = aligned.windows[0]
    parts = split_sentences(window)
    for index, chunk in enumerate(chunks):
        start = chunk.text.find(parts[0]) if parts else -1
        if start < 0:
            continue
        end = start + len(parts[0])
        if len(parts) > 1:
            last = chunk.text.find(parts[-1], end)
            end = last + len(parts[-1]) if last >= 0 else end
        return index, start, end
    return None


def overall(record: dict[str, Any], n_sentences: int) -> bool | None:
    """The answer's label: the override, else what its sentences say (any unsupported:
    unfaithful; every one supported: faithful); None when only the override can say."""
    if record.get("label") is not None:
        return bool(record["label"])
    verdicts = list(record.get("sentences") or [])
    if "unsupported" in verdicts:  # one unsupported sentence makes the answer unfaithful
        return False
    if n_sentences and len(verdicts) == n_sentences and all(v == "supported" for v in verdicts):
        return True  # an answer without a sentence to check needs the override
    return None


def grade_row(item: dict[str, Any], record: dict[str, Any], session: dict[str, Any]) -> dict:
    verdicts = list(record.get("sentences") or [None] * len(item["sentences"]))
    return {
        "id": item["id"],
        "label": overall(record, len(item["sentences"])),
        "grader": record.get("grader", session["options"].get("grader")),
        "notes": record.get("note", ""),
        "question": item["question"],
        "contexts": item["contexts"],
        "context_ids": item["context_ids"],
        "answer": item["answer"],
        "answer_sha256": sha256_text(item["answer"]),
        "sentences": [
            {"text": s, "verdict": v} for s, v in zip(item["sentences"], verdicts, strict=False)
        ],
        "label_overridden": record.get("label") is not None,
        "answers_question": record.get("answers"),
        # what the audit's answer check reads (only with a golden chunk in context)
        **({"reference_answer": ref} if (ref := item.get("reference_answer")) else {}),
        # where the answers came from: an audit, or (--answers) a traces file
        **_origin(session),
        "sample_seed": session["sample"]["seed"],
        **({"probability": item["probability"]} if item.get("probability") else {}),
        **({"sample_design": session["sample"]["design"]} if "design" in session["sample"] else {}),
        "sample_size": len(session["items"]),
        "sample_population": session["sample"]["population"],
    }


def _origin(session: dict[str, Any]) -> dict[str, Any]:
    if "audit" in session:
        return {"audit": session["audit"]["id"], "audit_sha256": session["audit"]["sha256"]}
    return {
        "answers_file": session["answers"]["id"],
        "answers_sha256": session["answers"]["sha256"],
    }


def render_grades(session: dict[str, Any]) -> str:
    records = [(item, session["records"].get(item["id"], {})) for item in session["items"]]
    return jsonl(
        grade_row(item, record, session)
        for item, record in records
        if overall(record, len(item["sentences"])) is not None
    )


def coverage(session: dict[str, Any]) -> dict[str, Any]:
    records = [session["records"].get(item["id"], {}) for item in session["items"]]
    labels = [
        overall(record, len(item["sentences"]))
        for item, record in zip(session["items"], records, strict=True)
    ]
    done = [x for x in labels if x is not None]
    timed = [r for r, label in zip(records, labels, strict=True) if label is not None]
    return {
        "done": len(done),
        "target": len(labels),
        "faithful": sum(done),
        **pace(timed, len(labels) - len(done)),
    }


_VERDICT_SET = {*VERDICTS, None}


class GradesTask(StoredTask):
    """The grading session the page works on (see ``annotate.app.Task``)."""

    kind = "grades"

    def __init__(self, store: SessionStore, command: str) -> None:
        super().__init__(store, command)
        self.items = store.data["items"]
        self.total = len(self.items)

    coverage_of = staticmethod(coverage)

    def item(self, index: int) -> dict[str, Any]:
        item = dict(self.items[index])
        record, version = self.store.record(item["id"])
        if not self.store.data["options"].get("show_judge"):
            item.pop("judge", None)  # blind: a grader anchored on the judge measures nothing
        item.pop("reference_answer", None)  # the mark is the grader's reading, not the check's
        return {
            "index": index,
            **item,
            "record": record,
            "version": version,
            "label": overall(record, len(item["sentences"])),
        }

    def save(self, index: int, body: dict[str, Any]) -> dict[str, Any]:
        item = self.items[index]
        record = _checked(body.get("record"), len(item["sentences"]))
        record["grader"] = self.store.data["options"].get("grader")  # who made this mark
        version = self._stored(item["id"], record, body, index)
        return {
            "version": version,
            "record": record,
            "label": overall(record, len(item["sentences"])),
            "coverage": coverage(self.store.data),
        }

    def search(self, text: str) -> dict[str, Any]:
        return {"results": [], "total": 0, "capped": False}


def _checked(record: Any, n_sentences: int) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise InputError("expected an object", field="record")
    verdicts = record.get("sentences", [None] * n_sentences)
    if not isinstance(verdicts, list) or len(verdicts) != n_sentences:
        raise InputError(f"expected {n_sentences} sentence verdicts", field="record.sentences")
    for i, verdict in enumerate(verdicts):
        # a list or an object is not a verdict (and is not hashable: checked first)
        if not (verdict is None or (isinstance(verdict, str) and verdict in _VERDICT_SET)):
            raise InputError(
                f"a verdict is one of {', '.join(VERDICTS)} or null",
                field=f"record.sentences.{i}",
            )
    return {
        "sentences": list(verdicts),
        "label": _optional_bool(record.get("label"), "record.label"),
        "answers": _optional_bool(record.get("answers"), "record.answers"),
        "note": fields.text(record.get("note", ""), "record.note"),
    }


def _optional_bool(value: Any, field: str) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise InputError("expected true, false or null", field=field)
    return value
