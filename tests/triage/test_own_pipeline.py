"""A small RAG pipeline of one's own, audited as a new user would: a six-passage corpus,
four golden cases (one unanswerable), a ``module:function`` retriever that returns ids,
``(id, score)`` pairs or dicts with tied scores, and a generator that records what it
was given.

What it pins down (issue 27, items 2 and 3):

* the generator reads each retrieved chunk's text and title from the corpus when the
  retriever returned only ids; an id the corpus lacks is refused (exit 2), naming the
  callable, the query and the id;
* the order the retriever produced is what reached the generator, so it is the order
  scored, ties included: the case row, the retrieval metrics, the reason, the HTML
  card, report.md and the terminal name the same rank. A ``--run`` file keeps
  trec_eval's tie rule (score descending, doc id descending).
"""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

import ragtriage
from ragtriage.cli.main import main
from ragtriage.retrieval.retrievers import run_retriever

CORPUS = [
    ("battery-charging", "Charging the battery",
     "Charge the VX battery with the supplied 42 V charger; a full charge takes four hours."),
    ("vx250", "VX250 scooter", "The VX250 has a 250 W motor and a top speed of 25 km/h."),
    ("vx500", "VX500 scooter", "The VX500 has a 500 W motor and a top speed of 45 km/h."),
    ("warranty", "Warranty", "Every VX scooter has a two-year warranty on motor and battery."),
    ("brakes", "Brakes", "The VX500 has hydraulic disc brakes; the VX250 has drum brakes."),
    ("tyres", "Tyres", "Inflate the VX tyres to a pressure of 3.5 bar."),
]  # fmt: skip
GOLDEN = [
    {"id": "charge", "query": "How long does a full charge of the VX battery take?",
     "expected": ["battery-charging"]},
    {"id": "speed", "query": "What top speed does the VX500 reach?", "expected": ["vx500"]},
    {"id": "tyre", "query": "What tyre pressure does the VX need?", "expected": ["tyres"]},
    {"id": "colour", "query": "Which colours does the VX900 come in?", "expected": []},
]  # fmt: skip
# What the retriever returns per case: ties on purpose. trec_eval breaks a tie by doc id
# descending, which would rank battery-charging 4th for "charge" (behind warranty, vx500,
# vx250) and tyres 3rd for "tyre"; the system passed its own order on.
RANKED = {
    "charge": [("vx250", 1.0), ("vx500", 1.0), ("battery-charging", 1.0), ("warranty", 1.0),
               ("brakes", 0.2)],
    "speed": [("vx500", 2.0), ("vx250", 1.0), ("brakes", 0.5), ("warranty", 0.1)],
    "tyre": [("warranty", 0.5), ("brakes", 0.5), ("battery-charging", 0.5), ("vx250", 0.5),
             ("tyres", 0.5)],
    "colour": [("vx500", 0.3), ("vx250", 0.3), ("warranty", 0.1)],
}  # fmt: skip
MODULE = textwrap.dedent(
    """
    RANKED = %r
    BY_QUERY = %r
    SEEN = []  # (query, [(id, title, text), ...]) per generator call

    def pairs(query, k):
        return [tuple(p) for p in RANKED[BY_QUERY[query]]][:k]

    def ids(query):
        return [doc for doc, _ in RANKED[BY_QUERY[query]]]

    def dicts(query, k):
        return [{"id": doc, "score": score} for doc, score in RANKED[BY_QUERY[query]]][:k]

    def unknown(query, k):
        return ["vx250", "vx-9000-manual"]

    def echo(query, chunks):
        SEEN.append((query, [(c.id, c.title, c.text) for c in chunks]))
        return " ".join(c.text for c in chunks) or "The context does not contain the answer."
    """
)


@pytest.fixture
def pipeline(tmp_path, monkeypatch):
    """``(golden folder, module name)``: the user's golden set and pipeline module."""
    folder = tmp_path / "scooters"
    folder.mkdir()
    rows = [{"id": i, "title": t, "text": x} for i, t, x in CORPUS]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "golden.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GOLDEN))
    by_query = {c["query"]: c["id"] for c in GOLDEN}
    (tmp_path / "ownrag.py").write_text(MODULE % (RANKED, by_query))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ownrag", raising=False)
    return folder, "ownrag"


def _audit(tmp_path, golden, retriever, generator="ownrag:echo", *extra) -> tuple[int, dict]:
    out = tmp_path / "out"
    args = ["audit", "--golden", str(golden), "--retriever", retriever, "--generator",
            generator, "--judge", "lexical", "--context-k", "3", "--out", str(out),
            *extra]  # fmt: skip
    code = main(args)
    results = out / "results.json"
    return code, json.loads(results.read_text()) if results.exists() else {}


# 27.2: the generator reads the corpus text of the ids a retriever returned


@pytest.mark.parametrize("shape", ["ids", "pairs", "dicts"])
def test_a_retriever_returning_ids_feeds_the_generator_the_corpus_text(pipeline, tmp_path,
                                                                      shape):  # fmt: skip
    golden, module = pipeline
    code, result = _audit(tmp_path, golden, f"{module}:{shape}", f"{module}:echo", "--quiet")
    assert code == 0
    seen = dict(sys.modules[module].SEEN)
    corpus = {i: (t, x) for i, t, x in CORPUS}
    charge = next(c["query"] for c in GOLDEN if c["id"] == "charge")
    assert seen[charge] == [(doc, *corpus[doc]) for doc, _ in RANKED["charge"][:3]]
    answers = {c["case_id"]: c["answer"] for c in result["cases"]}
    assert "a full charge takes four hours" in answers["charge"]  # not an abstention


def test_the_python_api_fills_the_text_too(pipeline, tmp_path):
    golden, module = pipeline
    result = ragtriage.audit(
        golden, retriever=f"{module}:pairs", generator=f"{module}:echo", judge="lexical",
        cache=tmp_path / "c.sqlite",
    )  # fmt: skip
    by_case = {c.case_id: c for c in result.cases}
    assert "top speed of 45 km/h" in by_case["speed"].answer
    assert by_case["speed"].label.value == "pass"


def test_a_retriever_id_the_corpus_lacks_is_refused_naming_callable_query_and_id(
    pipeline, tmp_path, capsys
):
    golden, module = pipeline
    code, _ = _audit(tmp_path, golden, f"{module}:unknown")
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2, err
    assert f"{module}:unknown" in err and "vx-9000-manual" in err and "'charge'" in err
    assert "Traceback" not in err
    assert sys.modules[module].SEEN == []  # refused before any answer was generated


def test_the_retrieval_command_refuses_the_unknown_id_too(pipeline, tmp_path, capsys):
    golden, module = pipeline
    code = main(["retrieval", "--golden", str(golden), "--retriever", f"{module}:unknown"])
    assert code == 2 and "vx-9000-manual" in capsys.readouterr().err
