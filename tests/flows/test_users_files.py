"""Users' own files, written by the real tools, read right or refused (issue 26).

Every file under tests/fixtures/users was written by the tool named in ``SOURCES`` from
the 15 handbook cases of ``handbook.py`` (the ``make_*.py`` scripts there, run by hand).
On each the audit (``--judge lexical``: no model) must give the labels the cases were
built with, and ``retrieval --run`` the retrieval metrics the audit reports. The format
table of the docs (docs/reference/formats.md) is generated from the same files and
readers by ``scripts/make_reference.py`` (checked by tests/test_reference_docs.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ragtriage.cli.main import main
from ragtriage.data.golden import load_golden
from ragtriage.data.traces import read_traces
from ragtriage.render.views import threshold_line, unanswerable_line
from ragtriage.retrieval.models import RetrievalReport
from tests.conftest import ROOT

USERS = ROOT / "tests" / "fixtures" / "users"
sys.path.insert(0, str(USERS))
from handbook import CASES  # type: ignore[import-not-found]  # noqa: E402
from sources import (  # type: ignore[import-not-found]  # noqa: E402
    ANSWER_BY_QUERY,
    HANDBOOK,
    LABEL_BY_QUERY,
    SOURCES,
    Source,
    golden_of,
)


def _audit(source: Source, tmp_path: Path) -> dict:
    out = tmp_path / "audit"
    args = ["audit", "--golden", str(golden_of(source)), "--traces", str(USERS / source.file),
            "--judge", "lexical", "--context-k", "3", "--cache", str(tmp_path / "c.sqlite"),
            "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def _retrieval(source: Source, tmp_path: Path, metrics: list[str]) -> dict:
    out = tmp_path / "retrieval.json"
    args = ["retrieval", "--golden", str(golden_of(source)), "--run", str(USERS / source.file),
            "--metrics", ",".join(metrics), "--output", str(out), "--quiet"]  # fmt: skip
    assert main(args) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def _means(report: dict) -> dict[str, float | None]:
    return {a["metric"]: a["mean"] for a in report["aggregates"]}


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: f"{s.file}+{s.golden}")
def test_audit_labels_and_retrieval_metrics_agree(source, tmp_path):
    result = _audit(source, tmp_path)
    labels = {c["query"]: c["label"] for c in result["cases"]}
    assert labels == LABEL_BY_QUERY
    answers = {c["query"]: c["answer"] for c in result["cases"]}
    assert answers == ANSWER_BY_QUERY  # never the question (item 1)
    audit = _means(result["retrieval"])
    alone = _retrieval(source, tmp_path, list(audit))
    assert _means(alone) == audit  # one reader, one answer (item 7)
    assert audit["recall@3"] == pytest.approx(10 / 12)  # q03 and q07 miss, 12 answerable


@pytest.mark.parametrize("name", ["langchain_spans.jsonl", "ragas_texts.jsonl", "deepeval.csv"])
def test_files_without_scores_skip_the_sections_that_need_them(name, tmp_path):
    """Item 6: a rank is no score; the threshold and confidence sections are skipped."""
    source = next(s for s in SOURCES if s.file == name)
    report = _retrieval(source, tmp_path, ["recall@3"])
    assert report["threshold"] is None and report["unanswerable"] is None
    assert report["run"]["scored"] is False
    assert any("need scores and are skipped" in w for w in report["warnings"])
    shown = [threshold_line(RetrievalReport.model_validate(report))]
    shown.append(unanswerable_line(RetrievalReport.model_validate(report)))
    assert shown == [
        "Score threshold: analysis skipped: it needs retrieval scores, and the run has ranks only",
        "Unanswerable queries: 3; confidence skipped: it needs retrieval scores, and the run "
        "has ranks only",
    ]


def test_span_ids_come_from_the_documents_not_from_text(tmp_path):
    """Item 4: LangChain writes no document.id; the retriever's output lists each
    Document.id, and the chunk text (with the store's suffix) matches no corpus text."""
    golden = load_golden(USERS / HANDBOOK)
    read = read_traces(USERS / "langchain_spans.jsonl", 3, golden)
    assert [c.id for c in read.traces["q01"].retrieved] == ["hb-01", "hb-02", "hb-08"]
    assert not any("same text" in n or "hashes" in n for n in read.notes), read.notes
    assert "ids_by_text" not in read.assumptions


def test_text_matched_ids_are_counted_in_one_assumption():
    golden = load_golden(USERS / HANDBOOK)
    read = read_traces(USERS / "langchain_noids.jsonl", 3, golden)
    assert [c.id for c in read.traces["q01"].retrieved] == ["hb-01", "hb-02", "hb-08"]
    assert not [n for n in read.notes if "same text" in n]  # stated once, as an assumption
    assert "45 retrieved passages" in read.assumptions["ids_by_text"]


@pytest.mark.parametrize("name", ["ragas_texts.jsonl", "deepeval.jsonl", "langchain_noids.jsonl"])
def test_passages_the_corpus_named_are_not_said_to_be_hashed(name, tmp_path):
    """A reader hashed the texts and said so before the corpus named every one of them:
    the audit printed both "their ids are hashes" and "given the id of the corpus chunk".
    The note counts what stayed hashed, after the corpus has named what it can."""
    golden = load_golden(USERS / HANDBOOK)
    read = read_traces(USERS / name, 3, golden)
    assert "45 retrieved passages" in read.assumptions["ids_by_text"]
    assert not [n for n in read.notes if "hash" in n], read.notes
    # five corpus chunks: the passages with the other texts stay hashed, and are counted
    handbook = tmp_path / "handbook"
    handbook.mkdir()
    (handbook / "golden.jsonl").write_bytes((USERS / HANDBOOK / "golden.jsonl").read_bytes())
    corpus = (USERS / HANDBOOK / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    (handbook / "corpus.jsonl").write_text("\n".join(corpus[:5]) + "\n", encoding="utf-8")
    read = read_traces(USERS / name, 3, load_golden(handbook))
    named = int(read.assumptions["ids_by_text"].split()[0])
    assert [n.split(": ", 1)[1] for n in read.notes if "hash" in n] == [
        f"{45 - named} retrieved passages came without an id and match no corpus text; their "
        "ids are hashes of the normalised text"
    ]


def test_an_answer_that_is_its_question_is_warned(tmp_path):
    spans = [json.loads(line) for line in (USERS / "langchain_spans.jsonl").open()]
    for span in spans:  # the chain's output as a bare question, as before the fix
        attrs = span["attributes"]
        if span["parent_id"] is None:
            attrs["output.value"] = json.dumps({"question": attrs["input.value"]})
    path = tmp_path / "echo.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in spans), encoding="utf-8")
    read = read_traces(path, 3, load_golden(USERS / HANDBOOK))
    echo = [n for n in read.notes if "answer with their own query" in n]
    assert read.traces["q01"].answer == ANSWER_BY_QUERY[CASES[0][1]]  # the LLM span's
    assert echo == []  # the LLM's output message is the answer, not the question
    for span in spans:
        if span["attributes"].get("openinference.span.kind") == "LLM":
            span["attributes"] = {"openinference.span.kind": "LLM"}
        elif span["parent_id"] is None:
            span["attributes"]["output.value"] = span["attributes"]["input.value"]
    path.write_text("".join(json.dumps(s) + "\n" for s in spans), encoding="utf-8")
    read = read_traces(path, 3, load_golden(USERS / HANDBOOK))
    echo = [n for n in read.notes if "answer with their own query" in n]
    assert len(echo) == 1 and "15 traces" in echo[0]
