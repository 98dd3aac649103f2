"""``--columns query=question,expected=gold_ids``: our field names for other people's
(``OURS=THEIRS``; docs/file-formats.md, "Other column names"). A field the file already
has under our name is left alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragtriage.errors import InputError

__all__ = ["FIELDS", "ColumnMap", "Columns", "parse_columns"]

# Every field name a mapping may target: our golden, trace, run and grade fields, and
# the ragas fields (so a ragas export with renamed columns can be read too).
FIELDS = frozenset(
    {
        # golden sets
        "id", "query_id", "query", "question", "expected", "relevant_doc_ids",
        "relevance_grades", "tags", "reference_answer",
        # traces and runs
        "retrieved", "context_ids", "context_k", "answer", "doc_id", "score", "rank",
        # human grades
        "case_id", "label", "grade", "grader", "notes", "contexts", "dataset",
        "answer_sha256",
        # ragas
        "user_input", "retrieved_contexts", "retrieved_context_ids", "reference_contexts",
        "reference_context_ids", "response", "reference",
    }
)  # fmt: skip


class ColumnMap:
    """Renames applied to every row before its shape is detected."""

    def __init__(self, pairs: Mapping[str, str] | None = None) -> None:
        self.pairs = dict(pairs or {})  # ours -> theirs

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def apply(self, row: dict[str, Any]) -> dict[str, Any]:
        if not self.pairs:
            return row
        renamed = {
            ours: row[theirs]
            for ours, theirs in self.pairs.items()
            if theirs in row and ours not in row
        }  # one column may feed two fields (id=case for a golden set, query_id=case for a run)
        used = {self.pairs[ours] for ours in renamed}
        return {**{k: v for k, v in row.items() if k not in used}, **renamed}

    def restore(self, row: dict[str, Any]) -> dict[str, Any]:
        """``row`` written under the file's names: our field ``OURS`` back to ``THEIRS``
        (a record added to a file that names its columns its own way; where two of our
        fields share one column, the first present takes it)."""
        out = dict(row)
        for ours, theirs in self.pairs.items():
            if ours in out and theirs not in out:
                out[theirs] = out.pop(ours)
        return out

    def public(self) -> dict[str, str]:
        return dict(self.pairs)


Columns = ColumnMap | Mapping[str, str] | str | None  # what a loader's ``columns=`` takes


def parse_columns(spec: Columns) -> ColumnMap:
    """``"query=question,expected=gold_ids"`` (or a dict) checked: known target fields,
    one source per field, no empty name; errors name the ``--columns`` option."""
    if isinstance(spec, ColumnMap):
        return spec
    if spec is None:
        return ColumnMap()
    items = list(spec.items()) if isinstance(spec, Mapping) else _split(spec)
    pairs: dict[str, str] = {}
    for ours, theirs in items:
        ours, theirs = str(ours).strip(), str(theirs).strip()
        if not ours or not theirs:
            raise InputError(f"{ours}={theirs}: both names are needed", field="--columns")
        if ours not in FIELDS:
            raise InputError(
                f"{ours!r} is not a field we read (one of {', '.join(sorted(FIELDS))})",
                field="--columns",
            )
        if ours in pairs:
            raise InputError(f"{ours!r} is mapped twice", field="--columns")
        pairs[ours] = theirs
    return ColumnMap(pairs)


def _split(spec: str) -> list[tuple[str, str]]:
    out = []
    for part in spec.split(","):
        if not part.strip():
            continue
        if "=" not in part:
            raise InputError(
                f"{part.strip()[:40]!r} is not OURS=THEIRS (e.g. query=question)",
                field="--columns",
            )
        ours, _, theirs = part.partition("=")
        out.append((ours, theirs))
    return out
