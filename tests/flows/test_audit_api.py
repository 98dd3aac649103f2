"""``ragtriage.audit`` from Python: rows or paths in, the same result object out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragtriage
from ragtriage.errors import InputError

HANDBOOK = Path(__file__).resolve().parents[2] / "golden_sets" / "handbook"


def _rows(path: Path, n: int) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()[:n]]


def test_audit_from_rows_equals_audit_from_files(tmp_path):
    golden = _rows(HANDBOOK / "golden.jsonl", 4)
    texts = {c["id"]: c["text"] for c in _rows(HANDBOOK / "corpus.jsonl", 1000)}
    traces = [
        {
            "query_id": c["id"],
            "retrieved": [{"id": i, "text": texts[i]} for i in c["expected"]] or ["nothing"],
            "answer": texts[c["expected"][0]] if c["expected"] else "I do not know.",
        }
        for c in golden
    ]
    (tmp_path / "golden.jsonl").write_text("".join(json.dumps(r) + "\n" for r in golden))
    (tmp_path / "traces.jsonl").write_text("".join(json.dumps(r) + "\n" for r in traces))
    options = {"judge": "lexical", "cache": tmp_path / "c.sqlite"}
    from_rows = ragtriage.audit(golden, traces, **options)
    from_files = ragtriage.audit(tmp_path / "golden.jsonl", tmp_path / "traces.jsonl", **options)
    assert isinstance(from_rows, ragtriage.AuditResult)
    labels = [(c.case_id, c.label) for c in from_rows.cases]
    assert labels == [(c.case_id, c.label) for c in from_files.cases]
    assert [c for c, _ in labels] == [c["id"] for c in golden]


def test_a_bad_row_is_an_input_error_naming_its_row():
    # the row's position in the list, as a file's error names its line
    with pytest.raises(InputError, match=r"^<golden given in Python>:1: field 'query': missing"):
        ragtriage.audit([{"id": "a", "query": "q", "expected": []}, {"id": "b"}], judge="lexical")


def test_every_error_is_a_ragtriage_error():
    assert issubclass(ragtriage.InputError, ragtriage.RagtriageError)
    assert set(ragtriage.__all__) >= {"audit", "evaluate_retrieval", "judge_faithfulness"}


def test_audit_from_dataframes_and_results_back_as_a_frame(tmp_path):
    import pandas as pd

    from ragtriage.results.files import write_json
    from ragtriage.results.load import load_audit

    golden = _rows(HANDBOOK / "golden.jsonl", 5)
    texts = {c["id"]: c["text"] for c in _rows(HANDBOOK / "corpus.jsonl", 1000)}
    traces = [
        {
            "query_id": c["id"],
            "retrieved": [{"id": i, "text": texts[i]} for i in c["expected"]],
            "answer": "The answer is not in the context.",
        }
        for c in golden
        if c["expected"]
    ]
    options = {"judge": "lexical", "cache": tmp_path / "c.sqlite"}
    from_rows = ragtriage.audit(golden, traces, **options)
    # pandas fills absent fields with NaN: they must read as absent, not as values
    from_frames = ragtriage.audit(pd.DataFrame(golden), pd.DataFrame(traces), **options)
    frame = from_frames.to_pandas()
    assert frame.equals(from_rows.to_pandas())
    assert list(frame["case_id"]) == [c["id"] for c in golden]
    assert {
        "label",
        "reason",
        "first_relevant_rank",
        "judge_outcome",
        "judge_score",
        "tags",
    } <= set(frame.columns)
    path = tmp_path / "results.json"
    write_json(path, from_frames)
    assert load_audit(path).to_pandas().equals(frame)


def test_a_bad_dataframe_row_is_named_by_its_index():
    import pandas as pd

    traces = pd.DataFrame(
        [{"query_id": f"hb-0{i}", "retrieved": ["x"], "answer": "a"} for i in range(1, 5)],
        index=[10, 11, 12, 13],
    )
    traces.loc[12, "answer"] = None
    with pytest.raises(InputError) as info:
        ragtriage.audit("handbook", traces, judge="lexical")
    assert str(info.value) == (
        "<traces given in Python>:12: field 'answer': missing required field"
    )
