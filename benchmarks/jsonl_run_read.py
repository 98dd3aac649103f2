"""Time ``load_run`` on a generated JSONL run (one line per query, 100 scored items each).

    python benchmarks/jsonl_run_read.py [--items 500000] [--file /tmp/run.jsonl]
    PYTHONPATH=OTHER_CHECKOUT/src python benchmarks/jsonl_run_read.py   # another commit's reader

Prints the best of three reads and which checkout's ``ragtriage`` ran.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import ragtriage
from ragtriage.data.runs import load_run


def generate(items: int, path: Path, seed: int = 7) -> None:
    draw = random.Random(seed)
    with path.open("w") as out:
        for q in range(items // 100):
            retrieved = [
                {"id": f"d{draw.randrange(10**6)}", "score": round(1 - r / 100, 4)}
                for r in range(100)
            ]
            out.write(json.dumps({"query_id": f"q{q}", "retrieved": retrieved}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=500_000)
    parser.add_argument("--file", type=Path, default=Path("/tmp/ragtriage_run_500k.jsonl"))
    args = parser.parse_args()
    if not args.file.exists():
        generate(args.items, args.file)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        run = load_run(args.file)
        best = min(best, time.perf_counter() - start)
    print(f"{len(run)} rows, best of 3: {best:.2f} s ({Path(ragtriage.__file__).parents[1]})")


if __name__ == "__main__":
    main()
