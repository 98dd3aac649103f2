"""The BEIR layout: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``.

Following BEIR, the queries evaluated are those that appear in the split's qrels.
"""

from __future__ import annotations

from pathlib import Path

from ragtriage.data.containers import iter_records, read_text, split_lines
from ragtriage.data.models import Chunk, GoldenCase, GoldenSet
from ragtriage.data.rows import CorpusRow, checked, relevance_grade, validated
from ragtriage.errors import InputError

__all__ = ["is_beir_dir", "load_beir", "load_chunks", "read_beir_qrels"]


def is_beir_dir(path: Path) -> bool:
    return (path / "queries.jsonl").is_file() and (path / "qrels").is_dir()


def load_chunks(path: Path) -> dict[str, Chunk]:
    """``corpus.jsonl`` rows (``rows.CorpusRow``) keyed by id; duplicate ids are errors."""
    corpus: dict[str, Chunk] = {}
    for line, record in iter_records(path):
        row = validated(CorpusRow, record, path, line)
        if row.id in corpus:
            key = "_id" if "_id" in record else "id"
            raise InputError(f"duplicate chunk id {row.id!r}", path=path, line=line, field=key)
        corpus[row.id] = Chunk(**row.model_dump())
    return corpus


def read_beir_qrels(path: Path) -> list[tuple[int, str, str, int]]:
    """``(line, query_id, doc_id, grade)`` rows of a BEIR qrels TSV (header optional)."""
    rows = []
    for number, raw in enumerate(split_lines(read_text(path)), start=1):
        parts = raw.split("\t") if "\t" in raw else raw.split()
        if not raw.strip() or (number == 1 and parts[0] in ("query-id", "query_id", "qid")):
            continue
        if len(parts) != 3:
            raise InputError(
                f"expected 3 tab-separated columns (query-id, corpus-id, score), got {len(parts)}",
                path=path,
                line=number,
            )
        try:
            grade = int(parts[2])
        except ValueError:
            raise InputError(
                f"score {parts[2][:40]!r} is not an integer", path=path, line=number, field="score"
            ) from None
        grade = checked(relevance_grade, grade, path, number, "score")
        rows.append((number, parts[0], parts[1], grade))
    if not rows:
        raise InputError(
            "no judgements (a qrels file needs query-id, corpus-id, score rows)", path=path
        )
    return rows


def load_beir(path: Path, split: str = "test") -> GoldenSet:
    qrels_path = path / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        raise InputError(f"BEIR split {split!r} has no qrels file", path=qrels_path)
    queries = {}
    for line, record in iter_records(path / "queries.jsonl"):
        row = validated(CorpusRow, record, path / "queries.jsonl", line)
        queries[row.id] = row.text
    relevance: dict[str, dict[str, int]] = {}
    judged: dict[tuple[str, str], int] = {}  # first line of each judgement
    for line, qid, doc, grade in read_beir_qrels(qrels_path):
        if (first := judged.setdefault((qid, doc), line)) != line:
            raise InputError(  # as in TREC qrels: a second grade would silently win
                f"duplicate judgement of ({qid!r}, {doc!r}) (first on line {first})",
                path=qrels_path,
                line=line,
                field="corpus-id",
            )
        if qid not in queries:
            raise InputError(
                f"query {qid!r} is not in queries.jsonl",
                path=qrels_path,
                line=line,
                field="query-id",
            )
        relevance.setdefault(qid, {})[doc] = grade
    cases = [GoldenCase(id=q, query=queries[q], relevance=r) for q, r in relevance.items()]
    corpus_path = path / "corpus.jsonl"
    corpus = load_chunks(corpus_path) if corpus_path.is_file() else None
    return GoldenSet(cases=cases, corpus=corpus, source=str(path))
