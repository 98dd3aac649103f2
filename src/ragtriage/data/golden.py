"""Load golden sets in the shapes people already write.

Accepted per record (JSON list, JSONL, CSV with list cells as JSON text, or Parquet with
native lists; the container and the shape are recognised by content, see
``data/formats/``), all fields but the query optional:

* ``{"id", "query", "expected": [chunk ids], "tags", "reference_answer"}``
* ``{"id", "query", "relevant_doc_ids": [...], "relevance_grades": {id: grade}}``

A ragas ``EvaluationDataset`` file (``user_input``, ``reference_context_ids`` or
``reference_contexts``, ``reference``) is read too (``data/formats/ragas.py``).

An empty expected list marks an unanswerable query. A directory is read as
``golden.jsonl``/``golden.json`` (or ``golden.csv``/``golden.parquet``) plus an optional
``corpus.jsonl``, or as a BEIR layout.
A bare name that is not a path (``handbook``, ``clapnq``) names a set shipped inside the
package, so ``pip install ragtriage && ragtriage audit --golden handbook`` works offline.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ragtriage.data.beir import check_grade, is_beir_dir, load_beir, load_corpus
from ragtriage.data.containers import (
    check_type,
    is_hf_dataset,
    iter_records,
    read_text,
    unique_items,
)
from ragtriage.data.formats.columns import Columns
from ragtriage.data.formats.detect import golden_rows
from ragtriage.data.ids import check_id
from ragtriage.data.models import Chunk, GoldenCase, GoldenSet
from ragtriage.errors import InputError

__all__ = [
    "GOLDEN_FILES",
    "SHIPPED",
    "TABLE_FILES",
    "load_chunks",
    "load_golden",
    "parse_case",
    "resolve_golden",
    "shipped_sets",
]

GOLDEN_FILES = ("golden.jsonl", "golden.json")
TABLE_FILES = ("golden.csv", "golden.parquet")  # read, never appended to (data/grow.py)
SHIPPED = Path(__file__).parents[1] / "golden_sets"  # a link to the top-level golden_sets/


def shipped_sets() -> list[str]:
    """Names of the golden sets inside the package."""
    if not SHIPPED.is_dir():
        return []
    return sorted(p.name for p in SHIPPED.iterdir() if (p / "golden.jsonl").is_file())


def resolve_golden(path: str | Path) -> Path:
    """``path`` itself, or the shipped set it names when no such file or folder exists:
    ``handbook``, or ``golden_sets/handbook`` as the README writes it in a clone (so its
    commands also work from a wheel install, outside the repository)."""
    path = Path(path)
    if path.exists() or path.name not in shipped_sets():
        return path
    if len(path.parts) == 1 or path.parts[-2:-1] == (SHIPPED.name,):
        return SHIPPED / path.name
    return path


def load_golden(
    path: str | Path,
    *,
    split: str = "test",
    columns: Columns = None,
) -> GoldenSet:
    """Read a golden set from a file, a directory or a shipped set's name (module docstring);
    ``columns`` maps other column names onto ours (data/formats/columns.py)."""
    path = resolve_golden(path)
    if not path.exists():
        names = ", ".join(shipped_sets()) or "none installed"
        hint = f" (nor a shipped golden set: {names}; name one as it is)"
        raise InputError(f"file not found{hint}", path=path)
    if path.is_dir() and not is_hf_dataset(path):
        return _load_dir(path, split, columns)
    return _load_file(path, columns)


def _load_file(path: Path, columns: Columns) -> GoldenSet:
    adapted = golden_rows(path, columns)
    return GoldenSet(
        cases=_unique_cases(path, adapted.records),
        source=str(path),
        format=adapted.format,
        notes=adapted.notes,
    )


def _load_dir(path: Path, split: str, columns: Columns = None) -> GoldenSet:
    for name in GOLDEN_FILES + TABLE_FILES:
        if (path / name).is_file():
            golden = _load_file(path / name, columns)
            corpus_path = path / "corpus.jsonl"
            corpus = load_chunks(corpus_path) if corpus_path.is_file() else None
            return golden.model_copy(update={"corpus": corpus, "source": str(path)})
    if is_beir_dir(path):
        return load_beir(path, split).model_copy(update={"format": "beir"})
    raise InputError(
        f"no golden set here: expected one of {', '.join(GOLDEN_FILES + TABLE_FILES)} or a "
        "BEIR layout (corpus.jsonl, queries.jsonl, qrels/<split>.tsv)",
        path=path,
    )


def _unique_cases(path: Path, records: list[tuple[int, dict[str, Any]]]) -> list[GoldenCase]:
    return unique_items(
        path,
        records,
        lambda record, line: parse_case(record, path, line),
        lambda case: case.id,
        field="id",
        duplicate=lambda k, first: f"duplicate case id {k!r} (first on line {first})",
        empty="golden set is empty",
    )


def parse_case(record: dict[str, Any], path: Path, line: int) -> GoldenCase:
    """One golden record, validated field by field so errors can name the field."""
    query = _query(record, path, line)
    case_id = record.get("id", record.get("query_id"))
    if case_id is None:
        case_id = "q-" + hashlib.sha1(query.encode()).hexdigest()[:10]
    check_type(case_id, "id", (str, int), path, line)
    if not str(case_id).strip():  # an empty id names nothing a trace or report can refer to
        raise InputError("must not be empty (give each case an id, or none)", path=path,
                         line=line, field="id")  # fmt: skip
    return GoldenCase(
        id=check_id(str(case_id), path=path, line=line, field="id"),
        query=query,
        relevance=_relevance(record, path, line),
        tags=_tags(record, path, line),
        reference_answer=_reference(record, path, line),
        **_lifecycle(record, path, line),
    )


def _query(record: dict[str, Any], path: Path, line: int) -> str:
    key = "query" if "query" in record else "question" if "question" in record else None
    if key is None:
        raise InputError("missing required field", path=path, line=line, field="query")
    query = check_type(record[key], key, str, path, line)
    if not query.strip():
        raise InputError("must not be empty", path=path, line=line, field=key)
    return query


def _relevance(record: dict[str, Any], path: Path, line: int) -> dict[str, int]:
    keys = [k for k in ("expected", "relevant_doc_ids") if k in record]
    if len(keys) > 1:
        raise InputError(
            "give either 'expected' or 'relevant_doc_ids', not both",
            path=path,
            line=line,
            field="expected",
        )
    key = keys[0] if keys else None
    if key is None and "relevance_grades" not in record:
        raise InputError(
            "missing required field (an empty list marks an unanswerable query)",
            path=path,
            line=line,
            field="expected",
        )
    ids = check_type(record.get(key, []) if key else [], key or "expected", list, path, line)
    relevance: dict[str, int] = {}
    for i, doc in enumerate(ids):
        check_type(doc, f"{key}[{i}]", (str, int), path, line)
        relevance[check_id(str(doc), path=path, line=line, field=f"{key or 'expected'}[{i}]")] = 1
    grades = check_type(record.get("relevance_grades", {}), "relevance_grades", dict, path, line)
    for doc, grade in grades.items():
        field = f"relevance_grades.{doc}"
        check_id(str(doc), path=path, line=line, field="relevance_grades")
        relevance[str(doc)] = check_grade(
            check_type(grade, field, int, path, line), path, line, field
        )
    return relevance


def _tags(record: dict[str, Any], path: Path, line: int) -> tuple[str, ...]:
    tags = record.get("tags", [])
    if isinstance(tags, str):
        return (tags,)
    check_type(tags, "tags", list, path, line)
    for tag in tags:
        check_type(tag, "tags[]", str, path, line)
    return tuple(dict.fromkeys(tags))


def _reference(record: dict[str, Any], path: Path, line: int) -> str | None:
    if "reference_answer" in record and record["reference_answer"] is not None:
        return check_type(record["reference_answer"], "reference_answer", str, path, line)
    answers = record.get("reference_answers")
    if answers:
        check_type(answers, "reference_answers", list, path, line)
        return check_type(answers[0], "reference_answers[0]", str, path, line)
    return None


def _id_list(record: dict[str, Any], key: str, path: Path, line: int) -> tuple[str, ...]:
    ids = check_type(record.get(key) or [], key, list, path, line)
    for doc in ids:
        check_type(doc, f"{key}[]", (str, int), path, line)
    return tuple(dict.fromkeys(str(doc) for doc in ids))


def _lifecycle(record: dict[str, Any], path: Path, line: int) -> dict[str, Any]:
    """The optional access-control, split and provenance fields (docs/golden-sets.md)."""
    out: dict[str, Any] = {
        "forbidden": _id_list(record, "forbidden", path, line),
        "acl": _id_list(record, "acl", path, line),
    }
    for key in ("tenant", "source"):
        if record.get(key) is not None:
            out[key] = check_type(record[key], key, str, path, line)
    split = record.get("split")
    if split is not None:
        if split not in ("dev", "holdout"):
            raise InputError(
                f"must be 'dev' or 'holdout', got {split!r}", path=path, line=line, field="split"
            )
        out["split"] = split
    return out


def load_chunks(path: Path) -> dict[str, Chunk]:
    """``load_corpus`` plus each chunk's optional ``tenant`` (read only when the file has one:
    a second pass over a corpus without tenants would cost time for nothing)."""
    corpus = load_corpus(path)
    if '"tenant"' not in read_text(path):
        return corpus
    for line, record in iter_records(path):
        tenant = record.get("tenant")
        if tenant is not None:
            check_type(tenant, "tenant", str, path, line)
            doc_id = str(record.get("_id", record.get("id")))
            corpus[doc_id] = corpus[doc_id].model_copy(update={"tenant": tenant})
    return corpus
