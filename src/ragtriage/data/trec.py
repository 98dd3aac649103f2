"""TREC qrels (``qid iter docno rel``) and runs (``qid Q0 docno rank score tag``).

The fast path reads columns with pyarrow's multi-threaded CSV reader, so a run of a
hundred million rows never becomes Python objects. Anything the fast path cannot read
(comment lines, runs of spaces, a malformed line) goes through the line parser, which
names the failing line and field; both paths give the same columns.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from ragtriage.data.readers import read_text
from ragtriage.data.tables import Qrels, Run
from ragtriage.errors import InputError

RUN_COLUMNS = ("query", "q0", "doc", "rank", "score", "tag")
QRELS_COLUMNS = ("query", "iter", "doc", "label")


def read_trec_run(path: str | Path) -> Run:
    """A 6-column TREC run; the rank column is ignored, as trec_eval does."""
    path = Path(path)
    table = _fast_columns(path, RUN_COLUMNS, {"score": pa.float64()}, ("query", "doc", "score"))
    if table is None:
        table = _slow_columns(path, RUN_COLUMNS, score_field="score")
    scores = table.column("score").to_numpy()
    if not np.isfinite(scores).all():
        _slow_columns(path, RUN_COLUMNS, score_field="score")  # raises with the line number
    return Run.from_columns(table.column("query"), table.column("doc"), scores, source=str(path))


def read_trec_qrels(path: str | Path) -> Qrels:
    """TREC qrels; every query listed is evaluated, even one with no relevant document."""
    path = Path(path)
    table = _fast_columns(path, QRELS_COLUMNS, {"label": pa.int64()}, ("query", "doc", "label"))
    if table is None:
        table = _slow_columns(path, QRELS_COLUMNS, label_field="label")
    frame = table.to_pandas()
    duplicated = frame.duplicated(["query", "doc"])
    if duplicated.any():
        table = _slow_columns(path, QRELS_COLUMNS, label_field="label")
        _raise_duplicate(path, table)
    query_ids = np.asarray(pd.unique(frame["query"]), dtype=object)
    codes = pd.Index(query_ids).get_indexer(frame["query"])
    return Qrels(
        query_ids,
        codes.astype(np.int64),
        frame["doc"].to_numpy(dtype=object),
        frame["label"].to_numpy(np.int64),
        source=str(path),
    )


def _fast_columns(
    path: Path, names: tuple[str, ...], types: dict[str, pa.DataType], keep: tuple[str, ...]
) -> pa.Table | None:
    """Columns via pyarrow, or ``None`` when the file needs the careful line parser."""
    try:
        head = path.open("rb").read(4096)
    except OSError:
        return None
    first = head.lstrip(b"\xef\xbb\xbf").split(b"\n", 1)[0]
    if not first.strip() or b"#" in head or b"  " in head or b"\t" in first and b" " in first:
        return None
    delimiter = "\t" if b"\t" in first else " "
    column_types = {name: pa.string() for name in names} | types
    try:
        return pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=list(names), block_size=64 << 20),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False),
            convert_options=pacsv.ConvertOptions(
                column_types=column_types, include_columns=list(keep), strings_can_be_null=False
            ),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return None


def _slow_columns(
    path: Path,
    names: tuple[str, ...],
    *,
    score_field: str | None = None,
    label_field: str | None = None,
) -> pa.Table:
    """Parse line by line; the first bad line becomes an error naming line and field."""
    columns: dict[str, list] = {"query": [], "doc": [], "value": [], "line": []}
    for number, raw in enumerate(read_text(path).splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        parts = stripped.split()
        if len(parts) != len(names):
            raise InputError(
                f"expected {len(names)} whitespace-separated columns "
                f"({' '.join(names)}), got {len(parts)}",
                path=path,
                line=number,
            )
        row = dict(zip(names, parts, strict=True))
        value = _number(row, score_field or label_field or "", path, number, bool(score_field))
        columns["query"].append(row["query"])
        columns["doc"].append(row["doc"])
        columns["value"].append(value)
        columns["line"].append(number)
    if not columns["query"]:
        raise InputError("file has no data lines", path=path)
    value_name = score_field or label_field or "value"
    columns[value_name] = columns.pop("value")
    return pa.table(columns)


def _number(row: dict[str, str], field: str, path: Path, line: int, is_score: bool) -> float | int:
    text = row[field]
    try:
        value: float | int = float(text) if is_score else int(text)
    except ValueError:
        kind = "a number" if is_score else "an integer"
        raise InputError(f"{text!r} is not {kind}", path=path, line=line, field=field) from None
    if is_score and not np.isfinite(value):
        raise InputError(f"score {text!r} is not finite", path=path, line=line, field=field)
    return value


def _raise_duplicate(path: Path, table: pa.Table) -> None:
    frame = table.to_pandas()
    first = frame[frame.duplicated(["query", "doc"])].iloc[0]
    raise InputError(
        f"duplicate judgement for query {first['query']!r}, doc {first['doc']!r}",
        path=path,
        line=int(first["line"]),
        field="doc",
    )
