"""Run the embedded local judge over the 300 calibration items and record everything.

Writes (1) the JudgeResult JSONL for every item, appended as each item finishes, so a
long run can be inspected (and resumed: every model response is in the SQLite cache), and
(2) a replay recording of the model's responses, so tests and CI replay the embedded
judge without the model.

    nice -n 10 python benchmarks/judge_calibration_run.py --threads 1
    python benchmarks/judge_calibration_run.py --threads 2 --budget-chars 0 \
        --results human_grades/_judged/embedded_sentences_whole.jsonl \
        --recording /tmp/whole_recording.jsonl --cache .ragtriage/whole.sqlite   # issue 54 item 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from ragtriage.judge.api import ajudge_run
from ragtriage.judge.items import load_answers
from ragtriage.judge.strategies.sentences import SentenceStrategy
from ragtriage.llm.base import cache_key
from ragtriage.llm.cache import ResponseCache
from ragtriage.llm.local import LocalModel
from ragtriage.llm.replay import write_recording

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
FILES = (
    DATA / "begin_wow_faithfulness" / "begin_wow_faithfulness.jsonl",
    DATA / "expertqa_faithfulness" / "expertqa_faithfulness.jsonl",
)
FIXTURES = ROOT / "tests" / "fixtures" / "judge"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=ROOT / ".ragtriage" / "calibration.sqlite")
    parser.add_argument(
        "--results", type=Path, default=FIXTURES / "embedded_calibration_results.jsonl"
    )
    parser.add_argument(
        "--recording", type=Path, default=FIXTURES / "embedded_calibration_recording.jsonl"
    )
    parser.add_argument("--limit", type=int, default=0)
    # 0: every sentence of every answer to the model (issue 54 item 4); default: the shipped 1000
    parser.add_argument("--budget-chars", type=int, default=None)
    args = parser.parse_args()
    options = {} if args.budget_chars is None else {"budget_chars": args.budget_chars}
    items = [item for path in FILES for item in load_answers(path)]
    if args.limit:
        items = items[: args.limit]
    model = LocalModel(n_threads=args.threads)
    cache = ResponseCache(args.cache)
    args.results.write_text("")
    start = time.time()

    def progress(result) -> None:
        with args.results.open("a") as out:
            out.write(result.model_dump_json() + "\n")
        print(
            f"{time.time() - start:7.1f}s {result.item_id} {result.outcome.value} "
            f"calls={result.usage.calls} cached={result.usage.cached_calls}",
            flush=True,
        )

    run = asyncio.run(
        ajudge_run(items, model, "sentences", 1, cache, on_result=progress, **options)
    )
    wall = time.time() - start
    strategy = SentenceStrategy(**options)
    keys = {cache_key(model, r) for item in items for r in strategy.requests(item)[1]}
    n = write_recording(
        cache,
        model.name,
        model.params,
        args.recording,
        note="recorded from a real run of the embedded judge "
        f"({model.name}, llama-cpp-python 0.3.36, {args.threads} thread(s))",
        keys=keys,
    )
    summary = {
        "items": len(items),
        "wall_s": round(wall, 1),
        "usage": run.usage.model_dump(),
        "cache": run.cache,
        "recorded_responses": n,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
