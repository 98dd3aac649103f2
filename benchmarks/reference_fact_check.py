"""How often the fact check fails a *correct* answer: ClapNQ's human reference answers.

    python benchmarks/reference_fact_check.py

Every shipped ClapNQ golden case with a reference answer is judged (model-free signals)
against its gold passage(s), once with the passage text alone and once with the title
line first (``Chunk.passage``, what the judge sees since titles are context). Counted:
answers with a novel name, a novel number, a contradiction, an unstated negation, and any
of them (the fact check every calibrated rule vetoes on).
"""

from __future__ import annotations

from pathlib import Path

from ragtriage.data.golden import load_golden
from ragtriage.judge.strategies.common import lexical_signals
from ragtriage.judge.types import ContextChunk, JudgeItem

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("novel_names", "novel_numbers", "contradictions", "unstated_negations", "fact_check")


def main() -> None:
    golden = load_golden(ROOT / "golden_sets" / "clapnq")
    corpus = golden.corpus or {}
    cases = [c for c in golden.cases if c.reference_answer and c.expected()]
    for label, text in (("text only", lambda c: c.text), ("title + text", lambda c: c.passage)):
        counts = dict.fromkeys(KINDS, 0)
        for case in cases:
            chunks = tuple(ContextChunk(id=g, text=text(corpus[g])) for g in case.expected())
            item = JudgeItem(
                id=case.id, question=case.query, contexts=chunks, answer=case.reference_answer
            )
            signals = lexical_signals(item)
            for key in counts:
                counts[key] += signals.get(key, 0) > 0
        shown = ", ".join(f"{k} {v}" for k, v in counts.items())
        print(f"{label:13s} of {len(cases)} reference answers flagged: {shown}")


if __name__ == "__main__":
    main()
