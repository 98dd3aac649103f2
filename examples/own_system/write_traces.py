"""Log what the system did for every golden query as a trace file ragtriage reads.

This is what you add to your own system when you cannot hand ragtriage callables (a
service in another language, answers already in production logs): one JSON line per query
with the ranked chunks it retrieved, the ones it passed to the generator, and its answer.

    python examples/own_system/write_traces.py > examples/own_system/traces.jsonl
    ragtriage audit --golden examples/own_system --traces examples/own_system/traces.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pipeline import answer, search

GOLDEN = Path(__file__).with_name("golden.jsonl")
DEPTH = 10  # chunks retrieved per query (what the retrieval metrics see)
CONTEXT_K = 3  # chunks passed to the generator


class Chunk:
    """What ``answer`` reads of a hit: its id and text."""

    def __init__(self, hit: dict) -> None:
        self.id, self.text = hit["id"], hit["text"]


def trace(query_id: str, query: str) -> dict:
    """One line of the trace file: query_id, retrieved (ranked), context_ids, answer."""
    hits = search(query, DEPTH)
    context = hits[:CONTEXT_K]
    return {
        "query_id": query_id,
        "retrieved": [
            {"id": h["id"], "score": round(h["score"], 4), "text": h["text"]} for h in hits
        ],
        "context_ids": [h["id"] for h in context],
        "answer": answer(query, [Chunk(h) for h in context]),
    }


def main() -> None:
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        sys.stdout.write(json.dumps(trace(case["id"], case["query"]), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
