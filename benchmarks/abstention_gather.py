"""Gather real model answers to ClapNQ queries for the abstention set (run once, by hand).

    PYTHONPATH=src python benchmarks/abstention_gather.py > /tmp/answers.jsonl

The embedded model (Qwen2.5-Coder 1.5B, greedy) answers a fixed sample of the shipped
ClapNQ golden set's queries (unanswerable and answerable alike) from the embedded BM25's
top 2 passages, under three system prompts that phrase the abstention instruction
differently (the project's fixed abstention sentence is not among them, so the model
abstains in its own words). The answers were then labelled by reading, before the
detector (judge/abstention.py) was written: tests/fixtures/abstention/README.md.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from pathlib import Path

from ragtriage.data.golden import load_golden
from ragtriage.llm.base import Message, ModelRequest
from ragtriage.llm.local import LocalModel
from ragtriage.retrieval.retrievers import BM25Retriever

ROOT = Path(__file__).resolve().parents[1]
PROMPTS = (
    "Answer the question using only the passages below. If they do not contain the answer, "
    "say so in your own words.",
    "You are a helpful assistant. Use the passages to answer briefly. If you don't know the "
    "answer, say that you don't know.",
    "Answer the question based on the passages.",
)
N_UNANSWERABLE, N_ANSWERABLE = 45, 15
# Runs, each on the sample from its SKIP on (the model is slow on a shared 2-core
# machine): 1, SKIP 0: the three PROMPTS in turn, two passages, 96 tokens (4 answers);
# 2, SKIP 4: the first two PROMPTS, the top passage cut to 700 characters, 64 tokens (12
# answers: the model answered nearly every unanswerable query); 3, SKIP 16: LATER
# prompts, which ask for the abstention in four different ways, so that the model words
# its own abstentions
SKIP, PASSAGE_CHARS, MAX_TOKENS = 16, 700, 64
LATER = (
    "Answer only from the passage. If the passage does not answer the question, tell the "
    "user you could not find the answer.",
    "Use only the passage. When it does not contain the answer, explain that the document "
    "does not cover it.",
    "Answer from the passage alone. If it is not there, say that you don't know.",
    "Reply using the passage. If the passage lacks the information, say the information is "
    "not provided.",
)


def _pick(ids: list[str], n: int) -> list[str]:
    return sorted(ids, key=lambda i: hashlib.sha256(i.encode()).hexdigest())[:n]


async def main() -> None:
    golden = load_golden(ROOT / "golden_sets" / "clapnq")
    corpus = golden.corpus or {}
    by_id = {c.id: c for c in golden.cases}
    unanswerable = _pick([c.id for c in golden.cases if not c.expected()], N_UNANSWERABLE)
    answerable = _pick([c.id for c in golden.cases if c.expected()], N_ANSWERABLE)
    retriever = BM25Retriever(corpus)
    model = LocalModel()
    for n, case_id in enumerate(unanswerable + answerable):
        if n < SKIP:
            continue
        case = by_id[case_id]
        hits = retriever.search_many([case.query], 1)[0]
        context = "\n\n".join(corpus[h.id].passage[:PASSAGE_CHARS] for h in hits)
        system = LATER[n % len(LATER)]
        request = ModelRequest(
            messages=(
                Message(role="system", content=system),
                Message(role="user", content=f"Passages:\n{context}\n\nQuestion: {case.query}"),
            ),
            mode="text",
            max_tokens=MAX_TOKENS,
        )
        response = await model.complete(request)
        row = {
            "id": f"clapnq-qwen-{case_id}",
            "query": case.query,
            "answerable": bool(case.expected()),
            "prompt": f"later-{n % len(LATER)}",
            "answer": response.text.strip(),
        }
        print(json.dumps(row), flush=True)
        print(f"{n + 1} done", file=sys.stderr, flush=True)
    model.close()


if __name__ == "__main__":
    asyncio.run(main())
