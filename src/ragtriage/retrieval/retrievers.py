"""Retrievers ragtriage can run itself: the embedded BM25 demo and user callables.

A retriever maps a query to ranked chunks. The embedded BM25 (the ``bm25s`` package,
k1=0.9, b=0.4 over title + text, English stopwords) lets stage 1 run with no user
system at all; ``module:function`` callables plug in the user's own.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from types import ModuleType

from ragtriage.data.models import Chunk, GoldenSet, passage_text
from ragtriage.data.tables import Run
from ragtriage.errors import InputError

__all__ = [
    "BM25Retriever",
    "Hit",
    "Retriever",
    "as_hits",
    "load_callable",
    "run_retriever",
    "with_text",
]


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk: its id, score and (when the retriever gives it) text and title."""

    id: str
    score: float
    text: str = ""
    title: str = ""

    @property
    def passage(self) -> str:
        """Title line and text, as the generator reads it (:func:`passage_text`)."""
        return passage_text(self.title, self.text)


Retriever = Callable[[str, int], Sequence[Hit]]


class BM25Retriever:
    """Okapi BM25 over a corpus with ``bm25s``; deterministic and offline."""

    def __init__(self, corpus: dict[str, Chunk], k1: float = 0.9, b: float = 0.4) -> None:
        import bm25s

        if not corpus:
            raise InputError("the corpus is empty: BM25 has nothing to index", field="corpus")
        self._bm25s = bm25s
        self.chunks = list(corpus.values())
        texts = [c.passage for c in self.chunks]
        self.model = bm25s.BM25(k1=k1, b=b)
        self.model.index(self._tokens(texts), show_progress=False)

    def _tokens(self, texts: list[str]):
        return self._bm25s.tokenize(texts, stopwords="en", show_progress=False)

    def search_many(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        k = min(k, len(self.chunks))
        docs, scores = self.model.retrieve(
            self._tokens(list(queries)), k=k, show_progress=False, n_threads=1
        )
        return [
            _trec_order(
                [
                    Hit(self.chunks[d].id, float(s), self.chunks[d].text, self.chunks[d].title)
                    for d, s in zip(row_docs, row_scores, strict=True)
                ]
            )
            for row_docs, row_scores in zip(docs, scores, strict=True)
        ]

    def __call__(self, query: str, k: int) -> list[Hit]:
        return self.search_many([query], k)[0]


def _trec_order(hits: list[Hit]) -> list[Hit]:
    """Score descending, ties by doc id descending, as trec_eval ranks a run: the order
    the generator reads and stage 1 scores. ``bm25s`` leaves tied scores (every chunk
    matching no query word scores 0) in the order numpy's unstable sort gives, which
    may differ between CPUs; Python's sorts are stable, so two passes give the order."""
    by_id = sorted(hits, key=lambda h: h.id, reverse=True)  # code points order as strcmp
    return sorted(by_id, key=lambda h: h.score, reverse=True)


def load_callable(spec: str, field: str = "retriever") -> Callable:
    """Import ``module:function`` from the working directory or ``sys.path``; ``field``
    names the option in errors."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise InputError(f"expected 'module:function', got {spec!r}", field=field)
    module = _import_from_cwd(module_name, field)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise InputError(f"{module_name!r} has no attribute {attr!r}", field=field) from None


def _import_from_cwd(module_name: str, field: str) -> ModuleType:
    """Import a module as ``python -m`` would, the working directory first: the
    ``ragtriage`` script's ``sys.path`` lacks it, so a user's ``mymod.py`` beside their
    data was not found without ``PYTHONPATH=.``. The directory is on the path for this
    import only (a library call must not change the caller's ``sys.path``)."""
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        if _missing_dependency(exc, module_name):
            raise InputError(
                f"importing {module_name!r} failed: {exc} (a module it imports is not installed)",
                field=field,
            ) from None
        raise InputError(
            f"cannot import {module_name!r}: {exc} (looked in the working directory {cwd} "
            f"and on sys.path; set PYTHONPATH to the folder that holds it)",
            field=field,
        ) from None
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)


def _missing_dependency(exc: ImportError, module_name: str) -> bool:
    """The module was found, but a module it imports was not (not one of its parents)."""
    missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
    return bool(missing) and not f"{module_name}.".startswith(f"{missing}.")


def as_hits(result: Sequence, spec: str, case_id: str | None = None) -> list[Hit]:
    """Normalise what a user retriever returned: Hits, dicts, (id, score) pairs or ids.

    A score that is NaN is refused, as it is in a run file: it has no rank. ``case_id``:
    the query every refusal names (the user must know which input broke their code)."""
    spec = f"{spec} on query {case_id!r}" if case_id is not None else spec
    if result is None or isinstance(result, str | bytes) or not hasattr(result, "__iter__"):
        raise InputError(
            f"retriever {spec} returned {type(result).__name__}, not a list of hits",
            field="retriever",
        )
    hits = []
    for rank, item in enumerate(result):
        if isinstance(item, Hit):
            hits.append(item)
        elif isinstance(item, dict) and "id" in item:
            score = float(item.get("score", -rank))
            hits.append(Hit(str(item["id"]), score, item.get("text", ""), item.get("title", "")))
        elif isinstance(item, tuple | list) and len(item) >= 2:
            hits.append(Hit(str(item[0]), float(item[1])))
        elif isinstance(item, str | int):
            hits.append(Hit(str(item), float(-rank)))
        else:
            raise InputError(
                f"retriever {spec} returned an unusable item: {item!r}", field="retriever"
            )
        if math.isnan(hits[-1].score):
            raise InputError(
                f"retriever {spec} returned a NaN score for {hits[-1].id!r}", field="retriever"
            )
    return hits


def with_text(
    hits: list[Hit],
    corpus: dict[str, Chunk] | None,
    spec: str,
    case_id: str,
    *,
    required: bool = False,
) -> list[Hit]:
    """Hits returned without text (ids, ``(id, score)`` pairs, dicts without ``text``)
    get their chunk's text and title from the corpus: the generator got empty passages and
    abstained. An id the corpus lacks has no text to give it and is refused, naming the
    retriever, the query and the id. Without a corpus the hits stay as returned, unless
    ``required`` (a generator will read them): then a hit without text is refused."""
    if corpus is None and not required:
        return hits
    out = []
    for hit in hits:
        if hit.text:
            out.append(hit)
        elif corpus is None:
            raise InputError(
                f"retriever {spec} returned id {hit.id!r} without text for query {case_id!r}, "
                "and the golden set has no corpus to take it from: return each chunk's text "
                "(dicts with 'text') or put a corpus.jsonl beside the golden set",
                field="retriever",
            )
        elif (chunk := corpus.get(hit.id)) is not None:
            out.append(replace(hit, text=chunk.text, title=hit.title or chunk.title))
        else:
            raise InputError(
                f"retriever {spec} returned id {hit.id!r} for query {case_id!r}, which the "
                "corpus lacks (and no text for it): return ids of the golden set's corpus",
                field="retriever",
            )
    return out


def _retrieve(
    fn: Callable, takes_k: bool, spec: str, case_id: str, query: str, k: int
) -> list[Hit]:
    """One query through the user's retriever; what it raises is an error naming it and
    the query (exit 2), not a traceback."""
    try:
        result = fn(query, k) if takes_k else fn(query)
    except Exception as exc:  # the user's code: any failure is reported, not re-raised raw
        raise InputError(
            f"retriever {spec} raised {type(exc).__name__} on query {case_id!r}: {exc}",
            field="retriever",
        ) from exc
    return as_hits(result, spec, case_id)[:k]


def run_retriever(
    golden: GoldenSet, retriever: str, k: int, *, texts: bool = False
) -> tuple[Run, dict[str, list[Hit]]]:
    """Run ``bm25`` (on the golden set's corpus) or a ``module:function`` over every query;
    ``texts``: every hit must have its text (a generator reads them, :func:`with_text`)."""
    queries = [c.query for c in golden.cases]
    if retriever == "bm25":
        if golden.corpus is None:
            raise InputError(
                "--retriever bm25 needs a corpus.jsonl beside the golden set", path=golden.source
            )
        results = BM25Retriever(golden.corpus).search_many(queries, k)
    else:
        fn = load_callable(retriever)
        takes_k = _takes_k(fn)  # one signature check, not one per query
        results = [
            with_text(_retrieve(fn, takes_k, retriever, c.id, c.query, k), golden.corpus,
                      retriever, c.id, required=texts)
            for c in golden.cases
        ]  # fmt: skip
    hits = {c.id: r for c, r in zip(golden.cases, results, strict=True)}
    run = Run.from_columns(
        [q for q, r in hits.items() for _ in r],
        [h.id for r in hits.values() for h in r],
        [h.score for r in hits.values() for h in r],
        source=f"retriever:{retriever}",
    )
    run.order = "given"  # what the retriever returned, in its order, is what is scored
    return run, hits


def _takes_k(fn: Callable) -> bool:
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return len(params) >= 2
