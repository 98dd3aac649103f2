"""Load golden sets in the shapes people already write (docs/golden-sets.md, "The file";
other tools' shapes: ``data/formats/``).

A directory is read as ``golden.jsonl``/``golden.json`` (or ``golden.csv``/
``golden.parquet``) plus an optional ``corpus.jsonl``, or as a BEIR layout. A bare name
that is not a path (``handbook``, ``clapnq``) names a set shipped inside the package, so
``pip install ragtriage && ragtriage audit --golden handbook`` works offline.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ragtriage.data.beir import is_beir_dir, load_beir, load_chunks
from ragtriage.data.containers import (
    Given,
    Source,
    as_source,
    is_hf_dataset,
    unique_items,
)
from ragtriage.data.formats.columns import Columns
from ragtriage.data.formats.detect import golden_rows
from ragtriage.data.models import GoldenCase, GoldenSet
from ragtriage.data.rows import GoldenRow, validated
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
    path: Source | Iterable[Mapping[str, Any]],
    *,
    split: str = "test",
    columns: Columns = None,
) -> GoldenSet:
    """Read a golden set from a file, a directory, a shipped set's name (module docstring)
    or rows given in Python (``containers.as_source``: a list of dicts, a DataFrame);
    ``columns`` maps other column names onto ours (data/formats/columns.py)."""
    source = as_source(path, "golden")
    if isinstance(source, Given):
        return _load_file(source, columns)
    path = resolve_golden(source)
    if not path.exists():
        names = ", ".join(shipped_sets()) or "none installed"
        hint = f" (nor a shipped golden set: {names}; name one as it is)"
        raise InputError(f"file not found{hint}", path=path)
    if path.is_dir() and not is_hf_dataset(path):
        return _load_dir(path, split, columns)
    return _load_file(path, columns)


def _load_file(path: Path | Given, columns: Columns) -> GoldenSet:
    adapted = golden_rows(path, columns)
    cases = unique_items(
        path,
        adapted.records,
        lambda record, line: parse_case(record, path, line),
        lambda case: case.id,
        field="id",
        duplicate=lambda k, first: f"duplicate case id {k!r} (first on line {first})",
        empty="golden set is empty",
    )
    return GoldenSet(cases=cases, source=str(path), format=adapted.format, notes=adapted.notes)


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


def parse_case(record: dict[str, Any], path: str | Path | Given, line: int) -> GoldenCase:
    """One golden record as a case (``rows.GoldenRow``: errors name file, line and field)."""
    return validated(GoldenRow, record, path, line).case()
