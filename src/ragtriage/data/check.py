"""``ragtriage golden check``: is the golden set still valid against this corpus?

Golden sets outlive corpora: a document is deleted or re-chunked, the chunk ids change,
and every case that expected the old ids silently scores 0 ever after (the retriever is
blamed for the corpus). Queries get copied, so two cases weigh one question twice. This
check lists:

* **missing ids**: expected (judged) or forbidden ids that are not in the corpus; a case
  whose every relevant id is gone is **invalid**;
* **duplicate queries**: equal after normalisation (NFKC, case-folded, punctuation
  dropped, whitespace collapsed), and **near-duplicates**: token-set Jaccard similarity
  >= 0.8 (``NEAR_DUPLICATE``: "how do I reset my password" vs "how do I reset my
  password now" is 0.86; 0.8 keeps paraphrases with one word changed in five apart);
* **untagged cases**: they fall out of every per-tag slice.

It also says which golden-set and corpus versions (content hashes) it checked, the same
hashes every result records; ``version_warnings`` flags comparisons across versions.
"""

from __future__ import annotations

import re
import unicodedata
from itertools import combinations
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field
from rich.console import Console
from rich.text import Text

from ragtriage.data.golden import load_chunks
from ragtriage.data.models import Chunk, GoldenSet, corpus_sha256
from ragtriage.data.tables import Qrels
from ragtriage.errors import InputError

NEAR_DUPLICATE = 0.8
_PUNCT = re.compile(r"[^\w\s]+")


class MissingId(BaseModel):
    case_id: str
    doc_id: str
    field: Literal["expected", "relevance_grades", "forbidden"]


class DuplicatePair(BaseModel):
    first: str
    second: str
    kind: Literal["exact", "near"]
    jaccard: float


class CheckReport(BaseModel):
    golden: dict[str, Any]
    corpus: dict[str, Any] | None = None
    missing_ids: list[MissingId] = Field(default_factory=list)
    invalid_cases: list[str] = Field(default_factory=list)  # every relevant id is gone
    duplicates: list[DuplicatePair] = Field(default_factory=list)
    untagged: list[str] = Field(default_factory=list)
    near_duplicate_threshold: float = NEAR_DUPLICATE

    @property
    def ok(self) -> bool:
        """Untagged cases are a warning; missing ids and duplicates fail the check."""
        return not (self.missing_ids or self.duplicates)


def normalise(query: str) -> str:
    text = unicodedata.normalize("NFKC", query).casefold()
    return " ".join(_PUNCT.sub(" ", text).split())


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def duplicate_queries(golden: GoldenSet, threshold: float = NEAR_DUPLICATE) -> list[DuplicatePair]:
    """Exact (normalised) and near (Jaccard >= threshold) duplicate pairs, in file order.

    Pairs whose token-set sizes alone rule out the threshold (min/max < threshold) are
    skipped, so the quadratic scan stays cheap for golden sets of a few thousand cases.
    """
    rows = [(c.id, normalise(c.query)) for c in golden.cases]
    tokens = {cid: frozenset(text.split()) for cid, text in rows}
    pairs = []
    for (a, text_a), (b, text_b) in combinations(rows, 2):
        ta, tb = tokens[a], tokens[b]
        if text_a != text_b and min(len(ta), len(tb)) < threshold * max(len(ta), len(tb)):
            continue
        score = jaccard(ta, tb)
        if text_a == text_b or score >= threshold:
            kind: Literal["exact", "near"] = "exact" if text_a == text_b else "near"
            pairs.append(DuplicatePair(first=a, second=b, kind=kind, jaccard=round(score, 4)))
    return pairs


def missing_ids(golden: GoldenSet, corpus: dict[str, Chunk]) -> list[MissingId]:
    out = []
    for case in golden.cases:
        for doc, grade in case.relevance.items():
            if doc not in corpus:
                field = "expected" if grade >= 1 else "relevance_grades"
                out.append(MissingId(case_id=case.id, doc_id=doc, field=field))
        out += [
            MissingId(case_id=case.id, doc_id=doc, field="forbidden")
            for doc in case.forbidden
            if doc not in corpus
        ]
    return out


def check_golden(golden: GoldenSet, corpus: dict[str, Chunk] | None = None) -> CheckReport:
    """Every check above; the id checks need a corpus (given, or the golden set's own)."""
    corpus = corpus if corpus is not None else golden.corpus
    gone = missing_ids(golden, corpus) if corpus is not None else []
    gone_by_case: dict[str, set[str]] = {}
    for m in gone:
        gone_by_case.setdefault(m.case_id, set()).add(m.doc_id)
    invalid = [
        c.id
        for c in golden.cases
        if c.answerable() and set(c.expected()) <= gone_by_case.get(c.id, set())
    ]
    return CheckReport(
        golden={
            "source": golden.source,
            "sha256": golden.content_hash(),
            "cases": len(golden.cases),
        },
        corpus=(
            {"sha256": corpus_sha256(corpus), "chunks": len(corpus)} if corpus is not None else None
        ),
        missing_ids=gone,
        invalid_cases=invalid,
        duplicates=duplicate_queries(golden),
        untagged=[c.id for c in golden.cases if not c.tags],
    )


def with_corpus(target: GoldenSet | Qrels, path: Path) -> GoldenSet:
    """The golden set with ``path`` as its corpus (replacing any corpus beside it)."""
    if not isinstance(target, GoldenSet):
        raise InputError("--corpus needs --golden (qrels carry no cases)", field="corpus")
    return target.model_copy(update={"corpus": load_chunks(path)})


def version_warnings(base: dict[str, Any], candidate: dict[str, Any]) -> list[str]:
    """Flag two results' ``golden`` sections made on different golden-set or corpus versions."""
    out = []
    for key, what in (("sha256", "golden sets"), ("corpus_sha256", "corpora")):
        a, b = base.get(key), candidate.get(key)
        if a and b and a != b:
            out.append(
                f"the {what} differ (sha256 {a[:12]} vs {b[:12]}): the results were "
                "made on different versions and differences mix both changes"
            )
        elif bool(a) != bool(b):
            out.append(f"only one result records the {what}' hash: cannot tell if they match")
    return out


def split_warnings(base: dict[str, Any] | None, candidate: dict[str, Any] | None) -> list[str]:
    """Flag two results' ``split`` sections that scored different slices of a golden set."""
    slices = [(s or {}).get("evaluated", "all") for s in (base, candidate)]
    if slices[0] == slices[1]:
        return []
    return [
        f"the results score different slices of the golden set ({slices[0]} vs "
        f"{slices[1]}): compare dev with dev, holdout with holdout"
    ]


def render_check(report: CheckReport, console: Console) -> None:
    g = report.golden
    console.print(
        Text(
            f"Golden set {g['source']}: {g['cases']} cases, sha256 {g['sha256'][:16]}", style="bold"
        )
    )
    if report.corpus is None:
        console.print(Text("no corpus: expected ids not checked (give --corpus)", style="yellow"))
    else:
        c = report.corpus
        console.print(Text(f"Corpus: {c['chunks']} chunks, sha256 {c['sha256'][:16]}"))
        _section(
            console,
            "Expected/forbidden ids not in the corpus",
            [f"{m.case_id}: {m.doc_id} ({m.field})" for m in report.missing_ids],
        )
        _section(console, "Invalid cases (every relevant id is gone)", report.invalid_cases)
    _section(
        console,
        f"Duplicate queries (normalised equal, or Jaccard >= {report.near_duplicate_threshold})",
        [f"{d.first} ~ {d.second} ({d.kind}, Jaccard {d.jaccard:.2f})" for d in report.duplicates],
    )
    _section(console, "Cases with no tags", report.untagged, warn_only=True)
    verdict = "OK" if report.ok else "FAILED"
    console.print(Text(f"golden check: {verdict}", style="bold green" if report.ok else "bold red"))


def _section(console: Console, title: str, items: list[str], warn_only: bool = False) -> None:
    style = "green" if not items else "yellow" if warn_only else "red"
    console.print(Text(f"{title}: {len(items)}", style=style))
    for item in items:
        console.print(Text(f"  {item}"))
