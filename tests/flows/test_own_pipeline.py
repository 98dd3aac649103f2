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
import re
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


# 27.3: one rank, the order the system produced, in every report


def test_tied_scores_keep_the_order_that_reached_the_generator(pipeline, tmp_path, capsys):
    golden, module = pipeline
    code, result = _audit(tmp_path, golden, f"{module}:pairs")
    terminal = capsys.readouterr().out
    assert code == 0
    cases = {c["case_id"]: c for c in result["cases"]}
    charge, tyre = cases["charge"], cases["tyre"]
    assert charge["context_ids"] == ["vx250", "vx500", "battery-charging"]
    assert charge["first_relevant_rank"] == 3 and charge["relevant_in_context"]
    per_query = result["retrieval"]["per_query"]
    assert per_query["charge"]["recall@3"] == 1.0  # was 0: trec order put it 4th
    assert per_query["tyre"]["recall@3"] == 0.0 and per_query["tyre"]["recall@5"] == 1.0
    assert tyre["label"] == "ranking" and tyre["first_relevant_rank"] == 5
    assert "rank 5" in tyre["reason"]
    assert tyre["retrieved_ids"].index("tyres") + 1 == 5

    cards = _cards((tmp_path / "out" / "report.html").read_text())
    assert "first relevant rank: 5" in cards["tyre"] and "rank 5" in _reason(cards["tyre"])
    assert _relevant_rows(cards["tyre"]) == [(5, "tyres")]
    assert "first relevant rank: 3" in cards["charge"]
    assert _relevant_rows(cards["charge"]) == [(3, "battery-charging")]
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "rank 5" in markdown and "at rank 3" not in markdown
    assert "rank 5" in " ".join(terminal.split())


def _cards(html: str) -> dict[str, str]:
    """Each case's card of report.html, by case id."""
    out = {}
    for card in html.split("<details")[1:]:
        case_id = re.search(r"</span> ([^:]+):", card)
        assert case_id
        out[case_id.group(1)] = card.split("</details>")[0]
    return out


def _reason(card: str) -> str:
    found = re.search(r"<b>Reason:</b> (.*?)</p>", card)
    assert found
    return found.group(1)


def _relevant_rows(card: str) -> list[tuple[int, str]]:
    """``(rank, id)`` of the rows of a card's retrieved table marked relevant."""
    rows = re.findall(r'<tr><td class="num">(\d+)</td><td>([^<]*)</td><td[^>]*>[^<]*</td>'
                      r"<td>yes</td>", card)  # fmt: skip
    return [(int(rank), doc) for rank, doc in rows]


def test_the_retrieval_command_scores_a_retriever_in_its_own_order(pipeline, tmp_path):
    golden, module = pipeline
    out = tmp_path / "report.json"
    assert main(["retrieval", "--golden", str(golden), "--retriever", f"{module}:pairs",
                 "-o", str(out), "--quiet"]) == 0  # fmt: skip
    per_query = json.loads(out.read_text())["per_query"]
    assert per_query["charge"]["recall@3"] == 1.0 and per_query["tyre"]["recall@3"] == 0.0


def test_run_retriever_marks_its_run_as_scored_in_the_given_order(pipeline):
    from ragtriage.data.golden import load_golden

    golden, module = pipeline
    run, hits = run_retriever(load_golden(golden), f"{module}:pairs", 10)
    assert run.order == "given"
    assert [h.id for h in hits["charge"]] == [doc for doc, _ in RANKED["charge"]]


def test_a_run_file_keeps_trec_evals_tie_rule(pipeline, tmp_path):
    """The same ties read from a ``--run`` file: score descending, then doc id
    descending, as trec_eval ranks them (what the figures must equal)."""
    golden, _ = pipeline
    run = tmp_path / "run.jsonl"
    rows = [{"query_id": q, "retrieved": [{"id": d, "score": s} for d, s in ranked]}
            for q, ranked in RANKED.items()]  # fmt: skip
    run.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "report.json"
    assert main(["retrieval", "--golden", str(golden), "--run", str(run), "-o", str(out),
                 "--quiet"]) == 0  # fmt: skip
    per_query = json.loads(out.read_text())["per_query"]
    assert per_query["charge"]["recall@3"] == 0.0  # battery-charging ranked 4th
    assert per_query["tyre"]["recall@3"] == 1.0  # tyres ranked 3rd


def test_a_trace_file_with_ties_and_a_repeated_chunk_names_one_rank(pipeline, tmp_path):
    """The same pipeline's exported traces: tied scores keep the listed order, and a chunk
    listed twice counts once (a counted warning), in the case row and its HTML card."""
    golden, _ = pipeline
    corpus = {i: x for i, _, x in CORPUS}
    listed = ["vx250", "vx250", "battery-charging", "warranty"]
    traces = tmp_path / "traces.jsonl"
    row = {"query_id": "charge", "context_k": 3, "answer": corpus["battery-charging"],
           "retrieved": [{"id": d, "score": 1.0, "text": corpus[d]} for d in listed]}  # fmt: skip
    traces.write_text(json.dumps(row) + "\n")
    out = tmp_path / "out"
    assert main(["audit", "--golden", str(golden), "--traces", str(traces), "--judge",
                 "lexical", "--out", str(out), "--quiet"]) == 0  # fmt: skip
    result = json.loads((out / "results.json").read_text())
    case = next(c for c in result["cases"] if c["case_id"] == "charge")
    assert case["first_relevant_rank"] == 2 and case["relevant_in_context"]
    assert case["retrieved_ids"] == ["vx250", "battery-charging", "warranty"]
    assert result["retrieval"]["per_query"]["charge"]["recall@3"] == 1.0
    assert any("1 duplicate (query, doc) rows" in w["text"] for w in result["warnings"])
    card = _cards((out / "report.html").read_text())["charge"]
    assert "first relevant rank: 2" in card
    assert _relevant_rows(card) == [(2, "battery-charging")]


def test_a_held_out_slice_of_a_given_order_run_keeps_that_order():
    from ragtriage.data.holdout import filter_run
    from ragtriage.data.tables import Run

    run = Run.from_columns(["a", "a", "b"], ["x", "y", "z"], [1.0, 1.0, 1.0])
    run.order = "given"
    assert filter_run(run, {"a"}).order == "given"


def test_without_a_corpus_a_retriever_that_returns_no_text_is_refused(pipeline, tmp_path, capsys):
    """A golden set with no corpus beside it: the ids have no text to fill, and the
    generator would read empty passages. A retriever returning its texts still runs."""
    golden, module = pipeline
    alone = tmp_path / "alone.jsonl"
    alone.write_text((golden / "golden.jsonl").read_text())
    code, _ = _audit(tmp_path, alone, f"{module}:pairs")
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "no corpus" in err and f"{module}:pairs" in err
    assert sys.modules[module].SEEN == []
    # scoring ids needs no text: the retrieval command still runs it
    args = ["retrieval", "--golden", str(alone), "--retriever", f"{module}:pairs", "--quiet"]
    assert main(args) == 0
