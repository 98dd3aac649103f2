"""Access-control leaks: explicit forbidden ids, tenant isolation, and the CLI listing."""

from __future__ import annotations

import json

from ragtriage.cli.main import main
from ragtriage.data.golden import load_golden
from ragtriage.retrieval.evaluate import evaluate_retrieval
from tests.conftest import ROOT
from tests.support.lifecycle import run_rows, write_jsonl


def test_tenant_and_forbidden_leaks_are_listed_with_rank(tenant_set):
    run = {
        "a": ["acme-1", "pub", "globex-1", "admin"],  # other tenant at 3; admin not forbidden
        "g": ["admin", "globex-1", "acme-1"],  # forbidden id at 1, other tenant at 3
        "open": ["pub", "acme-1", "globex-1", "admin"],  # no access fields: never checked
    }
    report = evaluate_retrieval(load_golden(tenant_set), run, ["recall@5"])
    leaks = report.leaks
    assert leaks.k == 5 and leaks.n_cases_checked == 2 and leaks.n_leaking == 2
    found = {(x.query_id, x.forbidden_id, x.rank) for x in leaks.cases}
    assert found == {("a", "globex-1", 3), ("g", "admin", 1), ("g", "acme-1", 3)}


def test_leak_k_limits_the_depth_and_public_chunks_never_leak(tenant_set):
    run = {"a": ["pub", "acme-1", "globex-1"], "g": ["globex-1", "pub"], "open": ["pub"]}
    golden = load_golden(tenant_set)
    assert evaluate_retrieval(golden, run, ["recall@5"], leak_k=2).leaks.n_leaking == 0
    deeper = evaluate_retrieval(golden, run, ["recall@5"], leak_k=3).leaks
    assert [(x.query_id, x.rank) for x in deeper.cases] == [("a", 3)]


def test_no_leak_section_without_access_fields(tmp_path):
    golden = write_jsonl(tmp_path / "g.jsonl", [{"id": "q", "query": "x", "expected": ["d"]}])
    report = evaluate_retrieval(golden, {"q": ["d"]}, ["recall@1"])
    assert report.leaks is None and report.model_dump(mode="json")["leaks"] is None


def test_tenant_cases_without_corpus_tenants_warn(tmp_path):
    golden = write_jsonl(
        tmp_path / "g.jsonl", [{"id": "q", "query": "x", "expected": ["d"], "tenant": "acme"}]
    )
    report = evaluate_retrieval(golden, {"q": ["d", "e"]}, ["recall@1"])
    assert report.leaks.n_leaking == 0
    assert any("tenant/acl" in w for w in report.warnings)


def test_bad_access_fields_name_the_field(tmp_path, capsys):
    golden = write_jsonl(
        tmp_path / "g.jsonl", [{"id": "q", "query": "x", "expected": ["d"], "forbidden": "d"}]
    )
    run = write_jsonl(tmp_path / "run.jsonl", run_rows({"q": ["d"]}))
    assert main(["retrieval", "--golden", str(golden), "--run", str(run)]) == 2
    assert "g.jsonl:1: field 'forbidden': expected list, got str" in capsys.readouterr().err


def test_cli_prints_every_leak_on_the_shipped_handbook(tmp_path, capsys):
    out = tmp_path / "r.json"
    code = main(
        [
            "retrieval",
            "--golden",
            str(ROOT / "golden_sets/handbook"),
            "--retriever",
            "bm25",
            "-o",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "Access-control leaks (forbidden chunk in the top 10): 2 of 2 checked cases" in text
    assert "LEAK hb-15: release-notes-7-3 at rank 1" in text
    leaks = json.loads(out.read_text())["leaks"]
    assert leaks["n_leaking"] == 2
    # hb-04 is a customer (tenant mode): the internal draft is another tenant's chunk
    assert {"query_id": "hb-04", "forbidden_id": "release-notes-7-3", "rank": 8} in leaks["cases"]


def test_cli_corpus_option_supplies_tenants(tenant_set, tmp_path, capsys):
    golden = tmp_path / "only" / "golden.jsonl"
    golden.parent.mkdir()
    golden.write_text((tenant_set / "golden.jsonl").read_text())
    run = write_jsonl(tmp_path / "run.jsonl", run_rows({"a": ["globex-1"], "g": ["globex-1"]}))
    out = tmp_path / "r.json"
    assert (
        main(["retrieval", "--golden", str(golden), "--run", str(run), "--quiet", "-o", str(out)])
        == 0
    )
    assert json.loads(out.read_text())["leaks"]["n_leaking"] == 0  # no tenants known
    assert (
        main(
            [
                "retrieval",
                "--golden",
                str(golden),
                "--run",
                str(run),
                "--quiet",
                "--corpus",
                str(tenant_set / "corpus.jsonl"),
                "-o",
                str(out),
            ]
        )
        == 0
    )
    report = json.loads(out.read_text())
    assert report["leaks"]["cases"] == [{"query_id": "a", "forbidden_id": "globex-1", "rank": 1}]
    assert report["golden"]["corpus_chunks"] == 4 and len(report["golden"]["corpus_sha256"]) == 64
