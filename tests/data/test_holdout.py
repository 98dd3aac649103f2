"""The held-back slice: seeded split, hidden by default, revealed and logged on request."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import blake3
import pytest

from ragtriage.cli.main import main
from ragtriage.data.golden import load_golden
from ragtriage.data.holdout import assign_holdout
from ragtriage.errors import InputError
from ragtriage.retrieval.evaluate import RetrievalEvaluator, evaluate_retrieval
from ragtriage.retrieval.split import git_commit, log_reveal, record_reveal
from tests.conftest import ROOT
from tests.support.lifecycle import run_rows, write_jsonl


@pytest.fixture
def split_set(tmp_path):
    """d1, d2 dev; h1 (missed), h2 held out; u unanswerable dev."""
    golden = write_jsonl(
        tmp_path / "set" / "golden.jsonl",
        [
            {"id": "d1", "query": "one", "expected": ["a"], "tags": ["x"]},
            {"id": "d2", "query": "two", "expected": ["b"], "tags": ["x"]},
            {
                "id": "h1",
                "query": "three",
                "expected": ["c"],
                "tags": ["secret"],
                "split": "holdout",
            },
            {"id": "h2", "query": "four", "expected": ["d"], "tags": ["x"], "split": "holdout"},
            {"id": "u", "query": "five", "expected": [], "tags": ["x"]},
        ],
    )
    run = write_jsonl(
        tmp_path / "run.jsonl",
        run_rows({"d1": ["a"], "d2": ["z", "b"], "h1": ["z"], "h2": ["d"], "u": ["z"]}),
    )
    return golden, run


def test_default_run_leaves_no_trace_of_held_out_cases(split_set, tmp_path):
    golden, run = split_set
    out = tmp_path / "dev.json"
    assert (
        main(
            [
                "retrieval",
                "--golden",
                str(golden),
                "--run",
                str(run),
                "-m",
                "mrr",
                "--quiet",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text()
    report = json.loads(text)
    assert report["split"] == {
        "evaluated": "dev",
        "n_dev": 3,
        "n_holdout": 2,
        "reveal_log": None,
        "reveals": None,
    }
    assert set(report["per_query"]) == {"d1", "d2"}
    assert report["aggregates"][0]["mean"] == pytest.approx(0.75)
    assert report["warnings"] == []  # held-out run rows are not "unknown queries"
    assert report["run"]["blake3"] == blake3.blake3(run.read_bytes()).hexdigest()
    assert report["run"]["queries"] == 3  # the held-out queries' rows were dropped
    assert "h1" not in text and "h2" not in text and "secret" not in text
    assert not (golden.parent / "holdout_reveals.jsonl").exists()


def test_holdout_reveal_scores_the_slice_and_appends_to_the_log(split_set, tmp_path, capsys):
    golden, run = split_set
    out = tmp_path / "ho.json"
    args = [
        "retrieval",
        "--golden",
        str(golden.parent),
        "--run",
        str(run),
        "-m",
        "mrr",
        "--holdout",
        "-o",
        str(out),
    ]
    assert main(args) == 0
    assert "HELD-OUT slice revealed: 2 cases (reveal #1" in capsys.readouterr().out
    assert main(args) == 0
    report = json.loads(out.read_text())
    assert set(report["per_query"]) == {"h1", "h2"}
    assert report["aggregates"][0]["mean"] == pytest.approx(0.5)
    assert report["split"]["reveals"] == 2
    log = golden.parent / "holdout_reveals.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 2
    assert lines[0]["means"] == {"mrr": 0.5} and lines[0]["n_holdout"] == 2
    assert lines[0]["golden_sha256"] == load_golden(golden).content_hash()
    assert lines[0]["commit"] == git_commit()  # this checkout's HEAD, or None outside git
    assert datetime.fromisoformat(lines[0]["time"]).tzinfo is not None


def test_reveal_log_outside_a_repository_has_no_commit(split_set, tmp_path, monkeypatch):
    golden, run = split_set
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    report = evaluate_retrieval(golden, run, ["mrr"], split="holdout")
    log = tmp_path / "log.jsonl"
    when = datetime(2026, 11, 30, 1, 2, 3, tzinfo=UTC)
    assert record_reveal(report, log, now=when) == 1
    entry = json.loads(log.read_text())
    assert entry["commit"] is None and entry["time"] == "2026-11-30T01:02:03+00:00"


def test_holdout_without_held_out_cases_is_an_input_error(tmp_path, capsys):
    golden = write_jsonl(tmp_path / "g.jsonl", [{"id": "q", "query": "x", "expected": ["a"]}])
    run = write_jsonl(tmp_path / "r.jsonl", run_rows({"q": ["a"]}))
    assert main(["retrieval", "--golden", str(golden), "--run", str(run), "--holdout"]) == 2
    assert "no 'holdout' cases" in capsys.readouterr().err
    report = evaluate_retrieval(golden, run, ["mrr"])
    assert report.split is None  # a set without a holdout reports as before


def test_split_all_scores_everything(split_set):
    golden, run = split_set
    report = evaluate_retrieval(golden, run, ["mrr"], split="all")
    assert set(report.per_query.index) == {"d1", "d2", "h1", "h2"}


def test_assign_holdout_is_seeded_stratified_and_sized():
    golden = load_golden(ROOT / "golden_sets/clapnq")
    first = assign_holdout(golden, 0.2, seed=7)
    assert first == assign_holdout(golden, 0.2, seed=7)
    assert first != assign_holdout(golden, 0.2, seed=8)
    held = {cid for cid, s in first.items() if s == "holdout"}
    answerable = {c.id for c in golden.cases if c.answerable()}
    assert len(held) == 72 and len(held & answerable) == 36
    with pytest.raises(InputError):
        assign_holdout(golden, 1.0, seed=7)


def test_golden_split_cli_keeps_fields_copies_corpus_and_refuses_resplit(tmp_path, capsys):
    out = tmp_path / "hb"
    src = ROOT / "golden_sets/handbook"
    assert (
        main(
            [
                "golden",
                "split",
                "--golden",
                str(src),
                "--fraction",
                "0.25",
                "--seed",
                "1",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert "4 of 16 cases held out (seed 1)" in capsys.readouterr().out
    assert (out / "corpus.jsonl").read_bytes() == (src / "corpus.jsonl").read_bytes()
    before = [json.loads(line) for line in (src / "golden.jsonl").read_text().splitlines()]
    after = [json.loads(line) for line in (out / "golden.jsonl").read_text().splitlines()]
    assert [{k: v for k, v in r.items() if k != "split"} for r in after] == before
    assert sum(r["split"] == "holdout" for r in after) == 4
    assert main(["golden", "split", "--golden", str(out)]) == 2
    assert "already has held-out cases" in capsys.readouterr().err
    assert main(["golden", "split", "--golden", str(out), "--force", "--seed", "2"]) == 0


def test_split_keeps_a_json_list_a_json_list(tmp_path):
    golden = tmp_path / "golden.json"
    golden.write_text(
        json.dumps([{"query": f"question {i}", "expected": ["a"]} for i in range(10)], indent=2)
    )
    assert main(["golden", "split", "--golden", str(golden), "--fraction", "0.3"]) == 0
    rows = json.loads(golden.read_text())
    assert isinstance(rows, list) and sum(r["split"] == "holdout" for r in rows) == 3
    assert all("id" not in r for r in rows)  # ids stay derived from the query, as written
    assert sum(c.split == "holdout" for c in load_golden(golden).cases) == 3


def test_reveal_of_a_slice_without_answerable_cases_logs_null_means(tmp_path):
    golden = write_jsonl(
        tmp_path / "g.jsonl",
        [
            {"id": "d", "query": "x", "expected": ["a"]},
            {"id": "h", "query": "y", "expected": [], "split": "holdout"},
        ],
    )
    report = evaluate_retrieval(golden, {"d": ["a"], "h": ["a"]}, ["mrr"], split="holdout")
    assert record_reveal(report, tmp_path / "log.jsonl") == 1
    assert json.loads((tmp_path / "log.jsonl").read_text())["means"] == {"mrr": None}


def test_python_api_scoring_has_no_side_effects_and_log_reveal_records(split_set):
    """Scoring writes nothing; ``log_reveal`` (what the CLI and the audit call) logs."""
    golden, run = split_set
    log = golden.parent / "holdout_reveals.jsonl"
    evaluator = RetrievalEvaluator(golden, ["mrr"], split="holdout")
    report = evaluator.evaluate(run)
    evaluate_retrieval(golden, run, ["mrr"], split="holdout")
    assert not log.exists() and report.split.reveals is None
    first = log_reveal(report, golden)
    second = log_reveal(evaluator.evaluate(run), golden)
    assert (first.split.reveals, second.split.reveals) == (1, 2)
    assert second.split.reveal_log == str(log)
    evaluate_retrieval(golden, run, ["mrr"])  # the dev slice is no reveal
    assert len(log.read_text().splitlines()) == 2


def test_cli_logs_one_reveal_per_command(split_set, tmp_path):
    golden, run = split_set
    assert main(["retrieval", "--golden", str(golden), "--run", str(run), "--holdout"]) == 0
    lines = (golden.parent / "holdout_reveals.jsonl").read_text().splitlines()
    assert len(lines) == 1


def test_split_of_a_csv_golden_set_is_refused_by_name(tmp_path, capsys):
    golden = tmp_path / "golden.csv"
    golden.write_text('id,query,expected\nq1,what,"[""a""]"\nq2,why,"[""b""]"\n')
    code = main(["golden", "split", "--golden", str(golden), "--fraction", "0.5"])
    err = capsys.readouterr().err
    assert code == 2 and "golden.csv" in err and "JSON or JSONL golden files only" in err
    assert "invalid JSON" not in err


def test_an_audit_of_traces_for_every_query_names_no_held_out_case(split_set, tmp_path):
    from ragtriage.flows import audit as audit_flow
    from ragtriage.flows.audit import AuditConfig

    golden = tmp_path / "set" / "golden.jsonl"
    traces = write_jsonl(
        tmp_path / "traces.jsonl",
        [
            {"query_id": q, "retrieved": [{"id": d, "text": f"{d} text"}], "answer": "x"}
            for q, d in {"d1": "a", "d2": "b", "h2": "d", "u": "z"}.items()
        ]
        + [{"query": "three", "retrieved": [{"id": "c", "text": "c"}], "answer": "y"}],  # h1
    )
    config = AuditConfig(golden=golden, traces=traces, judge="lexical", cache=tmp_path / "c.sqlite")
    text = audit_flow.run(config).model_dump_json()
    for held in ('"h1"', '"h2"', "h1,", "h2,", "'h1'", "three"):
        assert held not in text  # the held-out slice leaves only its count
    assert "traces of cases outside the audited slice set aside" in text


def test_a_held_out_audit_says_so_in_every_report(split_set, tmp_path):
    from ragtriage.flows import audit as audit_flow
    from ragtriage.flows.audit import AuditConfig
    from ragtriage.render.markdown import render_markdown

    traces = write_jsonl(
        tmp_path / "t.jsonl",
        [
            {"query_id": q, "retrieved": [{"id": "c", "text": "c"}], "answer": "x"}
            for q in ("h1", "h2")
        ],
    )
    golden = tmp_path / "set" / "golden.jsonl"
    config = AuditConfig(
        golden=golden, traces=traces, judge="lexical", holdout=True, cache=tmp_path / "c.db"
    )
    result = audit_flow.run(config)
    assert result.golden.slice == "holdout"
    assert (
        render_markdown(result).startswith("## ragtriage audit: ")
        and "(held-out slice)" in (render_markdown(result).splitlines()[0])
    )
