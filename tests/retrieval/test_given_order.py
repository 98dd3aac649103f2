"""A run in the system's own order (``Run.order == "given"``: a trace, a retriever ragtriage
ran) is ranked as listed; a run file is ranked as trec_eval ranks it. Same rows, both
rules, so the difference is only the order."""

from __future__ import annotations

import numpy as np

from ragtriage.data.tables import Qrels, Run
from ragtriage.retrieval.ranking import rank


def _ranked_ids(order: str, batch_cells: int = 1 << 18) -> dict[str, list[str]]:
    run = Run.from_columns(
        ["q1"] * 5 + ["q2"] * 3,
        ["b", "a", "c", "b", "d", "x", "z", "y"],  # q1 lists "b" twice
        [1.0, 1.0, 1.0, 0.5, 2.0, 0.0, 0.0, 0.0],  # "d" scores highest, listed last
    )
    run.order = order  # type: ignore[assignment]
    qrels = Qrels.from_pairs(["q1", "q2"], [("q1", "c", 1), ("q2", "y", 1)])
    batches, stats = rank(run, qrels, batch_cells=batch_cells)
    out = {}
    for batch in batches:
        for row, query in enumerate(batch.queries):
            valid = batch.rows[row] >= 0
            out[str(qrels.query_ids[query])] = batch.doc_ids(row, int(valid.sum()))
    assert stats.duplicates == 1
    return out


def test_given_order_ranks_as_listed_and_keeps_the_first_copy():
    assert _ranked_ids("given") == {"q1": ["b", "a", "c", "d"], "q2": ["x", "z", "y"]}


def test_score_order_is_trec_evals():
    # score descending, ties by doc id descending; the duplicate keeps its best-ranked copy
    assert _ranked_ids("score") == {"q1": ["d", "c", "b", "a"], "q2": ["z", "y", "x"]}


def test_given_order_across_batches_of_unequal_lists():
    # one query per batch: padding and per-batch offsets must keep each list's order
    assert _ranked_ids("given", batch_cells=1) == _ranked_ids("given")


def test_given_order_labels_follow_the_listed_ranks():
    run = Run.from_columns(["q"] * 3, ["r", "s", "t"], [0.0, 0.0, 0.0])
    run.order = "given"
    qrels = Qrels.from_pairs(["q"], [("q", "t", 1)])
    (batch,), _ = rank(run, qrels)
    assert np.array_equal(batch.labels[0] >= 1, [False, False, True])
