"""Wall time of the embedded judge on N answers, then an unchanged re-run (cache).

    nice -n 10 python benchmarks/judge_walltime.py --answers FILE --limit 100 \
        --cache .ragtriage/bench.sqlite --threads 1 [--budget-chars 0]

The first pass pays for every call that is not already in ``--cache`` (use a fresh path
for a cold figure); the second pass must make zero calls.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from ragtriage.judge.api import ajudge_run
from ragtriage.judge.items import load_answers
from ragtriage.llm.local import LocalModel

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DEFAULT = DATA / "begin_wow_faithfulness" / "begin_wow_faithfulness.jsonl"


def timed(items, model, cache: Path, options: dict) -> dict:
    start = time.perf_counter()
    run = asyncio.run(ajudge_run(items, model, None, 1, cache, **options))
    return {
        "wall_s": round(time.perf_counter() - start, 2),
        "calls": run.usage.calls,
        "cached_calls": run.usage.cached_calls,
        "prompt_tokens": run.usage.prompt_tokens,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answers", type=Path, default=DEFAULT)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--cache", type=Path, default=ROOT / ".ragtriage" / "bench.sqlite")
    parser.add_argument("--threads", type=int, default=1)
    # 0: every sentence of the answer to the model (issue 54 item 4); default: the shipped 1000
    parser.add_argument("--budget-chars", type=int, default=None)
    args = parser.parse_args()
    options = {} if args.budget_chars is None else {"budget_chars": args.budget_chars}
    items = load_answers(args.answers)[: args.limit]
    model = LocalModel(n_threads=args.threads)
    model.warm_up()  # load time is not judging time
    first = timed(items, model, args.cache, options)
    second = timed(items, model, args.cache, options)
    print(json.dumps({"items": len(items), "threads": args.threads, **options, "first": first,
                      "rerun": second}))  # fmt: skip


if __name__ == "__main__":
    main()
