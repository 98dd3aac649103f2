"""Hand-computed metric values and trec_eval's edge semantics."""

from __future__ import annotations

import math

import pytest

from ragtriage import evaluate_retrieval
from ragtriage.data.tables import Qrels, Run
from ragtriage.errors import InputError
from ragtriage.retrieval.metrics import expand, parse_measure
from ragtriage.retrieval.ranking import rank


def scores(golden, run, metrics, **kw):
    report = evaluate_retrieval(golden, run, metrics, **kw)
    return report.per_query.to_dict(orient="index")


GOLDEN = [{"id": "q", "query": "x", "expected": ["a", "c"]}]
# ranks: 1 b, 2 a (relevant), 3 d, 4 c (relevant)
RUN = {"q": {"b": 4.0, "a": 3.0, "d": 2.0, "c": 1.0}}


def test_hand_computed_binary():
    row = scores(
        GOLDEN,
        RUN,
        [
            "precision@1",
            "precision@2",
            "precision@5",
            "recall@2",
            "recall@4",
            "hit_rate@1",
            "hit_rate@2",
            "mrr",
            "mrr@1",
            "map",
            "map@2",
            "r_precision",
            "ndcg@2",
            "ndcg",
        ],
    )["q"]
    assert row["precision@1"] == 0.0
    assert row["precision@2"] == 0.5
    assert row["precision@5"] == 2 / 5  # divisor is k even with 4 retrieved (trec_eval P_k)
    assert row["recall@2"] == 0.5
    assert row["recall@4"] == 1.0
    assert row["hit_rate@1"] == 0.0 and row["hit_rate@2"] == 1.0
    assert row["mrr"] == 0.5 and row["mrr@1"] == 0.0
    assert row["map"] == pytest.approx((1 / 2 + 2 / 4) / 2)
    assert row["map@2"] == pytest.approx((1 / 2) / 2)  # denominator stays R = 2
    assert row["r_precision"] == 0.5
    idcg2 = 1 + 1 / math.log2(3)
    assert row["ndcg@2"] == pytest.approx((1 / math.log2(3)) / idcg2)
    assert row["ndcg"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / idcg2)


def test_graded_ndcg_linear_and_exponential_gain():
    golden = [
        {
            "id": "q",
            "query": "x",
            "relevant_doc_ids": ["a", "b"],
            "relevance_grades": {"a": 1, "b": 3},
        }
    ]
    run = {"q": ["a", "b"]}
    row = scores(golden, run, ["ndcg@2", "ndcg_exp@2"])["q"]
    disc = 1 / math.log2(3)
    assert row["ndcg@2"] == pytest.approx((1 + 3 * disc) / (3 + 1 * disc))
    assert row["ndcg_exp@2"] == pytest.approx((1 + 7 * disc) / (7 + 1 * disc))


def test_ties_broken_by_doc_id_descending():
    # equal scores: trec_eval ranks "b" before "a" (strcmp descending)
    row = scores(
        [{"id": "q", "query": "x", "expected": ["a"]}], {"q": {"a": 1.0, "b": 1.0}}, ["mrr"]
    )["q"]
    assert row["mrr"] == 0.5


def test_scores_compared_as_doubles_unless_float32():
    run = {"q": {"a": 1.0, "b": 1.0 + 1e-12}}
    golden = [{"id": "q", "query": "x", "expected": ["a"]}]
    assert scores(golden, run, ["mrr"])["q"]["mrr"] == 0.5
    assert scores(golden, run, ["mrr"], precision="float32")["q"]["mrr"] == 0.5
    # a above b only at double precision: trec_eval 9.0.8 and 10.0 rank a first; at
    # float32 (pytrec_eval) the scores tie and doc id descending puts b first
    for top, low in [(1.0 + 1e-12, 1.0), (1e-46, 0.0), (1e39, 1e38 * 9.99), (math.inf, 1e300)]:
        run = {"q": {"a": top, "b": low}}
        assert scores(golden, run, ["mrr"])["q"]["mrr"] == 1.0
        assert scores(golden, run, ["mrr"], precision="float32")["q"]["mrr"] == 0.5


def test_minus_zero_ties_zero_at_both_precisions():
    golden = [{"id": "q", "query": "x", "expected": ["a"]}]
    for precision in ("float32", "float64"):
        row = scores(golden, {"q": {"a": 0.0, "b": -0.0}}, ["mrr"], precision=precision)
        assert row["q"]["mrr"] == 0.5  # a tie: doc id descending puts b first


def test_duplicates_keep_highest_score_and_are_counted():
    qrels = Qrels.from_pairs(["q"], [("q", "a", 1)])
    run = Run.from_columns(["q", "q", "q"], ["a", "b", "a"], [0.1, 0.5, 0.9])
    report = evaluate_retrieval(qrels, run, ["mrr", "precision@3"])
    assert report.per_query.loc["q", "mrr"] == 1.0  # a kept at its best score 0.9
    assert report.per_query.loc["q", "precision@3"] == 1 / 3  # counted once
    assert any("1 duplicate" in w for w in report.warnings)
    with pytest.raises(InputError, match="more than once"):
        evaluate_retrieval(qrels, run, ["mrr"], duplicates="error")


def test_missing_query_scores_zero_and_is_listed_or_skipped():
    golden = [
        {"id": "q1", "query": "x", "expected": ["a"]},
        {"id": "q2", "query": "y", "expected": ["b"]},
    ]
    report = evaluate_retrieval(golden, {"q1": ["a"]}, ["recall@1"])
    assert report.missing_queries == ["q2"]
    assert report.per_query.loc["q2", "recall@1"] == 0.0
    assert report.aggregate("recall@1").mean == 0.5
    skipped = evaluate_retrieval(golden, {"q1": ["a"]}, ["recall@1"], missing="skip")
    assert list(skipped.per_query.index) == ["q1"]
    assert skipped.aggregate("recall@1").mean == 1.0


def test_negative_labels_are_never_relevant_and_give_no_gain():
    qrels = Qrels.from_pairs(["q"], [("q", "a", -1), ("q", "b", 1)])
    run = Run.from_columns(["q", "q"], ["a", "b"], [2.0, 1.0])
    report = evaluate_retrieval(qrels, run, ["precision@1", "ndcg@2", "mrr"])
    row = report.per_query.loc["q"]
    assert row["precision@1"] == 0.0
    assert row["mrr"] == 0.5
    assert row["ndcg@2"] == pytest.approx(1 / math.log2(3))


def test_relevance_level_changes_binary_measures_not_ndcg():
    golden = [
        {
            "id": "q",
            "query": "x",
            "relevant_doc_ids": ["a", "b"],
            "relevance_grades": {"a": 1, "b": 2},
        }
    ]
    run = {"q": ["a", "b"]}
    level1 = scores(golden, run, ["mrr", "ndcg@2"])["q"]
    level2 = scores(golden, run, ["mrr", "ndcg@2"], relevance_level=2)["q"]
    assert level1["mrr"] == 1.0 and level2["mrr"] == 0.5
    assert level1["ndcg@2"] == level2["ndcg@2"]


def test_unanswerable_queries_are_reported_apart_from_the_means():
    golden = [
        {"id": "q1", "query": "x", "expected": ["a"]},
        {"id": "u1", "query": "y", "expected": []},
    ]
    report = evaluate_retrieval(golden, {"q1": {"a": 3.0}, "u1": {"a": 5.0}}, ["recall@1"])
    assert report.n_answerable == 1 and report.n_unanswerable == 1
    assert list(report.per_query.index) == ["q1"]
    assert report.aggregate("recall@1").mean == 1.0
    section = report.unanswerable
    assert section is not None and section.queries[0].query_id == "u1"
    assert section.queries[0].top1_score == 5.0 and section.queries[0].confident


def test_unanswerable_list_is_capped_at_the_most_confident(monkeypatch):
    from ragtriage.retrieval import sections

    monkeypatch.setattr(sections, "MAX_MISSED", 2)
    golden = [{"id": "q1", "query": "x", "expected": ["a"]}] + [
        {"id": f"u{i}", "query": "y", "expected": []} for i in range(5)
    ]
    run = {"q1": {"a": 3.0}} | {f"u{i}": {"a": s} for i, s in enumerate([1, 9, 2, 8, 0.5])}
    report = evaluate_retrieval(golden, run, ["recall@1"])
    section = report.unanswerable
    assert section.n == 5
    assert [q.query_id for q in section.queries] == ["u1", "u3"]  # golden order
    assert section.n_confident == 2  # u1 (9) and u3 (8) reach q1's 3.0, listed or not
    assert any("5 unanswerable queries; the report lists the 2" in w for w in report.warnings)


def test_missed_queries_and_threshold_analysis():
    golden = [
        {"id": f"q{i}", "query": f"query {i}", "expected": [f"r{i}"], "tags": ["t"]}
        for i in range(4)
    ]
    run = {f"q{i}": {f"r{i}": 10.0 - i, f"n{i}": 5.0 - i} for i in range(3)}
    run["q3"] = {"n3": 9.0, "x": 8.0, "r3": 1.0}
    report = evaluate_retrieval(golden, run, ["hit_rate@2"], miss_k=2)
    assert [m.query_id for m in report.missed] == ["q3"]
    assert report.missed[0].first_relevant_rank == 3
    assert report.missed[0].top_ids == ["n3", "x", "r3"]
    assert report.slices[0].tag == "t" and report.slices[0].n == 4
    t = report.threshold
    assert t is not None and not t.separable and t.auc is not None
    assert "no cut-off separates" in t.verdict


def test_separable_scores_are_said_plainly():
    golden = [{"id": "q", "query": "x", "expected": ["a"]}]
    report = evaluate_retrieval(golden, {"q": {"a": 2.0, "b": 1.0}}, ["mrr"])
    assert report.threshold.separable and "separates" in report.threshold.verdict
    assert report.threshold.auc == 1.0


@pytest.mark.parametrize(
    ("text", "name", "k"),
    [
        ("ndcg@10", "ndcg", 10),
        ("P_5", "precision", 5),
        ("recip_rank", "mrr", None),
        ("success@1", "hit_rate", 1),
        ("ndcg_cut_10", "ndcg", 10),
        ("map_cut_5", "map", 5),
        ("Rprec", "r_precision", None),
        ("ndcg_exp@3", "ndcg_exp", 3),
        ("P.5", "precision", 5),  # trec_eval's -m spelling
        ("ndcg_cut.10", "ndcg", 10),
    ],
)
def test_measures_parse_from_text(text, name, k):
    measure = parse_measure(text)
    assert (measure.name, measure.k) == (name, k)


@pytest.mark.parametrize(
    "text", ["recall", "ndcg@0", "mrr@-1", "bogus@3", "r_precision@5", "@@", "ndcg_cut", "map_cut"]
)
def test_bad_measures_are_input_errors(text):
    with pytest.raises(InputError):
        parse_measure(text)


def test_trec_eval_metric_lists_expand_over_cutoffs():
    # bare ndcg_cut / map_cut are cut measures (trec_eval: a list of cutoffs), never the
    # uncut ndcg / map; "P.5,10" arrives split at its comma
    got = [str(m) for m in expand(["ndcg_cut", "map_cut", "P.5", "10", "ndcg", "mrr"], [3, 7])]
    assert got == ["ndcg@3", "ndcg@7", "map@3", "map@7", "precision@5", "precision@10"] + [
        "ndcg",
        "mrr",
    ]


def test_the_mean_adds_queries_in_topic_order_as_trec_eval():
    # reciprocal ranks 1/5, 1, 1/3, 1/2, 1/4, 1/3, 1, 1/3: numpy's pairwise sum gives
    # 0.49374999999999997 (printed 0.4937), trec_eval's sequential sum 0.49375 (0.4938)
    ranks = [5, 1, 3, 2, 4, 3, 1, 3]
    qrels = Qrels.from_pairs(
        [f"q{i}" for i in range(8, 0, -1)],  # golden-set order is not topic order
        [(f"q{i + 1}", "rel", 1) for i in range(8)],
    )
    queries, docs, values = [], [], []
    for i, r in enumerate(ranks):
        for j in range(r):
            queries.append(f"q{i + 1}")
            docs.append("rel" if j == r - 1 else f"n{j}")
            values.append(float(10 - j))
    report = evaluate_retrieval(qrels, Run.from_columns(queries, docs, values), ["mrr"])
    assert report.aggregate("mrr").mean == 0.49375
    assert f"{report.aggregate('mrr').mean:.4f}" == "0.4938"


def test_metric_arrays_are_per_query_in_batches():
    qrels = Qrels.from_pairs(["q1", "q2"], [("q1", "a", 1), ("q2", "b", 1)])
    run = Run.from_columns(["q2", "q1", "q1"], ["b", "c", "a"], [1.0, 2.0, 1.0])
    batches, stats = rank(run, qrels, batch_cells=1)
    assert len(batches) == 2 and stats.missing_queries == []
    values = {int(b.queries[0]): float(parse_measure("mrr")(b)[0]) for b in batches}
    assert values == {0: 0.5, 1: 1.0}
