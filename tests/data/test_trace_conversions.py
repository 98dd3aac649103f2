"""What a trace converts into (data/traces.py, beside ``Trace``): the retrieved lists as a
run ranked as given, the chunks as stage 1 ranks them, and the text of every chunk known."""

from __future__ import annotations

import numpy as np

from ragtriage.data.models import Chunk, GoldenCase, GoldenSet, RetrievedChunk, Trace
from ragtriage.data.traces import chunk_texts, ranked_chunks, run_from_traces


def _golden() -> GoldenSet:
    cases = [GoldenCase(id="q1", query="one?"), GoldenCase(id="q2", query="two?")]
    corpus = {"c1": Chunk(id="c1", title="T", text="corpus one"), "c2": Chunk(id="c2", text="x")}
    return GoldenSet(cases=cases, corpus=corpus)


def _trace(query_id: str, *chunks: RetrievedChunk) -> Trace:
    return Trace(query_id=query_id, retrieved=list(chunks), context_ids=[], answer="a")


def test_a_run_from_traces_keeps_the_given_order_and_ranks_unscored_chunks_by_position():
    traces = {
        "q1": _trace("q1", RetrievedChunk(id="c2", score=0.2), RetrievedChunk(id="c1", score=0.9)),
        "q2": _trace("q2", RetrievedChunk(id="c1"), RetrievedChunk(id="c2")),
    }
    run = run_from_traces(traces, _golden())
    assert run.order == "given" and run.scored and run.source == "traces"
    assert list(run.query_ids[run.query]) == ["q1", "q1", "q2", "q2"]
    assert run.doc_strings(np.arange(len(run))) == ["c2", "c1", "c1", "c2"]
    assert list(run.score) == [0.2, 0.9, 0.0, -1.0]


def test_a_run_of_positions_only_says_it_has_no_scores():
    traces = {"q1": _trace("q1", RetrievedChunk(id="c1"), RetrievedChunk(id="c2"))}
    run = run_from_traces(traces, _golden())
    assert not run.scored and len(run) == 2  # q2 has no trace: no rows


def test_ranked_chunks_keep_a_repeated_chunk_at_its_first_place():
    first, other = RetrievedChunk(id="c2", text="first"), RetrievedChunk(id="c1")
    trace = _trace("q1", first, other, RetrievedChunk(id="c2"))
    ranked = ranked_chunks(trace)
    assert [c.id for c in ranked] == ["c2", "c1"] and ranked[0].text == "first"


def test_chunk_texts_prefer_the_trace_text_over_the_corpus_passage():
    traces = {"q1": _trace("q1", RetrievedChunk(id="c1", text="from the trace"))}
    texts = chunk_texts(_golden(), traces)
    assert texts == {"c1": "from the trace", "c2": "x"}
    assert chunk_texts(_golden(), {})["c1"] == "T\ncorpus one"
