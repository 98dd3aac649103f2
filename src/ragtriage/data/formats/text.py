"""One normalisation of text, for the two places where text stands in for an id: a chunk
known only by its text gets the id ``h:`` + a hash of its normalised text (the same
passage gets the same id in the golden set and in the traces), and a trace known only by
its query is matched to the golden case whose normalised query is equal.

Normalised: Unicode NFKC, case folded, runs of white space one space, trimmed; a query
also loses its final ``?``, ``.`` or ``!`` (systems add or drop a question mark; two
golden queries that differ only there are one question). Nothing more: fuzzier matching
would pair a trace with the wrong golden case without a word.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from ragtriage.data.containers import Given

__all__ = ["QueryIndex", "normalise", "query_form", "query_key", "text_id"]

_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def text_id(text: str) -> str:
    """A chunk's id from its text: stable across files, runs and machines."""
    return "h:" + hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()[:16]


def query_key(text: str) -> str:
    """The id of a traced query that matches no golden case (listed as a mismatch)."""
    return "unmatched:" + hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()[:10]


def query_form(query: str) -> str:
    """A query as it is matched: normalised, its final ``?``, ``.`` or ``!`` dropped."""
    return normalise(query).rstrip("?.! ")


class QueryIndex:
    """Golden case ids by normalised query; a query asked by two cases matches the first.

    ``source``: the golden set's file, if any; traces read from that same file (one ragas
    dataset given as both) match their own rows, which is no news to report.
    """

    def __init__(self, cases: Iterable[tuple[str, str]], source: str | Path | None = None) -> None:
        self.source = Path(source) if source else None
        self.by_query: dict[str, str] = {}
        self.ids: set[str] = set()
        for case_id, query in cases:
            self.ids.add(case_id)
            self.by_query.setdefault(query_form(query), case_id)

    def find(self, query: str) -> str | None:
        return self.by_query.get(query_form(query))

    def read_from(self, path: Path | Given) -> bool:
        """Whether ``path`` is the very file the golden set was read from."""
        if self.source is None or not isinstance(path, Path) or not self.source.is_file():
            return False
        try:
            return self.source.samefile(path)
        except OSError:
            return False
