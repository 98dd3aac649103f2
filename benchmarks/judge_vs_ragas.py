"""ragas' Faithfulness vs ragtriage's judge: calls and tokens per answer, same items,
same embedded local model (needs the ``ragas`` and ``local`` extras).

    nice -n 10 python benchmarks/judge_vs_ragas.py --out /tmp/ragas_vs.jsonl --threads 1

ragas runs live through the embedded model (one JSON line per answer, written as it
goes); ragtriage's side is replayed from the recording of the real run of the same
model (``benchmarks/judge_calls.py``), so the two sides count the same kind of call.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from ragtriage.judge.items import load_answers
from ragtriage.judge.ragas_compare import ragas_faithfulness
from ragtriage.llm.local import LocalModel

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "judge"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("ragas_vs_ragtriage.jsonl"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--limit", type=int, default=20)
    args = parser.parse_args()
    items = load_answers(FIXTURES / "calibration_sample20.jsonl")[: args.limit]
    model = LocalModel(n_threads=args.threads)
    rows = []
    with args.out.open("w") as out:
        for item in items:
            [row] = ragas_faithfulness([item], model)
            rows.append(row)
            out.write(row.model_dump_json() + "\n")
            out.flush()
            print(row.model_dump_json(), flush=True)
    print(
        json.dumps(
            {
                "items": len(rows),
                "ragas_calls_per_answer": statistics.mean(r.calls for r in rows),
                "ragas_prompt_tokens_per_answer": round(
                    statistics.mean(r.prompt_tokens for r in rows)
                ),
                "ragas_completion_tokens_per_answer": round(
                    statistics.mean(r.completion_tokens for r in rows)
                ),
                "ragas_wall_s_per_answer": round(statistics.mean(r.wall_s for r in rows), 1),
                "ragas_unscored": sum(r.outcome == "unscored" for r in rows),
                "ragas_exactly_1": sum(r.score == 1.0 for r in rows),
            }
        )
    )


if __name__ == "__main__":
    main()
