"""Every metric equals pytrec_eval (trec_eval 9.0.8) per query, on random runs."""

from __future__ import annotations

import numpy as np
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtriage import evaluate_retrieval
from ragtriage.data.tables import Qrels, Run

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

DOCS = [f"d{i:02d}" for i in range(30)]
SCORES = st.one_of(
    st.integers(0, 4).map(float),  # many ties
    st.floats(-10, 10, allow_nan=False, width=64),
    st.sampled_from([0.1, 0.1 + 1e-9, 0.1 + 2e-9]),  # equal at float32, distinct at float64
)


@st.composite
def collections(draw):
    n_queries = draw(st.integers(1, 6))
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        qrels[qid] = {d: draw(st.integers(0, 3)) for d in judged}
        if draw(st.booleans()) or q == 0:
            retrieved = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=25, unique=True))
            run[qid] = {d: draw(SCORES) for d in retrieved}
    level = draw(st.integers(1, 2))
    return qrels, run, level


def trec_values(qrels, run, level):
    # pytrec_eval compares scores as float32 only once parsed; pass them already rounded,
    # as trec_eval's text reader would have
    run32 = {q: {d: float(np.float32(s)) for d, s in docs.items()} for q, docs in run.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, relevance_level=level)
    return evaluator.evaluate(run32)


def ours(qrels, run, level):
    q = Qrels.from_pairs(
        qrels, [(qid, d, g) for qid, docs in qrels.items() for d, g in docs.items()]
    )
    r = Run.from_columns(
        [qid for qid, docs in run.items() for _ in docs],
        [d for docs in run.values() for d in docs],
        [s for docs in run.values() for s in docs.values()],
    )
    report = evaluate_retrieval(q, r, list(PAIRS), relevance_level=level)
    return report


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_every_metric_equals_pytrec_eval_per_query(collection):
    qrels, run, level = collection
    expected = trec_values(qrels, run, level)
    report = ours(qrels, run, level)
    answerable = {q for q, docs in qrels.items() if any(g >= level for g in docs.values())}
    assert set(report.per_query.index) == answerable
    for qid in answerable:
        if qid not in expected:  # trec_eval skips queries absent from the run; we score 0
            assert (report.per_query.loc[qid] == 0).all()
            continue
        for ours_name, trec_name in PAIRS.items():
            got = report.per_query.loc[qid, ours_name]
            assert abs(got - expected[qid][trec_name]) <= 1e-9, (qid, ours_name)
