"""Every metric equals pytrec_eval (trec_eval 9.0.8) per query, on random runs, with
short ids and with ids shaped like real collections' ids."""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtriage import evaluate_retrieval
from ragtriage.data.tables import Qrels, Run
from ragtriage.errors import InputError
from tests.support.collection_ids import id_pool

# ragtriage name -> trec_eval measure
PAIRS = {
    "precision@1": "P_1",
    "precision@5": "P_5",
    "precision@10": "P_10",
    "recall@5": "recall_5",
    "recall@10": "recall_10",
    "hit_rate@1": "success_1",
    "hit_rate@5": "success_5",
    "hit_rate@10": "success_10",
    "mrr": "recip_rank",
    "ndcg@5": "ndcg_cut_5",
    "ndcg@10": "ndcg_cut_10",
    "ndcg": "ndcg",
    "map": "map",
    "map@5": "map_cut_5",
    "map@10": "map_cut_10",
    "r_precision": "Rprec",
}
TREC_MEASURES = {
    "P.1,5,10",
    "recall.5,10",
    "success.1,5,10",
    "recip_rank",
    "ndcg_cut.5,10",
    "ndcg",
    "map",
    "map_cut.5,10",
    "Rprec",
}

SCORES = st.one_of(
    st.integers(0, 4).map(float),  # many ties
    st.floats(-10, 10, allow_nan=False, width=64),
    st.sampled_from([0.1, 0.1 + 1e-9, 0.1 + 2e-9]),  # equal at float32, distinct at float64
    st.sampled_from([math.inf, -math.inf]),  # trec_eval reads them; inf ties inf
)
SHORT_IDS = st.just([f"d{i:02d}" for i in range(30)])


@st.composite
def collections(draw, pools=SHORT_IDS):
    docs = draw(pools)
    query_ids = draw(st.one_of(st.just([f"q{i}" for i in range(6)]), id_pool(6, 6)))
    n_queries = draw(st.integers(1, 6))
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = query_ids[q]
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=10, unique=True))
        qrels[qid] = {d: draw(st.integers(0, 3)) for d in judged}
        if draw(st.booleans()) or q == 0:
            retrieved = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=25, unique=True))
            run[qid] = {d: draw(SCORES) for d in retrieved}
    level = draw(st.integers(1, 2))
    return qrels, run, level


def trec_values(qrels, run, level):
    # pytrec_eval compares scores as float32 only once parsed; pass them already rounded,
    # as trec_eval's text reader would have
    run32 = {q: {d: float(np.float32(s)) for d, s in docs.items()} for q, docs in run.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, relevance_level=level)
    return evaluator.evaluate(run32)


def ours(qrels, run, level, **options):
    q = Qrels.from_pairs(
        qrels, [(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()]
    )
    r = Run.from_columns(
        [qid for qid, docs in run.items() for _ in docs],
        [d for docs in run.values() for d in docs],
        [s for docs in run.values() for s in docs.values()],
    )
    options.setdefault("resamples", 20)  # the intervals are not under test: keep it fast
    options.setdefault("precision", "float32")  # pytrec_eval's trec_eval compares floats
    report = evaluate_retrieval(q, r, list(PAIRS), relevance_level=level, **options)
    return report


def assert_equals_pytrec_eval(qrels, run, level):
    """Every query of the qrels is scored, those judged with nothing relevant included
    (0, averaged in), each metric equal to pytrec_eval's."""
    expected = trec_values(qrels, run, level)
    report = ours(qrels, run, level)
    assert set(report.per_query.index) == set(qrels)
    assert report.config.nothing_relevant == "zero"
    for qid in qrels:
        if qid not in expected:  # trec_eval skips queries absent from the run; we score 0
            assert (report.per_query.loc[qid] == 0).all()
            continue
        for ours_name, trec_name in PAIRS.items():
            got = report.per_query.loc[qid, ours_name]
            assert abs(got - expected[qid][trec_name]) <= 1e-9, (qid, ours_name)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_every_metric_equals_pytrec_eval_per_query(collection):
    assert_equals_pytrec_eval(*collection)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(pools=id_pool(30, 30)))
def test_every_metric_equals_pytrec_eval_on_real_collection_ids(collection):
    """Ids as TREC disks, MS MARCO v2.1, ClueWeb, UUIDs, non-ASCII and long shared
    prefixes spell them: several 8-byte words each, so ties are broken and duplicates
    found on the multi-word paths."""
    assert_equals_pytrec_eval(*collection)


def test_a_query_judged_with_nothing_relevant_is_scored_zero_and_averaged_in():
    """The issue's case: trec_eval reports P_5 = 0.1333 over 3 queries, not 0.2 over 2."""
    qrels = {"q1": {"a": 0, "b": 0}, "q2": {"a": 1}, "q5": {"b": 1, "a": 0}}
    run = {q: {"a": 1.0, "b": 0.5} for q in qrels}
    report = ours(qrels, run, 1)
    assert report.per_query["precision@5"].to_dict() == {"q1": 0.0, "q2": 0.2, "q5": 0.2}
    assert report.aggregate("precision@5").mean == pytest.approx(0.4 / 3)
    assert report.aggregate("precision@5").n == 3
    assert report.unanswerable is None and report.n_unanswerable == 1


def test_the_unanswerable_reading_leaves_them_out_and_reports_them():
    qrels = {"q1": {"a": 0, "b": 0}, "q2": {"a": 1}, "q5": {"b": 1, "a": 0}}
    run = {q: {"a": 1.0, "b": 0.5} for q in qrels}
    report = ours(qrels, run, 1, nothing_relevant="unanswerable")
    assert sorted(report.per_query.index) == ["q2", "q5"]
    assert report.aggregate("precision@5").mean == pytest.approx(0.2)
    assert report.unanswerable is not None and report.unanswerable.n == 1
    assert report.config.nothing_relevant == "unanswerable"
    with pytest.raises(InputError, match="'zero' or 'unanswerable'"):
        ours(qrels, run, 1, nothing_relevant="skip")


def test_a_golden_sets_unanswerable_query_stays_apart_unless_asked():
    golden = [
        {"id": "a", "query": "q", "expected": ["d1"]},
        {"id": "u", "query": "q", "expected": []},
    ]
    run = {"a": ["d1", "d2"], "u": ["d2"]}
    apart = evaluate_retrieval(golden, run, ["mrr"], resamples=10)
    assert apart.config.nothing_relevant == "unanswerable"
    assert list(apart.per_query.index) == ["a"] and apart.unanswerable.n == 1
    zero = evaluate_retrieval(golden, run, ["mrr"], resamples=10, nothing_relevant="zero")
    assert zero.per_query["mrr"].to_dict() == {"a": 1.0, "u": 0.0}
    assert zero.unanswerable is None and zero.aggregate("mrr").mean == 0.5


def _sorted_run(run, flip: bool):
    """Each list written best first, as run files are (ties and -0.0/0.0 kept as drawn);
    ``flip`` writes one list worst first, which the fast path must not trust."""
    out = {}
    for i, (qid, docs) in enumerate(run.items()):
        items = sorted(docs.items(), key=lambda kv: -kv[1])
        out[qid] = dict(reversed(items) if flip and i == 0 else items)
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections(), st.booleans(), st.sampled_from(["float32", "float64"]))
def test_lists_already_in_rank_order_rank_as_a_full_sort_ranks_them(collection, flip, precision):
    """A list whose scores strictly fall skips the sort (ranking._strictly_falling): the
    ranked rows are what the sort gives, for every list, ties and -0.0 included."""
    from ragtriage.retrieval import ranking

    qrels, run, level = collection
    run = _sorted_run(run, flip)
    q = Qrels.from_pairs(
        qrels, [(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()]
    )
    r = Run.from_columns(
        [qid for qid, docs in run.items() for _ in docs],
        [d for docs in run.values() for d in docs],
        [s for docs in run.values() for s in docs.values()],
    )
    fast, _ = ranking.rank(r, q, level=level, precision=precision)
    original = ranking._strictly_falling
    try:
        ranking._strictly_falling = lambda score, valid, p: np.zeros(len(score), bool)
        full, _ = ranking.rank(r, q, level=level, precision=precision)
    finally:
        ranking._strictly_falling = original
    for a, b in zip(fast, full, strict=True):
        assert a.rows.tolist() == b.rows.tolist() and a.labels.tolist() == b.labels.tolist()
    if precision == "float32":
        assert_equals_pytrec_eval(qrels, run, level)


def test_lists_read_in_place_leave_the_run_alone_when_a_duplicate_is_dropped():
    """Lists end to end in the run are read in place (ranking._block); dropping a doc
    listed twice must then copy, not write into the run's own doc words."""
    from ragtriage.retrieval import ranking

    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    lists = {"q1": [("a", 3.0), ("a", 2.0), ("b", 1.0)], "q2": [("c", 3.0), ("d", 2.0), ("e", 1.0)]}
    q = Qrels.from_pairs(
        qrels, [(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()]
    )
    r = Run.from_columns(
        [qid for qid, rows in lists.items() for _ in rows],
        [d for rows in lists.values() for d, _ in rows],
        [s for rows in lists.values() for _, s in rows],
    )
    before = r.words.copy()
    in_place, stats = ranking.rank(r, q)
    assert stats.duplicates == 1 and (r.words == before).all()
    original = ranking._block
    try:
        ranking._block = lambda first, depth: None
        gathered, _ = ranking.rank(r, q)
    finally:
        ranking._block = original
    for a, b in zip(in_place, gathered, strict=True):
        assert a.rows.tolist() == b.rows.tolist() and a.labels.tolist() == b.labels.tolist()
