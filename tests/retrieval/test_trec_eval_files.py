"""trec_eval 10.0's own test files: every value its expected outputs print for a measure
ragtriage supports is reproduced, per query and ``all``, to the 4 decimals it prints.

The files (tests/fixtures/trec_eval, NIST's, with its licence) once crashed the qrels
reader: their structured doc ids (``FR940202-2-00150``) collided in the old fingerprint
and the duplicate check listed rows twice.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import blake3
import numpy as np
import pytest

from ragtriage.cli.main import main
from ragtriage.data.runs import load_run
from ragtriage.data.tables import doc_words, id_hash
from ragtriage.data.trec import read_trec_qrels
from ragtriage.retrieval.evaluate import evaluate_retrieval
from tests.conftest import ROOT

FILES = ROOT / "tests" / "fixtures" / "trec_eval"
# trec_eval measure (with its cutoff, if any) -> ragtriage metric
MEASURES = {
    "P": "precision@{k}",
    "recall": "recall@{k}",
    "success": "hit_rate@{k}",
    "ndcg_cut": "ndcg@{k}",
    "map_cut": "map@{k}",
    "recip_rank": "mrr",
    "ndcg": "ndcg",
    "map": "map",
    "Rprec": "r_precision",
}
_LINE = re.compile(r"^(?P<measure>[A-Za-z_]+?)(?:_(?P<k>\d+))?\s+(?P<query>\S+)\s+(?P<value>\S+)$")
# (expected output, qrels, run, relevance level); -c is ragtriage's default (missing: zero)
CASES = {
    "out.test": ("qrels.test", "results.test", 1),
    "out.test.aq": ("qrels.test", "results.test", 1),
    "out.test.aqc": ("qrels.test", "results.trunc", 1),
    "out.test.aql": ("qrels.rel_level", "results.test", 2),
}


def expected_values(name: str) -> dict[tuple[str, str], float]:
    """``(ragtriage metric, query or "all") -> value`` for every supported measure."""
    out = {}
    for line in (FILES / name).read_text().splitlines():
        match = _LINE.match(line.strip())
        if not match or match["measure"] not in MEASURES:
            continue
        template = MEASURES[match["measure"]]
        if ("{k}" in template) != (match["k"] is not None):
            continue  # e.g. "map" matched with a cutoff that is not one
        metric = template.format(k=match["k"])
        out[(metric, match["query"])] = float(match["value"])
    return out


@cache
def evaluated(qrels: str, run: str, level: int, metrics: tuple[str, ...]):
    return evaluate_retrieval(
        read_trec_qrels(FILES / qrels),
        load_run(FILES / run),
        list(metrics),
        relevance_level=level,
        resamples=10,
    )


def assert_printed(got: float, printed: float, where: object) -> None:
    """Equal to the 4 decimals trec_eval prints (half a unit of the last place)."""
    assert abs(got - printed) <= 0.5e-4 + 1e-12, (where, got, printed)


@pytest.mark.parametrize("output", sorted(CASES))
def test_every_supported_value_in_trec_evals_outputs(output):
    qrels, run, level = CASES[output]
    expected = expected_values(output)
    metrics = tuple(sorted({metric for metric, _ in expected}))
    per_query_lines = sum(query != "all" for _, query in expected)
    # out.test: P_5..P_1000, map, Rprec, recip_rank; -m all_trec: 43 supported measures
    assert len(metrics) == (12 if output == "out.test" else 43)
    report = evaluated(qrels, run, level, metrics)
    means = {a.metric: a.mean for a in report.aggregates}
    checked = 0
    for (metric, query), value in expected.items():
        got = means[metric] if query == "all" else report.per_query.loc[query, metric]
        assert_printed(float(got), value, (output, metric, query))
        checked += 1
    assert checked == len(expected) and (per_query_lines > 0) == (output != "out.test")


def test_aqc_scores_the_missing_query_zero_and_averages_over_all_three():
    report = evaluated("qrels.test", "results.trunc", 1, ("map", "precision@10"))
    assert report.per_query.loc["302"].tolist() == [0.0, 0.0]
    assert report.aggregate("map").n == 3
    assert report.missing_queries == ["302"]


def test_with_skip_missing_the_query_the_run_lacks_is_skipped_not_missed(tmp_path, capsys):
    """results.trunc has no line for 302: --skip-missing leaves it out of the means (n=2),
    so it is no missed query, and the title counts the queries the means are over."""
    report = evaluate_retrieval(
        read_trec_qrels(FILES / "qrels.test"),
        load_run(FILES / "results.trunc"),
        ["map"],
        missing="skip",
        resamples=10,
    )
    assert report.aggregate("map").n == 2 and report.missing_queries == ["302"]
    assert report.missed == [] and report.n_missed == 0
    args = ["retrieval", "--qrels", str(FILES / "qrels.test")]
    args += ["--run", str(FILES / "results.trunc"), "-m", "map", "--skip-missing"]
    assert main([*args, "-o", str(tmp_path / "o.json")]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "Retrieval: 2 queries; 1 not in the run, skipped (--skip-missing)" in shown
    assert "Missed queries (nothing relevant in the top 10): 0" in shown
    assert "1 golden queries are not in the run (skipped)" in shown


def test_qrels_with_comments_read_as_without():
    """Lines starting with ``#`` are comments; a ``#`` inside a doc id is part of it, as
    in trec_eval (the file's one changed judgement is ``CR#93E-1860``)."""
    plain = read_trec_qrels(FILES / "qrels.test")
    commented = read_trec_qrels(FILES / "qrels.test.with-comments")
    assert commented.query_ids.tolist() == plain.query_ids.tolist()
    assert commented.label.tolist() == plain.label.tolist()
    docs = [d.replace("CR#93E-1860", "CR93E-1860") for d in commented.doc.to_pylist()]
    assert docs == plain.doc.to_pylist()
    assert "CR#93E-1860" in commented.doc.to_pylist()


@pytest.mark.parametrize("qrels", ["qrels.test", "qrels.rel_level", "qrels.test.with-comments"])
def test_the_cli_reads_trec_evals_qrels(qrels, tmp_path, capsys):
    """The reported crash: an IndexError traceback from the duplicate check."""
    out = tmp_path / "o.json"
    code = main(
        [
            "retrieval",
            "--qrels",
            str(FILES / qrels),
            "--run",
            str(FILES / "results.test"),
            "-m",
            "map,ndcg@10",
            "--quiet",
            "-o",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr()
    data = json.loads(out.read_text())
    assert sorted(data["per_query"]) == ["301", "302", "303"]
    assert data["config"]["nothing_relevant"] == "zero"


def test_the_cli_reproduces_the_relevance_level_2_output(tmp_path, capsys):
    expected = expected_values("out.test.aql")
    out = tmp_path / "o.json"
    metrics = ["map", "ndcg@10", "precision@5", "r_precision", "mrr", "recall@100"]
    args = ["retrieval", "--qrels", str(FILES / "qrels.rel_level")]
    args += ["--run", str(FILES / "results.test"), "--relevance-level", "2", "--quiet"]
    assert main([*args, "-m", ",".join(metrics), "-o", str(out)]) == 0, capsys.readouterr()
    per_query = json.loads(out.read_text())["per_query"]
    for metric in metrics:
        for query in ("301", "302", "303"):
            assert_printed(per_query[query][metric], expected[(metric, query)], (metric, query))


def test_fingerprints_of_the_test_collections_doc_ids_are_distinct():
    """The old XOR-and-multiply fingerprint gave 27 collisions among these 3,338 ids."""
    ids = sorted({line.split()[2] for line in (FILES / "qrels.test").read_text().splitlines()})
    ids += sorted({line.split()[2] for line in (FILES / "results.test").read_text().splitlines()})
    ids = sorted(set(ids))
    prints = id_hash(doc_words(ids))
    assert len(np.unique(prints)) == len(ids)


def test_the_fixtures_keep_nists_notice():
    licence = (FILES / "LICENSE.md").read_text()
    assert "National Institute of Standards and Technology" in licence
    readme = (FILES / "README.md").read_text()
    assert "NIST" in readme and re.search(r"\b[0-9a-f]{40}\b", readme)
    assert Path(FILES / "results.trunc").is_file()


@pytest.mark.parametrize("commented", [False, True])
def test_the_report_records_the_run_files_blake3_on_the_line_parsers_path_too(
    commented, tmp_path, capsys
):
    """results.test (runs of spaces) and a run opening with a comment line are read by
    the line parser, whose runs once reached the report with no digest (docs/retrieval.md:
    every report records ``run.blake3``, b3sum's value)."""
    run = FILES / "results.test"
    if commented:
        run = tmp_path / "commented.test"
        run.write_bytes(b"# scored by the line parser\n" + (FILES / "results.test").read_bytes())
    out = tmp_path / "o.json"
    args = ["retrieval", "--qrels", str(FILES / "qrels.test"), "--run", str(run)]
    assert main([*args, "-m", "map", "--quiet", "-o", str(out)]) == 0, capsys.readouterr()
    recorded = json.loads(out.read_text())["run"]
    assert recorded["blake3"] == blake3.blake3(run.read_bytes()).hexdigest()
