"""Reading a result back: a run (an audit's or a conversations run's ``results.json``) or
a ``ragtriage retrieval`` output.

The ``schema_version`` says which one a file is (:data:`MODELS`); every problem (missing
file, bad JSON, unknown schema, invalid field) is one :class:`~ragtriage.errors.InputError`.
The readers ask the header audits and conversations share (``RunHeader``).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ValidationError

from ragtriage.data.containers import read_json_document
from ragtriage.data.sniff import wrong_file
from ragtriage.errors import InputError
from ragtriage.results.consistency import check_result
from ragtriage.results.run import (
    AUDIT_SCHEMA,
    CONVERSATIONS_SCHEMA,
    AuditResult,
    ConversationsResult,
    RunHeader,
)
from ragtriage.retrieval.models import SCHEMA_VERSION as RETRIEVAL_SCHEMA
from ragtriage.retrieval.models import RetrievalReport

__all__ = [
    "MODELS",
    "Result",
    "golden_field",
    "golden_sha256",
    "load_audit",
    "load_run",
    "load_result",
    "retrieval_of",
]

Result = AuditResult | ConversationsResult | RetrievalReport
# every schema a file may carry -> its model; a /1 run is read by the /2 model (its
# warnings' texts given codes: ``RunHeader._notices``)
MODELS: dict[str, type[Result]] = {
    AUDIT_SCHEMA: AuditResult,
    "ragtriage.audit/1": AuditResult,
    CONVERSATIONS_SCHEMA: ConversationsResult,
    "ragtriage.conversations/1": ConversationsResult,
    RETRIEVAL_SCHEMA: RetrievalReport,
}


def load_result(path: str | Path) -> Result:
    """Parse ``path`` as whichever result its ``schema_version`` names; another kind of
    file (traces, report.md...) is named as what it is, with the command that takes it."""
    path = Path(path)
    try:
        data = read_json_document(path)
    except InputError:
        if (wrong := wrong_file(path, "audit", "retrieval")) is None:
            raise
        raise wrong from None
    if not isinstance(data, dict):
        raise wrong_file(path, "audit", "retrieval") or InputError(
            "expected a JSON object", path=path
        )
    version = data.get("schema_version")
    model = MODELS.get(version) if isinstance(version, str) else None
    if model is None:
        if (wrong := wrong_file(path, "audit", "retrieval")) is not None:
            raise wrong
        known = " or ".join(MODELS)
        raise InputError(
            f"unknown schema_version {version!r}; expected {known}",
            path=path,
            field="schema_version",
        )
    try:
        result = model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"])
        raise InputError(error["msg"], path=path, field=field) from None
    except RecursionError:  # nesting that json could parse but validation cannot walk
        raise InputError("nested too deeply to validate", path=path) from None
    check_result(result, path)  # the summary a gate reads agrees with the rows
    return result


def load_audit(path: str | Path) -> AuditResult:
    """``path`` as an audit ``results.json``; a retrieval report is refused."""
    result = load_result(path)
    if not isinstance(result, AuditResult):
        raise InputError(
            "expected an audit results.json (retrieval reports hold no answers or labels, "
            "a conversations result its turns)",
            path=path,
            field="schema_version",
        )
    return result


def load_run(path: str | Path) -> AuditResult | ConversationsResult:
    """``path`` as a run's ``results.json``: an audit's, or a ``ragtriage conversations``
    result (read once); a retrieval report is refused by :func:`load_audit`."""
    result = load_result(path)
    return load_audit(path) if isinstance(result, RetrievalReport) else result


def retrieval_of(result: Result) -> RetrievalReport:
    return result.retrieval if isinstance(result, RunHeader) else result


def golden_field(result: Result, key: str) -> str | None:
    """A string the result records of its golden set (``corpus_sha256``, ``slice``), from
    the audit or its embedded retrieval report."""
    for golden in (getattr(result, "golden", None), retrieval_of(result).golden):
        if isinstance(golden, BaseModel):  # an audit's typed GoldenSource
            golden = golden.model_dump()
        if isinstance(golden, dict) and isinstance(golden.get(key), str):
            return golden[key]
    return None


def golden_sha256(result: Result) -> str | None:
    """The golden set's content hash, from the audit or its embedded retrieval report."""
    return golden_field(result, "sha256")
