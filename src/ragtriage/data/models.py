"""The rows of the golden set and corpus, as pydantic models.

A golden case holds graded judgements (``relevance``: chunk id -> grade); the familiar
``expected`` list is the ids judged relevant. An empty ``expected`` list means the query
is *unanswerable*: the corpus holds nothing that answers it, and the right behaviour is
to say so rather than to retrieve confidently and answer.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DEFAULT_CONTEXT_K",
    "Chunk",
    "GoldenCase",
    "GoldenSet",
    "RetrievedChunk",
    "Trace",
    "corpus_sha256",
    "passage_text",
]


def passage_text(title: str, text: str) -> str:
    """What a reader of a chunk sees: the title line, then the text. Retrieval indexes
    it, the generator reads it and the judge checks answers against it: in collections
    like ClapNQ the passage names its subject only in the title."""
    return f"{title}\n{text}" if title else text


class Chunk(BaseModel):
    """One retrievable unit of the corpus."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    title: str = ""
    tenant: str | None = None  # owner of the chunk; None = public (see retrieval/leaks.py)

    @property
    def passage(self) -> str:
        """Title line and text (:func:`passage_text`)."""
        return passage_text(self.title, self.text)


class GoldenCase(BaseModel):
    """One golden query with its judged chunks."""

    model_config = ConfigDict(frozen=True)

    id: str
    query: str
    relevance: dict[str, int] = Field(default_factory=dict)
    tags: tuple[str, ...] = ()
    reference_answer: str | None = None
    # Access control: ids that must never be retrieved; the tenants whose chunks the user
    # may see (``tenant`` is shorthand for a one-entry ``acl``). See retrieval/leaks.py.
    forbidden: tuple[str, ...] = ()
    tenant: str | None = None
    acl: tuple[str, ...] = ()
    split: Literal["dev", "holdout"] = "dev"  # "holdout": held back (data/holdout.py)
    source: str | None = None  # where the case came from (e.g. an audited failure)

    def canonical(self) -> dict:
        """JSON fields for hashing; the optional fields above only when set, so hashes of
        golden sets written before they existed do not change."""
        data = self.model_dump(mode="json")
        for name in _OPTIONAL_FIELDS:
            if data[name] == _DEFAULTS[name]:
                del data[name]
        return data

    def expected(self, level: int = 1) -> list[str]:
        """Chunk ids judged relevant at ``level`` or above (trec_eval's relevance level)."""
        return [doc for doc, grade in self.relevance.items() if grade >= level]

    def answerable(self, level: int = 1) -> bool:
        return bool(self.expected(level))


class GoldenSet(BaseModel):
    """A golden set: cases (in file order), an optional corpus, and where they came from."""

    cases: list[GoldenCase]
    corpus: dict[str, Chunk] | None = None
    source: str = ""
    format: str = "ragtriage"  # the format read (data/formats/detect.py), e.g. "ragas-jsonl"
    notes: list[str] = Field(default_factory=list)  # what the reader did that a user should know

    def case(self, case_id: str) -> GoldenCase:
        return self._by_id()[case_id]

    def _by_id(self) -> dict[str, GoldenCase]:
        return {case.id: case for case in self.cases}

    def content_hash(self) -> str:
        """sha256 of the cases' canonical JSON: two results on different sets can be told apart."""
        payload = json.dumps([case.canonical() for case in self.cases], sort_keys=True).encode()
        return hashlib.sha256(payload).hexdigest()

    def tags_by_case(self) -> dict[str, tuple[str, ...]]:
        return {case.id: case.tags for case in self.cases}


_OPTIONAL_FIELDS = ("forbidden", "tenant", "acl", "split", "source")
_DEFAULTS = GoldenCase(id="", query="").model_dump(mode="json")  # as canonical() sees them


def corpus_sha256(corpus: dict[str, Chunk]) -> str:
    """sha256 of the chunks' canonical JSON in id order: blind to file layout and row order,
    so it changes exactly when a chunk is added, deleted, re-chunked or re-worded."""
    digest = hashlib.sha256()
    for doc_id in sorted(corpus):
        row = corpus[doc_id].model_dump(mode="json", exclude_none=True)
        digest.update(json.dumps(row, sort_keys=True).encode() + b"\n")
    return digest.hexdigest()


# Chunks passed on to the generator: what the embedded system passes, what a trace that
# names neither context_ids nor context_k is read as, and what an audit result written
# without the setting was run with. One value, so the three never drift apart.
DEFAULT_CONTEXT_K = 3


class RetrievedChunk(BaseModel):
    """One retrieved chunk of a trace; ``score`` is None when the tool wrote none."""

    id: str
    score: float | None = None
    text: str = ""


class Trace(BaseModel):
    """What the system under test did for one golden query."""

    query_id: str
    retrieved: list[RetrievedChunk]
    context_ids: list[str]  # the chunks actually passed to the generator
    answer: str
    generation_error: str | None = None  # why no answer was generated (the case is unscored)
