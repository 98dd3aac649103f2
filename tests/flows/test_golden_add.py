"""``golden add``: audited failures become golden cases; duplicates are refused."""

from __future__ import annotations

import json

import pytest

from ragtriage.cli.main import main
from ragtriage.data.golden import load_golden
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.results.files import write_json
from ragtriage.retrieval.evaluate import evaluate_retrieval
from tests.support.lifecycle import write_jsonl

CHUNKS = {"a": "Alpha text.", "b": "The N4-300 has four drive bays.", "x": "Cooking pasta."}


@pytest.fixture
def audited(tmp_path):
    """An audit (trace file, lexical judge) with a retrieval failure and a ranking failure."""
    source = write_jsonl(
        tmp_path / "prod" / "golden.jsonl",
        [
            {"id": "ret", "query": "What is alpha?", "expected": ["a"], "tags": ["prod"]},
            {"id": "rank", "query": "How many bays does the N4-300 have?", "expected": ["b"]},
            {"id": "ok", "query": "pasta?", "expected": ["x"]},
        ],
    )
    write_jsonl(
        tmp_path / "prod" / "corpus.jsonl", [{"id": k, "text": v} for k, v in CHUNKS.items()]
    )

    def hits(*ids):
        return [{"id": i, "score": 10.0 - n, "text": CHUNKS[i]} for n, i in enumerate(ids)]

    traces = write_jsonl(
        tmp_path / "traces.jsonl",
        [
            {"query_id": "ret", "retrieved": hits("x"), "context_ids": ["x"], "answer": "Pasta."},
            {
                "query_id": "rank",
                "retrieved": hits("x", "b"),
                "context_ids": ["x"],
                "answer": "Cooking pasta.",
            },
            {
                "query_id": "ok",
                "retrieved": hits("x"),
                "context_ids": ["x"],
                "answer": "Cooking pasta.",
            },
        ],
    )
    result = audit_flow.run(
        AuditConfig(
            golden=source, traces=traces, judge="lexical", context_k=1, cache=tmp_path / "c.sqlite"
        )
    )
    labels = {c.case_id: c.label.value for c in result.cases}
    assert labels["ret"] == "retrieval" and labels["rank"] == "ranking"
    results = write_json(tmp_path / "results.json", result)
    target = write_jsonl(
        tmp_path / "curated" / "golden.jsonl",
        [{"id": "old", "query": "Where is port 5443 used?", "expected": ["a"], "tags": ["t"]}],
    )
    write_jsonl(
        tmp_path / "curated" / "corpus.jsonl", [{"id": k, "text": v} for k, v in CHUNKS.items()]
    )
    return results, target


def test_dry_run_previews_and_writes_nothing(audited, capsys):
    results, target = audited
    before = target.read_text()
    assert (
        main(
            [
                "golden",
                "add",
                "--from",
                str(results),
                "--to",
                str(target.parent),
                "--failed",
                "--dry-run",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "would add 2 cases" in out and '"id": "ret"' in out and '"id": "rank"' in out
    assert "    retrieved: x, b" in out  # what the system returned, to pick expected ids from
    assert target.read_text() == before


def test_add_keeps_query_marked_ids_tags_and_source(audited, capsys):
    results, target = audited
    assert (
        main(
            [
                "golden",
                "add",
                "--from",
                str(results),
                "--to",
                str(target),
                "--case",
                "ret",
                "--expected",
                "a,b",
                "--tag",
                "from-audit",
            ]
        )
        == 0
    )
    golden = load_golden(target)
    new = golden.case("ret")
    assert new.query == "What is alpha?" and new.expected() == ["a", "b"]
    assert new.tags == ("prod", "from-audit")
    assert new.source.startswith("audit results.json (sha256 ")
    assert "case ret: retrieval" in new.source
    assert target.read_text().splitlines()[0].startswith('{"id": "old"')  # appended, not rewritten


def test_duplicates_are_refused(audited, capsys):
    results, target = audited
    add_rank = ["golden", "add", "--from", str(results), "--to", str(target), "--case", "rank"]
    assert main(add_rank) == 0
    capsys.readouterr()
    # the same id again, then the same query under another id: both refused, exit 1
    assert main(add_rank) == 1
    assert "refused rank: id 'rank' is already in the golden set" in capsys.readouterr().out
    lines = target.read_text().splitlines()
    lines[-1] = lines[-1].replace('"id": "rank"', '"id": "renamed"')
    target.write_text("\n".join(lines) + "\n")
    assert main(add_rank) == 1
    assert "query duplicates case 'renamed'" in capsys.readouterr().out
    assert len(load_golden(target).cases) == 2


def test_expected_ids_must_exist_in_the_target_corpus(audited, capsys):
    results, target = audited
    assert (
        main(
            [
                "golden",
                "add",
                "--from",
                str(results),
                "--to",
                str(target),
                "--case",
                "ret",
                "--expected",
                "ret=nope",
            ]
        )
        == 1
    )
    assert "expected ids not in the corpus: nope" in capsys.readouterr().out


def test_input_errors(audited, tmp_path, capsys):
    results, target = audited
    base = ["golden", "add", "--from", str(results), "--to", str(target)]
    assert main([*base, "--case", "missing"]) == 2
    assert main([*base, "--case", "ret", "--failed"]) == 2
    assert main([*base, "--case", "ret", "--case", "rank", "--expected", "a"]) == 2
    capsys.readouterr()
    # an empty id list would add an answerable failure as an unanswerable case
    assert main([*base, "--case", "ret", "--expected", "ret="]) == 2
    assert "unanswerable case is added without --expected" in capsys.readouterr().err
    # ids for a case that is not being added are not silently dropped
    assert main([*base, "--case", "ret", "--expected", "rank=a"]) == 2
    assert "'rank' is not among --case" in capsys.readouterr().err
    report = write_json(
        tmp_path / "retrieval.json", evaluate_retrieval(target, {"old": ["a"]}, ["mrr"])
    )
    capsys.readouterr()
    assert main(["golden", "add", "--from", str(report), "--to", str(target), "--failed"]) == 2
    assert "expected an audit results.json" in capsys.readouterr().err


def test_add_to_a_set_with_other_column_names(audited, capsys):
    """``--columns``: the target's cases are read by its own names (a duplicate query is
    still refused) and new cases are written under them, so the file stays one shape."""
    import json

    results, target = audited
    theirs = {"id": "case", "query": "prompt", "expected": "gold"}
    write_jsonl(
        target,
        [
            {"case": "old", "prompt": "Where is port 5443 used?", "gold": ["a"], "tags": ["t"]},
            {"case": "dup", "prompt": "How many bays does the N4-300 have?", "gold": ["b"]},
        ],
    )
    mapping = ",".join(f"{k}={v}" for k, v in theirs.items())
    args = ["golden", "add", "--from", str(results), "--to", str(target.parent), "--failed"]
    for bad in ("query", "querry=q", "=x"):
        assert main([*args, "--columns", bad]) == 2
        assert "--columns" in capsys.readouterr().err
    assert main([*args, "--columns", mapping]) == 0
    out = capsys.readouterr().out
    assert "refused rank: query duplicates case 'dup'" in out
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert [r["case"] for r in rows] == ["old", "dup", "ret"]
    added = rows[-1]
    assert added["prompt"] == "What is alpha?" and added["gold"] == ["a"]  # the audit's ids
    assert not {"id", "query", "expected"} & set(added)
    shown = out.replace("\n", "")  # shown as written (rich wraps long lines)
    assert '"prompt"' in shown and '"gold"' in shown and '"query"' not in shown
    assert [c.id for c in load_golden(target, columns=theirs).cases] == ["old", "dup", "ret"]


def test_added_cases_keep_their_grades_reference_and_access_control(tmp_path):
    golden = write_jsonl(
        tmp_path / "prod" / "golden.jsonl",
        [
            {
                "id": "acl",
                "query": "What is alpha?",
                "relevance_grades": {"a": 2, "b": 1},
                "reference_answer": "Alpha is the first.",
                "forbidden": ["x"],
                "tenant": "t1",
            }
        ],
    )
    write_jsonl(
        tmp_path / "prod" / "corpus.jsonl", [{"id": k, "text": v} for k, v in CHUNKS.items()]
    )
    traces = write_jsonl(
        tmp_path / "t.jsonl",
        [{"query_id": "acl", "retrieved": [{"id": "x", "text": CHUNKS["x"]}], "answer": "Pasta."}],
    )
    config = AuditConfig(golden=golden, traces=traces, judge="lexical", cache=tmp_path / "c.db")
    results = write_json(tmp_path / "results.json", audit_flow.run(config))
    target = write_jsonl(tmp_path / "new" / "golden.jsonl", [])
    write_jsonl(
        tmp_path / "new" / "corpus.jsonl", [{"id": k, "text": v} for k, v in CHUNKS.items()]
    )
    args = ["golden", "add", "--from", str(results), "--to", str(target), "--case", "acl"]
    assert main(args) == 0
    (added,) = [json.loads(line) for line in target.read_text().splitlines()]
    assert added["relevance_grades"] == {"a": 2, "b": 1}  # not flattened to expected
    assert added["reference_answer"] == "Alpha is the first."
    assert added["forbidden"] == ["x"] and added["tenant"] == "t1"  # the leak check stays


def test_an_added_case_with_new_expected_ids_keeps_the_grades_of_those_it_still_lists(tmp_path):
    """``--expected`` replaces the list: the grades of the ids it keeps stay (the doc's own
    example dropped them), a grade of an id it leaves out does not bring it back."""
    golden = write_jsonl(
        tmp_path / "prod" / "golden.jsonl",
        [{"id": "g", "query": "What is alpha?", "relevance_grades": {"a": 2, "b": 1, "x": 0}}],
    )
    corpus = [{"id": k, "text": v} for k, v in CHUNKS.items()]
    write_jsonl(tmp_path / "prod" / "corpus.jsonl", corpus)
    traces = write_jsonl(
        tmp_path / "t.jsonl",
        [{"query_id": "g", "retrieved": [{"id": "x", "text": CHUNKS["x"]}], "answer": "Pasta."}],
    )
    config = AuditConfig(golden=golden, traces=traces, judge="lexical", cache=tmp_path / "c.db")
    results = write_json(tmp_path / "results.json", audit_flow.run(config))
    for name, expected, grades in (
        ("both", "a,b", {"a": 2, "b": 1, "x": 0}),
        ("a", "a", {"a": 2, "x": 0}),
        ("b", "b", {"b": 1, "x": 0}),  # x stays judged non-relevant
    ):
        target = write_jsonl(tmp_path / name / "golden.jsonl", [])
        write_jsonl(tmp_path / name / "corpus.jsonl", corpus)
        args = ["golden", "add", "--from", str(results), "--to", str(target), "--case", "g"]
        assert main([*args, "--expected", expected]) == 0
        (added,) = [json.loads(line) for line in target.read_text().splitlines()]
        assert added.get("relevance_grades") == grades, name
        (case,) = load_golden(target).cases
        assert set(case.expected()) == set(expected.split(","))
