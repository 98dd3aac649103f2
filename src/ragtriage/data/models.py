"""The rows of the golden set and corpus, as pydantic models.

A golden case holds graded judgements (``relevance``: chunk id -> grade); the familiar
``expected`` list is the ids judged relevant. An empty ``expected`` list means the query
is *unanswerable*: the corpus holds nothing that answers it, and the right behaviour is
to say so rather than to retrieve confidently and answer.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field


class Chunk(BaseModel):
    """One retrievable unit of the corpus."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    title: str = ""


class GoldenCase(BaseModel):
    """One golden query with its judged chunks."""

    model_config = ConfigDict(frozen=True)

    id: str
    query: str
    relevance: dict[str, int] = Field(default_factory=dict)
    tags: tuple[str, ...] = ()
    reference_answer: str | None = None

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

    def case(self, case_id: str) -> GoldenCase:
        return self._by_id()[case_id]

    def _by_id(self) -> dict[str, GoldenCase]:
        return {case.id: case for case in self.cases}

    def content_hash(self) -> str:
        """sha256 of the cases' canonical JSON: two results on different sets can be told apart."""
        payload = json.dumps(
            [case.model_dump(mode="json") for case in self.cases], sort_keys=True
        ).encode()
        return hashlib.sha256(payload).hexdigest()

    def tags_by_case(self) -> dict[str, tuple[str, ...]]:
        return {case.id: case.tags for case in self.cases}


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
