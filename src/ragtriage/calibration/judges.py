"""Judge results for calibration: run a judge on the graded items, or read recorded ones.

Every judge goes through the normal judge path (:func:`ragtriage.judge.api.
judge_faithfulness`, so its response cache is used), spec in the ``--judge`` syntax
(:class:`ragtriage.judge.spec.JudgeSpec`). Recorded results of the *same fingerprint*
(``<grades>/_judged/*.jsonl``) that cover the graded items are used instead of a model, so
the default ``ragtriage calibrate`` is offline and fast; a changed prompt, model or
parameter changes the fingerprint and the recording is ignored.

A graded conversation turn (contexts ending with ``history:...`` chunks) is judged as
``ragtriage conversations`` judges it (:func:`ragtriage.judge.history.judge_with_history`,
by the caller's rule), and always afresh: a recording does not say which pass each
result is.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ragtriage.data.containers import iter_records, read_json_document, read_text
from ragtriage.errors import InputError
from ragtriage.judge.history import Decide, judge_with_history, split_history
from ragtriage.judge.judge import Judge
from ragtriage.judge.spec import JudgeSpec
from ragtriage.judge.types import JudgeFingerprint, JudgeItem, JudgeResult

__all__ = [
    "RECORDED_DIR",
    "answer_tokens",
    "find_recorded",
    "package_version",
    "read_judged",
    "run_judge",
]

RECORDED_DIR = "_judged"
# An audit's results.json (triage.models.SCHEMA_VERSION; calibration sits below triage, so
# the name is matched here and a test keeps the two equal)
AUDIT_SCHEMA_PREFIX = "ragtriage.audit/"


def package_version() -> str:
    from ragtriage import __version__

    return __version__


def answer_tokens(answer: str) -> float:
    """Answer length in whitespace-separated tokens (used when a judge reports no length)."""
    return float(len(answer.split()))


def _api():
    try:
        from ragtriage.judge import api
    except ImportError as exc:  # pragma: no cover - judge package incomplete
        raise InputError(
            f"the judge package is not usable ({exc}); give recorded results with --judged FILE"
        ) from None
    return api


def find_recorded(fingerprint: JudgeFingerprint, directory: Path, ids: set[str]) -> Path | None:
    """The recorded results file in ``directory`` with exactly this fingerprint that covers
    the most ids in ``ids`` (graded items it lacks are then reported as missing)."""
    if not directory.is_dir():
        return None
    best: tuple[int, Path] | None = None
    for path in sorted(directory.glob("*.jsonl")):
        try:
            results = read_judged(path)
        except InputError:
            continue
        covered = len(ids & {r.item_id for r in results})
        if results[0].fingerprint == fingerprint and covered and (not best or covered > best[0]):
            best = (covered, path)
    return best[1] if best else None


def run_judge(
    judge: Judge | JudgeSpec | str,
    items: list[JudgeItem],
    recorded: Path | None = None,
    decide_for: Callable[[JudgeFingerprint], Decide] | None = None,
) -> tuple[list[JudgeResult], float | None, str]:
    """``(results, seconds, source)``: recorded results of the judge's fingerprint from
    ``recorded`` when there are any (seconds None), else the judge run on every item.

    ``judge.options.samples``/``temperature``: repeated samples of each answer, all drawn
    (no early stop: the rule that would vote is chosen after them); recordings hold one
    sample, so they are not used then. Items carrying history are judged passages first
    (module docstring), gated by the rule ``decide_for`` gives for the judge's
    fingerprint (without one, in one pass)."""
    if not isinstance(judge, Judge):  # a spec: the judge built here, once
        judge = Judge.from_spec(judge)
    uses_model = judge.model is not None
    split = [split_history(i) for i in items]
    history = {item.id: chunks for item, chunks in split if chunks}
    one_pass = not judge.options.sampling and not (history and decide_for)
    if uses_model and recorded is not None and one_pass:
        path = find_recorded(judge.fingerprint, recorded, {i.id for i in items})
        if path is not None:
            return read_judged(path), None, f"recorded {path}"
    start = time.perf_counter()
    extra: dict[str, Any] = {} if uses_model else {"cache": None}  # no model: nothing cached

    def run(batch: list[JudgeItem]) -> list[JudgeResult]:
        api = _api()
        return asyncio.run(api.ajudge(judge, batch, stop_early=False, **extra)).results

    if not (history and decide_for):
        return run(items), time.perf_counter() - start, "ran"
    rules: dict[str, Decide] = {}  # one rule per fingerprint, looked up once

    def decide(result: JudgeResult) -> bool | None:
        key = result.fingerprint.model_dump_json()
        if key not in rules:
            rules[key] = decide_for(result.fingerprint)
        return rules[key](result)

    judged, _ = judge_with_history([i for i, _ in split], history, run, decide)
    return [judged[i.id] for i in items], time.perf_counter() - start, "ran"


def read_judged(path: Path) -> list[JudgeResult]:
    """Recorded judge results (JSON list or JSONL of :class:`JudgeResult`, or an audit's
    ``results.json``: the judge result of each of its cases), all from one judge: several
    fingerprints in one file is an input error."""
    results = []
    for line, obj, where in _judged_records(path):
        try:
            results.append(JudgeResult.model_validate(obj))
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join([*where, *(str(p) for p in err["loc"])]) or None
            raise InputError(err["msg"], path=path, line=line, field=field) from None
    if not results:
        raise InputError("no judge results in the file", path=path)
    prints = {r.fingerprint.model_dump_json() for r in results}
    if len(prints) > 1:
        raise InputError(
            f"results of {len(prints)} different judge fingerprints in one file; "
            "give one file per judge",
            path=path,
            field="fingerprint",
        )
    return results


def _judged_records(path: Path) -> Iterator[tuple[int | None, Any, list[str]]]:
    """``(line, object, field path)`` of each judge result in ``path``: the lines of a
    JSONL / the items of a JSON list, or ``cases.<i>.judge`` of an audit's results.json
    (cases the audit did not judge have none and are skipped)."""
    data: Any = None
    if read_text(path).lstrip().startswith("{"):
        try:  # one JSON object: an audit's results.json; else JSONL, one result a line
            data = read_json_document(path)
        except InputError:
            data = None
    version = data.get("schema_version") if isinstance(data, dict) else None
    if not (isinstance(version, str) and version.startswith(AUDIT_SCHEMA_PREFIX)):
        for line, obj in iter_records(path):  # JSONL whose first line is an object
            yield line, obj, []
        return
    cases = data.get("cases")
    if not isinstance(cases, list):
        raise InputError("an audit without a cases list", path=path, field="cases")
    for i, case in enumerate(cases):
        judge = case.get("judge") if isinstance(case, dict) else None
        if judge is not None:
            yield None, judge, ["cases", str(i), "judge"]
