"""``--columns OURS=THEIRS`` on every command that reads a golden set, a run or grades.

Each command reads a small file whose columns have other names: refused without the
mapping (naming the field it lacks), read with it exactly as the same file in our names,
and a malformed mapping is exit 2 naming ``--columns`` before any file is read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ragtriage.cli.main import main

GOLDEN = [
    {"id": "q1", "query": "what does E2201 mean", "expected": ["fan"]},
    {"id": "q2", "query": "how many bays", "expected": ["bays"]},
    {"id": "q3", "query": "how long is a rebuild", "expected": ["raid"]},
    {"id": "q4", "query": "who cleans the windows", "expected": []},
]
RUN = {"q1": ["fan", "misc"], "q2": ["misc", "bays"], "q3": ["boot", "misc"], "q4": ["misc"]}
GOLDEN_NAMES = {"id": "case", "query": "prompt", "expected": "gold"}  # ours -> theirs
GOLDEN_MAP = "id=case,query=prompt,expected=gold"
BAD_MAPS = ["query", "querry=q", "query=a,query=b", "=x"]


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _renamed(rows: list[dict], names: dict[str, str]) -> list[dict]:
    return [{names.get(k, k): v for k, v in row.items()} for row in rows]


def _refused(args: list[str], capsys, *named: str) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    for name in named:
        assert name in err, err


def _metrics(path: Path) -> tuple[list, dict]:
    report = json.loads(path.read_text())
    return report["aggregates"], report["per_query"]


def test_retrieval_golden_and_run_with_other_column_names(tmp_path, capsys):
    ours_golden = _jsonl(tmp_path / "ours" / "golden.jsonl", GOLDEN)
    ours_run = _jsonl(
        tmp_path / "run.jsonl", [{"query_id": q, "retrieved": ids} for q, ids in RUN.items()]
    )
    assert main(["retrieval", "--golden", str(ours_golden), "--run", str(ours_run),
                 "-o", str(tmp_path / "ours.json"), "--quiet"]) == 0  # fmt: skip
    want = _metrics(tmp_path / "ours.json")

    golden = _jsonl(tmp_path / "theirs" / "golden.jsonl", _renamed(GOLDEN, GOLDEN_NAMES))
    run_jsonl = _jsonl(
        tmp_path / "theirs.jsonl", [{"case": q, "hits": ids} for q, ids in RUN.items()]
    )
    run_csv = tmp_path / "theirs.csv"  # one row per chunk; the header names no field of ours
    pd.DataFrame(
        [{"case": q, "chunk": d, "position": r + 1} for q, ids in RUN.items()
         for r, d in enumerate(ids)]
    ).to_csv(run_csv, index=False)  # fmt: skip
    mappings = {
        run_jsonl: f"{GOLDEN_MAP},query_id=case,retrieved=hits",
        run_csv: f"{GOLDEN_MAP},query_id=case,doc_id=chunk,rank=position",
    }
    for run, mapping in mappings.items():
        args = ["retrieval", "--golden", str(golden), "--run", str(run), "--quiet",
                "-o", str(tmp_path / "theirs.json")]  # fmt: skip
        _refused(args, capsys, "golden.jsonl", "query")
        assert main([*args, "--columns", mapping]) == 0, capsys.readouterr().err
        assert _metrics(tmp_path / "theirs.json") == want, run.name
    for bad in BAD_MAPS:
        _refused([*args, "--columns", bad], capsys, "--columns")


def test_retrieval_columns_with_qrels_maps_the_run(tmp_path, capsys):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 fan 1\nq2 0 bays 1\nq3 0 raid 1\n")
    run = _jsonl(tmp_path / "run.jsonl", [{"qid": q, "docs": ids} for q, ids in RUN.items()])
    args = ["retrieval", "--qrels", str(qrels), "--run", str(run), "--quiet", "-m", "mrr",
            "-o", str(tmp_path / "r.json")]  # fmt: skip
    _refused(args, capsys, "run.jsonl", "query_id")
    assert main([*args, "--columns", "query_id=qid,retrieved=docs"]) == 0
    per_query = _metrics(tmp_path / "r.json")[1]
    assert per_query == {"q1": {"mrr": 1.0}, "q2": {"mrr": 0.5}, "q3": {"mrr": 0.0}}


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_golden_check_and_split_with_other_column_names(tmp_path, capsys, suffix):
    theirs = _renamed(GOLDEN, GOLDEN_NAMES)
    golden = tmp_path / f"golden{suffix}"
    if suffix == ".csv":
        frame = pd.DataFrame(theirs)
        frame["gold"] = frame["gold"].map(json.dumps)
        frame.to_csv(golden, index=False)
    else:
        _jsonl(golden, theirs)
    check = ["golden", "check", "--golden", str(golden), "--quiet"]
    _refused(check, capsys, golden.name, "query")
    assert main([*check, "--columns", GOLDEN_MAP]) == 0
    for bad in BAD_MAPS:
        _refused([*check, "--columns", bad], capsys, "--columns")
    if suffix == ".csv":
        return  # split rewrites JSON/JSONL golden files only

    out = tmp_path / "split.jsonl"
    split = ["golden", "split", "--golden", str(golden), "--out", str(out), "--fraction", "0.5"]
    _refused(split, capsys, golden.name, "query")
    for bad in BAD_MAPS:
        _refused([*split, "--columns", bad], capsys, "--columns")
    assert not out.exists()
    assert main([*split, "--columns", GOLDEN_MAP]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    # their names kept as written; each row gained its split
    assert [{k: v for k, v in r.items() if k != "split"} for r in rows] == theirs
    assert {r["split"] for r in rows} == {"dev", "holdout"}


def _grades() -> list[dict]:
    texts = ["The fan is too slow.", "It has four drive bays.", "Rebuilds take six hours."]
    rows = []
    for i in range(12):
        faithful = i % 2 == 0
        context = texts[i % 3]
        rows.append(
            {
                "item": f"g{i}",
                "is_faithful": faithful,
                "question": f"question {i}",
                "contexts": [context],
                "answer": context if faithful else f"Something unrelated number {i} happened.",
            }
        )
    return rows


def test_calibrate_grades_with_other_column_names(tmp_path, capsys):
    theirs = _jsonl(tmp_path / "grades" / "set" / "grades.jsonl", _grades())
    ours = _jsonl(
        tmp_path / "ours" / "set" / "grades.jsonl",
        _renamed(_grades(), {"item": "id", "is_faithful": "label"}),
    )

    def args(grades: Path, out: str) -> list[str]:
        return ["calibrate", str(grades), "--judge", "lexical", "--out", str(tmp_path / out),
                "--no-plots", "--resamples", "100", "--folds", "2"]  # fmt: skip

    assert main(args(ours, "c-ours")) == 0
    _refused(args(theirs, "c"), capsys, "grades.jsonl", "'id'")
    for bad in BAD_MAPS:
        _refused([*args(theirs, "c"), "--columns", bad], capsys, "--columns")
    assert main([*args(theirs, "c"), "--columns", "id=item,label=is_faithful"]) == 0
    capsys.readouterr()
    want = json.loads((tmp_path / "c-ours" / "lexical" / "calibration.json").read_text())
    got = json.loads((tmp_path / "c" / "lexical" / "calibration.json").read_text())
    assert got["scopes"] == want["scopes"]
