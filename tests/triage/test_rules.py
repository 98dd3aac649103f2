"""Every triage rule, one case each: exactly one label and a reason."""

from __future__ import annotations

import pytest

from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Outcome
from ragtriage.triage.actions import clusters, next_action
from ragtriage.triage.models import CaseResult, Label
from ragtriage.triage.rules import Evidence, triage

FP = JudgeFingerprint(judge="lexical", model="none")


def judged(outcome: Outcome, score: float | None = None) -> JudgeResult:
    return JudgeResult(item_id="x", outcome=outcome, score=score, fingerprint=FP)


@pytest.mark.parametrize(
    ("evidence", "label", "fragment"),
    [
        (
            Evidence(True, None, False, judged(Outcome.SCORED, 1.0), True),
            Label.RETRIEVAL,
            "no relevant chunk",
        ),
        (Evidence(True, 7, False, judged(Outcome.SCORED, 1.0), True), Label.RANKING, "rank 7"),
        (
            Evidence(True, 1, True, judged(Outcome.SCORED, 0.2), False),
            Label.GENERATION,
            "unfaithful",
        ),
        (Evidence(True, 1, True, judged(Outcome.ABSTAINED), None), Label.GENERATION, "abstained"),
        (
            Evidence(True, 1, True, judged(Outcome.NO_CLAIMS), None),
            Label.GENERATION,
            "asserted nothing",
        ),
        (Evidence(True, 1, True, judged(Outcome.UNSCORED), None), Label.UNSCORED, "could not"),
        (Evidence(True, 1, True, None, None), Label.UNSCORED, "no judge result"),
        (Evidence(True, 2, True, judged(Outcome.SCORED, 0.9), True), Label.PASS, "faithful"),
        (Evidence(False, None, False, judged(Outcome.ABSTAINED), None), Label.PASS, "abstained"),
        (Evidence(False, None, False, judged(Outcome.NO_CLAIMS), None), Label.PASS, "nothing"),
        (
            Evidence(False, None, False, judged(Outcome.SCORED, 0.1), False),
            Label.GENERATION,
            "unsupported",
        ),
        (Evidence(False, None, False, judged(Outcome.SCORED, 0.9), True), Label.PASS, "supports"),
        (Evidence(False, None, False, judged(Outcome.UNSCORED), None), Label.UNSCORED, "could not"),
    ],
)
def test_triage_rules(evidence, label, fragment):
    got, reason = triage(evidence)
    assert got == label
    assert fragment in reason


def test_a_high_score_failed_by_the_fact_check_says_what_it_found():
    result = judged(Outcome.SCORED, 1.0).model_copy(
        update={"signals": {"fact_check": 3.0, "novel_numbers": 1.0, "novel_names": 1.0}}
    )
    label, reason = triage(Evidence(True, 1, True, result, False))
    assert label == Label.GENERATION
    assert reason.endswith(
        "(judge score 1.00; fact check: 1 number, 1 name not in or against its evidence "
        "and 1 sentence the model rejects)"
    )
    two = result.model_copy(update={"signals": {"fact_check": 4.0, "novel_numbers": 2.0}})
    assert (
        "fact check: 2 numbers not in or against its evidence and 2 sentences the model"
        in (triage(Evidence(True, 1, True, two, False))[1])
    )
    alone = result.model_copy(update={"signals": {"fact_check": 1.0}})
    assert (
        "(judge score 1.00; fact check: 1 sentence the model rejects)"
        in (triage(Evidence(True, 1, True, alone, False))[1])
    )
    _, plain = triage(Evidence(True, 1, True, judged(Outcome.SCORED, 0.2), False))
    assert "fact check" not in plain


def test_retrieval_failure_wins_over_a_faithful_answer():
    # answer faithful to the wrong context is still a retrieval failure
    assert triage(Evidence(True, None, False, judged(Outcome.SCORED, 1.0), True))[0] == (
        Label.RETRIEVAL
    )


def case(case_id: str, label: Label, tags: list[str], answerable: bool = True) -> CaseResult:
    return CaseResult(
        case_id=case_id, query="q", tags=tags, answerable=answerable, label=label, reason="r"
    )


def test_clusters_group_by_stage_and_tag_with_actions():
    rows = [
        case("a", Label.RETRIEVAL, ["product-code"]),
        case("b", Label.RETRIEVAL, ["product-code", "paraphrase"]),
        case("c", Label.RANKING, []),
        case("d", Label.PASS, ["product-code"]),
        case("e", Label.GENERATION, ["unanswerable"], answerable=False),
        case("f", Label.UNSCORED, ["product-code"]),
    ]
    got = {(c.label, c.tag): c for c in clusters(rows)}
    assert got[(Label.RETRIEVAL, "product-code")].count == 2
    assert "keyword" in got[(Label.RETRIEVAL, "product-code")].action
    assert got[(Label.RANKING, "(untagged)")].case_ids == ["c"]
    assert "reranker" in got[(Label.RANKING, "(untagged)")].action
    assert "abstention" in got[(Label.GENERATION, "unanswerable")].action
    assert all(c.label != Label.UNSCORED and c.label != Label.PASS for c in got.values())
    assert clusters(rows)[0].tag == "product-code"  # largest first


def test_next_actions_follow_the_seeds():
    assert "chunking" in next_action(Label.RETRIEVAL, "multi-section")
    assert "hybrid" in next_action(Label.RETRIEVAL, "exact-code")
    assert "prompt" in next_action(Label.GENERATION, "paraphrase")


def test_a_generation_cluster_gets_the_advice_most_of_its_cases_need():
    abstained = judged(Outcome.ABSTAINED)
    rows = [
        case(f"a{i}", Label.GENERATION, ["wh:what"]).model_copy(update={"judge": abstained})
        for i in range(8)
    ]
    rows.append(case("u", Label.GENERATION, ["wh:what"], answerable=False))
    (cluster,) = clusters(rows)
    assert cluster.count == 9 and "abstains although the relevant chunk" in cluster.action
    (hallucinated,) = clusters([case("u", Label.GENERATION, ["x"], answerable=False)])
    assert "unanswerable" in hallucinated.action


def test_code_misses_under_bm25_get_no_advice_to_add_bm25():
    rows = [case("a", Label.RETRIEVAL, ["has-number"])]
    assert "add keyword (BM25)" in clusters(rows)[0].action
    assert "even by BM25" in clusters(rows, lexical_retriever=True)[0].action
