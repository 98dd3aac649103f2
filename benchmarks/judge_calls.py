"""Judge calls and tokens per answer on the 20 shipped items (ragtriage's side).

Replays the embedded judge's recording (produced by a real run of the local model, see
tests/fixtures/judge/README.md), so the counts are those of the real run: calls and
prompt tokens per answer for the default ``sentences`` strategy, and the number of calls
the one-call ``claims`` strategy needs. No model is loaded.

    python benchmarks/judge_calls.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
from pathlib import Path

from ragtriage.judge.api import ajudge_run
from ragtriage.judge.items import load_answers
from ragtriage.llm.replay import ReplayModel

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "judge"


def main() -> None:
    items = load_answers(FIXTURES / "calibration_sample20.jsonl")
    model = ReplayModel.load(FIXTURES / "embedded_calibration_recording.jsonl")
    run = asyncio.run(ajudge_run(items, model, "sentences", 1, None))
    calls = [r.usage.calls for r in run.results]
    tokens = [r.usage.prompt_tokens for r in run.results]
    print(
        json.dumps(
            {
                "items": len(items),
                "sentences_strategy": {
                    "calls_per_answer_mean": statistics.mean(calls),
                    "calls_max": max(calls),
                    "prompt_tokens_per_answer_mean": round(statistics.mean(tokens)),
                    "completion_tokens_total": run.usage.completion_tokens,
                    "outcomes": sorted({r.outcome.value for r in run.results}),
                },
                "claims_strategy": {"calls_per_answer": 1},
                "note": "prompt tokens count every call's full prompt; llama.cpp's prefix cache "
                "evaluates only the part after the shared prefix",
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
