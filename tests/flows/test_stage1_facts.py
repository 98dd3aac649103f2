"""Triage reads each case's rank and confidence from stage 1: one definition of each."""

from __future__ import annotations

import json

from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.retrieval import sections


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_case_row_and_retrieval_section_agree_on_the_traces_own_order(tmp_path, monkeypatch):
    monkeypatch.setattr(sections, "MAX_MISSED", 0)  # the section lists nothing: triage still knows
    golden = _jsonl(
        tmp_path / "golden.jsonl",
        [
            {"id": "q", "query": "Which port?", "expected": ["b"]},
            {"id": "ok", "query": "How many bays?", "expected": ["d"]},
            {"id": "u", "query": "Who won in 1950?", "expected": []},
        ],
    )
    text = {"b": "Port 5443 is used.", "x": "Pasta cooks in ten minutes.", "d": "Four bays."}

    def chunk(cid, score):
        return {"id": cid, "score": score, "text": text[cid]}

    traces = _jsonl(
        tmp_path / "t.jsonl",
        [  # q lists "b" second with the higher score: trec_eval's order would rank it
            # first, but the system passed "x" on: the rank scored is the trace's own, 2
            {
                "query_id": "q",
                "retrieved": [chunk("x", 1.0), chunk("b", 9.0)],
                "context_ids": ["x"],
                "answer": "Pasta cooks in ten minutes.",
            },
            {"query_id": "ok", "retrieved": [chunk("d", 2.0)], "answer": "Four bays."},
            {"query_id": "u", "retrieved": [chunk("x", 50.0)], "answer": "Pasta."},
        ],
    )
    result = audit_flow.run(
        AuditConfig(
            golden=golden, traces=traces, judge="lexical", context_k=1, cache=tmp_path / "c.db"
        )
    )
    rows = {row.case_id: row for row in result.cases}
    facts = result.retrieval.query_facts
    assert rows["q"].retrieved_ids == ["x", "b"]  # the trace, as given
    assert facts.loc["q", "first_relevant_rank"] == 2
    assert rows["q"].first_relevant_rank == 2  # stage 1's rank: the trace's position
    assert result.retrieval.n_missed == 1 and result.retrieval.missed == []  # q, not listed
    assert rows["ok"].first_relevant_rank == 1 and rows["u"].first_relevant_rank is None
    assert result.retrieval.unanswerable.n_confident == 1
    assert result.retrieval.unanswerable.queries == []  # capped listing
    assert any("unanswerable query retrieved as confidently" in w for w in rows["u"].warnings)
