"""Get the system's behaviour as traces by running it, the top ``context_k`` chunks passed
on; a trace file is read by ``data/traces.py`` instead, which also holds what either kind
of trace converts into (``run_from_traces``, ``chunk_texts``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from ragtriage.data.models import GoldenSet, RetrievedChunk, Trace
from ragtriage.llm.calls import Caller
from ragtriage.retrieval.retrievers import Hit, run_retriever
from ragtriage.system.generate import (
    EMBEDDED,
    GenerationFailed,
    LocalGenerator,
    canonical_generator,
    sync_generator,
)

__all__ = ["Progress", "run_system"]

Progress = Callable[[], None]


async def run_system(
    golden: GoldenSet,
    retriever: str,
    generator: str | LocalGenerator,
    *,
    depth: int,
    context_k: int,
    caller: Caller | None,
    progress: Progress | None = None,
) -> dict[str, Trace]:
    """Retrieve for every golden query, pass the top ``context_k`` on, generate answers
    (``generator``: a name, or the embedded generator built by the caller)."""
    _, hits = run_retriever(golden, retriever, depth, texts=True)
    if isinstance(generator, LocalGenerator):
        generate = generator
    elif canonical_generator(generator) == EMBEDDED:
        assert caller is not None, "the embedded generator needs a model caller"
        generate = LocalGenerator(caller)
    else:
        generate = _as_async(sync_generator(generator))
    traces: dict[str, Trace] = {}
    for case in golden.cases:
        ranked = hits[case.id]
        context = ranked[:context_k]
        answer, error = "", None
        try:
            answer = await generate(case.query, context)
        except GenerationFailed as exc:
            error = str(exc)
        traces[case.id] = Trace(
            query_id=case.id,
            retrieved=[RetrievedChunk(id=h.id, score=h.score, text=h.passage) for h in ranked],
            context_ids=[h.id for h in context],
            answer=answer,
            generation_error=error,
        )
        if progress:
            progress()
    return traces


def _as_async(fn: Callable[[str, Sequence[Hit]], str]):
    async def call(query: str, chunks: Sequence[Hit]) -> str:
        return await asyncio.to_thread(fn, query, chunks)

    return call
