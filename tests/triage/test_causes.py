"""``pass`` means answered and faithful: faithful non-answers, half answers and a
procedural contradiction fail as ``generation`` with their cause and evidence, under the
lexical judge and the default one (the shipped embedded calibration, model-free)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtriage.data.golden import load_golden
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.triage.cause_types import Cause

ROOT = Path(__file__).resolve().parents[2]
BIKE = ROOT / "tests" / "fixtures" / "causes"
HANDBOOK = ROOT / "golden_sets" / "handbook"
JUDGES = ["lexical", None]  # None: the default audit's judge

# answers a user's system gave, each from the golden chunk, faithful to it
BIKE_ANSWERS = {
    # the weight question answered with motor and range facts
    "w": "The Porter cargo bike has a 250 W mid-drive motor and a range of 60 km on one charge.",
    # the freezing question answered with how to charge
    "f": "Charge the battery with the supplied 4 A charger.",
    # a two-part question answered half
    "h": "The frame has a ten-year warranty.",
    # answered: stays pass
    "ok": "Have the bike serviced every 2000 km or once a year.",
}
# the demo's hb-05: hot-swap while running, where the N2-100 must be shut down first
HB05 = (
    "To replace the failed disk in your N2-100, hot-swap the drive while the pool is running. "
    "The rebuild starts automatically and takes about 2 hours per TB."
)


def _traces(path: Path, golden_dir: Path, answers: dict[str, str], context: dict[str, list]):
    corpus = load_golden(golden_dir).corpus or {}
    rows = [
        {
            "query_id": qid,
            "retrieved": [{"id": c, "text": corpus[c].passage} for c in context[qid]],
            "answer": answer,
        }
        for qid, answer in answers.items()
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _audit(golden: Path, traces: Path, judge: str | None):
    options = {} if judge is None else {"judge": judge}
    result = audit_flow.run(AuditConfig(golden=golden, traces=traces, **options))
    return {c.case_id: c for c in result.cases}, result


@pytest.mark.parametrize("judge", JUDGES)
def test_faithful_non_answers_are_not_pass(tmp_path, judge):
    context = {
        "w": ["bike-specs", "bike-accessories", "bike-service"],
        "f": ["bike-charging", "bike-specs", "bike-service"],
        "h": ["bike-warranty", "bike-specs", "bike-service"],
        "ok": ["bike-service", "bike-specs", "bike-warranty"],
    }
    traces = _traces(tmp_path / "t.jsonl", BIKE, BIKE_ANSWERS, context)
    cases, result = _audit(BIKE, traces, judge)
    assert {q: (c.label.value, c.cause) for q, c in cases.items()} == {
        "w": ("generation", Cause.IGNORED),
        "f": ("generation", Cause.IGNORED),
        "h": ("generation", Cause.INCOMPLETE),
        "ok": ("pass", None),
    }
    half = cases["h"].causes
    assert [e.span for e in half] == ["two years for the battery"]
    assert cases["ok"].causes == []
    assert "does not answer" in cases["w"].reason
    # each cause has its next action in the clusters
    by_cause = {c.cause: c.action for c in result.clusters if c.cause is not None}
    assert set(by_cause) == {Cause.IGNORED, Cause.INCOMPLETE}
    assert "reference" in by_cause[Cause.INCOMPLETE]


@pytest.mark.parametrize("judge", JUDGES)
def test_hb05_procedural_contradiction_is_not_pass(tmp_path, judge):
    context = {"hb-05": ["raid-rebuild", "n2-100-specs", "nas-overview"]}
    traces = _traces(tmp_path / "t.jsonl", HANDBOOK, {"hb-05": HB05}, context)
    cases, _ = _audit(HANDBOOK, traces, judge)
    case = cases["hb-05"]
    assert case.faithful is True  # the judge alone passes it, as in the demo
    assert (case.label.value, case.cause) == ("generation", Cause.CONTRADICTED)
    evidence = case.causes[0]
    assert evidence.sentence is not None and "hot-swap" in evidence.sentence
    assert (evidence.chunk_id, evidence.golden) == ("raid-rebuild", True)
    assert evidence.span == "Hot-swap models (N4-300, N8-900) can take the new drive while running"
    assert "shut down first" in evidence.note
    # the same answer saying to shut down first is no failure: no contradiction is found,
    # and the judge leans faithful (since issue 54 the shipped band leaves it unsure: its
    # logistic margin is under the band's cut-off)
    right = HB05.replace("hot-swap the drive while the pool is running", "shut it down first")
    fixed = _traces(tmp_path / "r.jsonl", HANDBOOK, {"hb-05": right}, context)
    case = _audit(HANDBOOK, fixed, judge)[0]["hb-05"]
    assert case.label.value in ("pass", "unsure") and case.faithful is True
    assert case.cause is None


def test_compare_pairs_the_diagnostics_of_two_runs(tmp_path):
    """Two systems on the bike set: the second answers fully; RAGChecker's diagnostics are
    per case in both results and paired in compare (recall rises)."""
    from ragtriage.render.markdown import render_comparison_markdown
    from ragtriage.results.compare import compare

    context = {
        "w": ["bike-specs", "bike-accessories", "bike-service"],
        "f": ["bike-charging", "bike-specs", "bike-service"],
        "h": ["bike-warranty", "bike-specs", "bike-service"],
        "ok": ["bike-service", "bike-specs", "bike-warranty"],
    }
    better = {
        "w": "It carries up to 120 kg of load, rider included.",
        "f": "Never charge the battery below 0 °C: bring it indoors and let it warm up first.",
        "h": "The frame has a ten-year warranty. The battery is covered for two years.",
        "ok": BIKE_ANSWERS["ok"],
    }
    _, base = _audit(BIKE, _traces(tmp_path / "a.jsonl", BIKE, BIKE_ANSWERS, context), "lexical")
    _, cand = _audit(BIKE, _traces(tmp_path / "b.jsonl", BIKE, better, context), "lexical")
    assert cand.counts["pass"] == 4 and base.counts["pass"] == 1
    assert base.diagnostics is not None and base.diagnostics.n == 4
    assert "model-free" in base.diagnostics.entailment
    assert all(c.diagnostics is not None for c in cand.cases)
    recall = base.diagnostics.run["recall"]
    assert recall.low <= recall.estimate <= recall.high
    comparison = compare(base, cand, resamples=200, permutations=200)
    diffs = {d.name: d for d in comparison.diagnostics}
    shown = render_comparison_markdown(comparison).split("#### RAGChecker diagnostics")[1]
    assert "| recall | 4 |" in shown
    assert diffs["recall"].n == 4 and diffs["recall"].diff is not None
    assert diffs["recall"].diff > 0 and diffs["recall"].base == pytest.approx(recall.estimate)
    assert {"noise_sensitivity_in_relevant", "hallucination", "faithfulness"} <= set(diffs)


def test_a_claims_judge_verdicts_name_the_cause(tmp_path):
    """With a claims judge its verdicts stand in for the sentence test: a claim it finds in
    no chunk fails an answer the 0.5 rule calls faithful (unsupported, source judge), one
    supported only by a non-golden chunk is misled; the diagnostics say whose entailment."""
    from ragtriage.llm.base import ModelResponse
    from tests.support.fakes import ScriptedModel

    answers = {
        "ok": BIKE_ANSWERS["ok"] + " The first service is free at any Porter dealer.",
        "w": "A child seat adds 4 kg and fits behind the rider.",
    }
    verdicts = {  # per answer: (claim, verdict, chunk ids)
        "ok": [
            (BIKE_ANSWERS["ok"], "supported", ["bike-service"]),
            ("The first service is free at any Porter dealer.", "not_in_context", []),
        ],
        "w": [(answers["w"], "supported", ["bike-accessories"])],
    }

    def reply(request, number):
        prompt = "\n".join(m.content for m in request.messages)
        qid = next(q for q, a in answers.items() if a in prompt)
        claims = [{"claim": c, "verdict": v, "chunk_ids": ids} for c, v, ids in verdicts[qid]]
        if 'id="reference"' in prompt:  # against the reference: nothing contradicts it
            claims = [{**c, "verdict": "not_in_context", "chunk_ids": []} for c in claims]
        return ModelResponse(text=json.dumps({"kind": "claims", "claims": claims}))

    context = {
        "ok": ["bike-service", "bike-specs", "bike-warranty"],
        "w": ["bike-specs", "bike-accessories", "bike-service"],
    }
    traces = _traces(tmp_path / "t.jsonl", BIKE, answers, context)
    config = AuditConfig(
        golden=BIKE,
        traces=traces,
        judge=ScriptedModel(reply),
        strategy="claims",
        cache=tmp_path / "c.sqlite",
    )
    result = audit_flow.run(config)
    cases = {c.case_id: c for c in result.cases}
    ok = cases["ok"]
    assert ok.faithful is True and ok.label.value == "generation"  # score 0.5: faithful
    assert (ok.cause, ok.causes[0].source) == (Cause.UNSUPPORTED, "judge")
    assert ok.causes[0].sentence == "The first service is free at any Porter dealer."
    assert ok.causes[0].chunk_id is None
    misled = cases["w"]
    assert (misled.label.value, misled.cause) == ("generation", Cause.MISLED)
    assert (misled.causes[0].chunk_id, misled.causes[0].golden) == ("bike-accessories", False)
    assert result.diagnostics is not None and "claims judge" in result.diagnostics.entailment
    # the judge found the added claim in no chunk: one of two claims ungrounded
    assert ok.diagnostics is not None and ok.diagnostics["faithfulness"] == 0.5
