"""A chunk's title is part of what the generator reads and the judge checks against.

In collections like ClapNQ a passage names its subject only in its title ("Shelley
Morrison" is the title; the text says "She ..."), so a reference answer naming the
subject would otherwise be a name "the evidence lacks". The built-in extractive generator
still answers with sentences of the text, never with a bare title.
"""

from __future__ import annotations

from ragtriage.data.golden import load_golden
from ragtriage.data.models import Chunk
from ragtriage.data.traces import chunk_texts
from ragtriage.retrieval.retrievers import BM25Retriever, Hit
from ragtriage.system.generate import extractive_answer
from tests.conftest import ROOT


def test_the_passage_is_the_title_line_then_the_text():
    assert Chunk(id="a", title="Shelley Morrison", text="She played Rosario.").passage == (
        "Shelley Morrison\nShe played Rosario."
    )
    assert Chunk(id="a", text="No title.").passage == "No title."
    assert Hit("a", 1.0, "She played Rosario.", "Shelley Morrison").passage.startswith("Shelley")


def test_the_judge_sees_titles_of_corpus_chunks_and_trace_text_wins():
    golden = load_golden(ROOT / "golden_sets" / "clapnq")
    texts = chunk_texts(golden, {})
    chunk = next(c for c in (golden.corpus or {}).values() if c.title)
    assert texts[chunk.id] == f"{chunk.title}\n{chunk.text}"


def test_the_extractive_generator_never_answers_with_a_title():
    golden = load_golden(ROOT / "golden_sets" / "clapnq")
    corpus = golden.corpus or {}
    titles = {c.title for c in corpus.values()}
    retriever = BM25Retriever(corpus)
    cases = golden.cases[:60]
    hits = retriever.search_many([c.query for c in cases], 3)
    answers = [extractive_answer(c.query, h) for c, h in zip(cases, hits, strict=True)]
    assert not titles & set(answers)
    assert all(h.title for hs in hits for h in hs)  # the titles were there to pick
