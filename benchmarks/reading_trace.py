"""Which ragtriage modules reading one traces file enters, in order (issue 34 item 4).

``ragtriage audit --traces FILE`` reads its traces through ``read_traces`` (flows/audit.py).
This script calls it on the headline fixture's traces, as JSONL and as the same rows
written to CSV (list cells as JSON text) and Parquet, with the golden set already loaded,
and records every Python function call made in a ``ragtriage`` module (``sys.setprofile``).
Consecutive calls in one module are one entry. It prints, per container: the sequence of
modules entered, the number of distinct modules, and the switches between the container
modules (the JSON/JSONL reader and the table reader): how often reading went back and
forth between them, and the entries made while opening the file (before the rows reach
the format registry).

    python benchmarks/reading_trace.py
"""

from __future__ import annotations

import csv
import importlib
import json
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests/fixtures/headline/golden"
TRACES = ROOT / "tests/fixtures/headline/traces.jsonl"
# the modules that open containers, before and after issue 34 item 4
CONTAINERS = {
    "ragtriage.data.readers",
    "ragtriage.data.formats.rows",
    "ragtriage.data.containers",
}


def _read_traces() -> Any:
    for name in ("ragtriage.data.traces", "ragtriage.data.formats.traces"):
        try:
            return importlib.import_module(name).read_traces
        except ModuleNotFoundError:
            continue
    raise SystemExit("no read_traces found")


def _as_table(src: Path, out: Path) -> tuple[Path, Path]:
    """The JSONL rows as CSV (list cells as JSON text) and as Parquet."""
    rows = [json.loads(line) for line in src.read_text().splitlines() if line.strip()]
    keys = list(dict.fromkeys(k for row in rows for k in row))
    csv_path = out / "traces.csv"
    with csv_path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, keys)
        writer.writeheader()
        for row in rows:
            cells = {k: json.dumps(v) if isinstance(v, list) else v for k, v in row.items()}
            writer.writerow(cells)
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet_path = out / "traces.parquet"
    pq.write_table(pa.Table.from_pylist(rows), parquet_path)
    return csv_path, parquet_path


def _entered(call: Any) -> list[str]:
    """Modules entered while ``call()`` runs, consecutive repeats collapsed."""
    seq: list[str] = []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        name = frame.f_globals.get("__name__", "")
        if name.startswith("ragtriage") and (not seq or seq[-1] != name):
            seq.append(name)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return seq


def _opening(seq: list[str]) -> list[str]:
    """The modules entered before the rows reach the format registry: opening the file."""
    end = (
        seq.index("ragtriage.data.formats.registry")
        if "ragtriage.data.formats.registry" in seq
        else len(seq)
    )
    return seq[:end]


def _switches(seq: list[str]) -> int:
    only = [m for m in seq if m in CONTAINERS]
    collapsed = [m for i, m in enumerate(only) if i == 0 or only[i - 1] != m]
    return max(len(collapsed) - 1, 0)


def main() -> None:
    from ragtriage.data.golden import load_golden

    read_traces = _read_traces()
    golden = load_golden(GOLDEN)
    print(f"read_traces: {read_traces.__module__}.read_traces, golden set: {GOLDEN.name}")
    with tempfile.TemporaryDirectory() as tmp:
        csv_path, parquet_path = _as_table(TRACES, Path(tmp))
        for kind, path in (("jsonl", TRACES), ("csv", csv_path), ("parquet", parquet_path)):
            seq = _entered(lambda p=path: read_traces(p, 3, golden))
            short = [m.removeprefix("ragtriage.") for m in seq]
            print(
                f"\n{kind}: {len(seq)} module entries, {len(set(seq))} distinct modules, "
                f"{_switches(seq)} switches between container modules"
            )
            print("  first entered: " + ", ".join(dict.fromkeys(short)))
            opening = [m.removeprefix("ragtriage.") for m in _opening(seq)]
            print(f"  opening the file ({len(opening)} entries): " + " > ".join(opening))
            print("  sequence: " + " > ".join(short))


if __name__ == "__main__":
    main()
