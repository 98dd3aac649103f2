"""Rebuild golden.jsonl from the ClapNQ retrieval collection in ../shared/data/clapnq_retrieval.

Usage: python golden_sets/clapnq/build.py ../shared/data/clapnq_retrieval
Copies corpus.jsonl and qrels.tsv unchanged and writes golden.jsonl in ragtriage's own
shape ({id, query, expected, tags, reference_answer}); tags are derived from the query
text only (answerable/unanswerable, question word, has-number), never from the answer.
"""

import json
import re
import shutil
import sys
from pathlib import Path

WH = ("who", "what", "when", "where", "which", "why", "how")


def question_word(query: str) -> str:
    for word in query.lower().split()[:3]:
        if word in WH:
            return word
    return "other"


def main(source: Path, out: Path) -> None:
    shutil.copy(source / "corpus.jsonl", out / "corpus.jsonl")
    shutil.copy(source / "qrels.tsv", out / "qrels.tsv")
    rows = []
    for line in (source / "queries.jsonl").open(encoding="utf-8"):
        record = json.loads(line)
        tags = ["answerable" if record["answerable"] else "unanswerable"]
        tags.append("wh:" + question_word(record["text"]))
        if re.search(r"\d", record["text"]):
            tags.append("has-number")
        row = {"id": record["id"], "query": record["text"],
               "expected": record["relevant_doc_ids"], "tags": tags}
        if record["reference_answers"]:
            row["reference_answer"] = record["reference_answers"][0]
        rows.append(json.dumps(row, ensure_ascii=False))
    (out / "golden.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(__file__).resolve().parent)
