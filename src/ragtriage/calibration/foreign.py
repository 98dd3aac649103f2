"""Another evaluator's verdicts as a judge: ragas, DeepEval, Phoenix, MLflow (issue 51).

Each metric of a verdicts file (``data/formats/verdicts.py``, read by
``detect.verdict_rows``) becomes a judge: its records become :class:`JudgeResult` s with a
:class:`JudgeFingerprint`, and ``calibrate`` measures them by the very code that measures
our own judge (``calibration.fit.fit_record``; docs/judge-against-people.md). Nothing here
computes an agreement figure. Lower-is-better scores are turned round (``1 - score``), a
label-only verdict scores 1 or 0, and a file's own pass/fail becomes the signal
``tool_pass``, so the tool's cut-off is measured, not assumed. A verdict joins a grade by
id, else by the normalised question and answer, else by the question alone when it names
one graded item; unjoined verdicts are the unlabelled rest, never in the agreement
figures. A record is stale for verdicts of another tool version, model or threshold
(:func:`stale`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragtriage.calibration.grades import GradedItem
from ragtriage.calibration.record import CalibrationRecord, is_stale
from ragtriage.data.formats.detect import verdict_rows
from ragtriage.data.formats.text import normalise
from ragtriage.errors import InputError
from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Outcome
from ragtriage.notices import Notice, Severity

__all__ = ["ForeignJudge", "TOOL_PASS", "fingerprint", "read_verdicts", "stale"]

TOOL_PASS = "tool_pass"  # the signal: the tool's own pass (1) / fail (0)
UNKNOWN = "unknown"


@dataclass
class ForeignJudge:
    """One metric of one verdicts file, as a judge: ``results`` on the graded answers
    (item ids = grade ids), ``rest`` on answers no grade names (for the corrected rate)."""

    name: str
    fingerprint: JudgeFingerprint
    results: list[JudgeResult]
    rest: list[JudgeResult] = field(default_factory=list)
    source: str = ""
    notes: list[Notice] = field(default_factory=list)  # how the file was read (``reader``)


def fingerprint(record: dict[str, Any]) -> JudgeFingerprint:
    """What a foreign judge is: tool, metric, version, model, threshold, direction."""
    params: dict[str, float | int | str | bool | None] = {
        "tool": record["tool"],
        "tool_version": record.get("tool_version") or UNKNOWN,
        "metric": record["metric"],
    }
    if record.get("digest"):
        params["scorer_digest"] = record["digest"]
    if record.get("threshold") is not None:
        params["threshold"] = float(record["threshold"])
    if record.get("lower_is_better"):
        params["turned_round"] = True  # 1 - score: higher is faithful
    return JudgeFingerprint(
        judge=f"{record['tool']}:{record['metric']}",
        model=record.get("model") or UNKNOWN,
        params=params,
        package_version="",  # ragtriage did not judge: the tool's version is in params
    )


def _result(item_id: str, record: dict[str, Any], fp: JudgeFingerprint) -> JudgeResult:
    score, passed = record.get("score"), record.get("passed")
    if passed is None and record.get("label") is not None:
        from ragtriage.data.formats.verdicts import label_passed

        passed = label_passed(record["label"])
    turned = bool(record.get("lower_is_better"))
    if score is not None and turned:
        score = 1.0 - score
    signals: dict[str, float] = {}
    if score is not None and passed is not None:
        signals[TOOL_PASS] = float(passed)
    if score is None and passed is not None:
        score = float(passed)  # a label only: 1 faithful, 0 not
    if score is None:
        why = record.get("reason") or f"{record['tool']} wrote no score or known label"
        return JudgeResult(item_id=item_id, outcome=Outcome.UNSCORED, reason=why, fingerprint=fp)
    return JudgeResult(
        item_id=item_id,
        outcome=Outcome.SCORED,
        score=float(score),
        signals=signals,
        reason=str(record.get("reason") or "")[:2000],
        fingerprint=fp,
    )


def _key(question: str | None, answer: str | None) -> tuple[str, str] | None:
    if not question or answer is None:
        return None
    return normalise(question).rstrip("?.! "), normalise(answer)


class _Join:
    """Graded items by id, by (question, answer) and by question alone."""

    def __init__(self, items: list[GradedItem]) -> None:
        self.ids = {i.id for i in items}
        self.by_text: dict[tuple[str, str], str] = {}
        by_question: dict[str, list[str]] = defaultdict(list)
        for item in items:
            key = _key(item.question, item.answer)
            if key is not None:
                self.by_text.setdefault(key, item.id)
                by_question[key[0]].append(item.id)
        self.by_question = {q: ids[0] for q, ids in by_question.items() if len(ids) == 1}
        self.how: dict[str, int] = defaultdict(int)

    def find(self, record: dict[str, Any]) -> str | None:
        for name in ("id", "span_id", "trace_id"):
            if record.get(name) is not None and str(record[name]) in self.ids:
                self.how["id"] += 1
                return str(record[name])
        key = _key(record.get("question"), record.get("answer"))
        if key is not None and key in self.by_text:
            self.how["question and answer text"] += 1
            return self.by_text[key]
        if record.get("question") and (
            found := self.by_question.get(normalise(record["question"]).rstrip("?.! "))
        ):
            self.how["question text alone"] += 1
            return found
        return None


def _rest_id(record: dict[str, Any], line: int) -> str:
    for key in ("id", "span_id", "trace_id"):
        if record.get(key) is not None:
            return str(record[key])
    return f"line:{line}"


def read_verdicts(path: Path, items: list[GradedItem] | None = None) -> list[ForeignJudge]:
    """Every metric of the verdicts file ``path`` as a judge (module docstring); with
    ``items``, joined to them (else every verdict is in ``rest``)."""
    # Long on purpose (63 lines): each judge's join counts (results, rest, repeats,
    # join.how) feed its notes; split, the notes step would take all of them.
    records, fmt, notes = verdict_rows(path)
    groups: dict[str, tuple[JudgeFingerprint, list[tuple[int, dict[str, Any]]]]] = {}
    for line, record in records:
        fp = fingerprint(record)
        key = fp.model_dump_json()
        groups.setdefault(key, (fp, []))[1].append((line, record))
    judges = []
    for fp, members in groups.values():
        join = _Join(items or [])
        results: dict[str, JudgeResult] = {}
        rest: list[JudgeResult] = []
        repeats = 0
        for line, record in members:
            found = join.find(record) if items else None
            if found is None:
                rest.append(_result(_rest_id(record, line), record, fp))
            elif found in results:
                repeats += 1  # a second verdict on one graded answer: the first is kept
            else:
                results[found] = _result(found, record, fp)
        said = [f"{path} ({fmt}): {len(members)} verdicts of {fp.judge}"]
        if items:
            how = ", ".join(f"{n} by {k}" for k, n in join.how.items()) or "none"
            said.append(f"joined to grades: {how}; {len(rest)} on ungraded answers")
        if repeats:
            said.append(f"{repeats} repeated verdicts on one graded answer ignored (first kept)")
        unnamed = [k for k in ("tool_version", "model") if fp.params.get(k) == UNKNOWN] + (
            ["model"] if fp.model == UNKNOWN else []
        )
        read = [Notice(code="reader", severity=Severity.INFO, text=n) for n in notes]
        read.append(
            Notice(code="reader", severity=Severity.INFO, text="; ".join(said),
                   counts={"verdicts": len(members), "graded": len(results), "rest": len(rest)})
        )  # fmt: skip
        if unnamed:
            read.append(
                Notice(
                    code="reader",
                    text=f"{path}: the file names no {' or '.join(sorted(set(unnamed)))} of "
                    f"{fp.judge}: the fingerprint cannot tell a changed one",
                )
            )
        judges.append(
            ForeignJudge(
                name=_name(fp),
                fingerprint=fp,
                results=list(results.values()),
                rest=rest,
                source=f"verdicts {path}",
                notes=read,
            )
        )
    if items and not any(j.results for j in judges):
        raise InputError(
            "no verdict names a graded answer (by id, or by its question and answer text)",
            path=path,
        )
    return judges


def _name(fp: JudgeFingerprint) -> str:
    model = "" if fp.model == UNKNOWN else f"@{fp.model}"
    return f"{fp.judge}{model}"


def stale(record: CalibrationRecord, judge: ForeignJudge) -> list[str]:
    """The fingerprint fields in which these verdicts' judge differs from the record's."""
    return is_stale(record, judge.fingerprint)
