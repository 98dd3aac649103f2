"""The model worker process against in-process llama.cpp: seconds, answers and cache keys.

    python benchmarks/worker_overhead.py --per-source 10 --threads 2

Judges the first N shipped calibration items of each source (``human_grades/``) with the
default embedded judge twice from a cold cache, once with the model in this process and
once in the worker process (the default), alternating which goes first per source. It
reports the wall time of each (weights already loaded in both, so only the judging is
timed), whether every response is identical, and whether the cache keys are identical.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import tempfile
import time
from pathlib import Path

from ragtriage.judge.api import ajudge_run
from ragtriage.llm.local import LocalModel

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("begin_wow", "expertqa")


def items(source: str, n: int) -> list[dict]:
    rows = [json.loads(x) for x in (ROOT / "human_grades" / source / "grades.jsonl").open()]
    keep = ("id", "question", "contexts", "answer")
    return [{k: r[k] for k in keep} for r in rows[:n]]


def judged(batch: list[dict], model: LocalModel, cache: Path) -> tuple[float, dict[str, str]]:
    started = time.perf_counter()
    asyncio.run(ajudge_run(batch, model, None, 1, cache))
    took = time.perf_counter() - started
    with sqlite3.connect(cache) as db:
        rows = dict(db.execute("SELECT key, body FROM responses").fetchall())
    return took, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-source", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    models = {
        "in-process": LocalModel(n_threads=args.threads, isolated=False),
        "worker": LocalModel(n_threads=args.threads, isolated=True),
    }
    for model in models.values():
        model.warm_up()
    print(f"threads {args.threads}; {args.per_source} items per source; cold cache each run")
    print("| source | items | in-process s | worker s | worker/in-process | responses | keys |")
    print("|---|---:|---:|---:|---:|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for i, source in enumerate(SOURCES):
            batch = items(source, args.per_source)
            order = list(models) if i % 2 == 0 else list(reversed(models))
            out = {
                name: judged(batch, models[name], Path(tmp) / f"{source}-{name}.sqlite")
                for name in order
            }
            (t_in, r_in), (t_w, r_w) = out["in-process"], out["worker"]
            same_keys = "identical" if r_in.keys() == r_w.keys() else "DIFFER"
            same = sum(r_in[k] == r_w.get(k) for k in r_in)
            print(
                f"| {source} | {len(batch)} | {t_in:.1f} | {t_w:.1f} | {t_w / t_in:.3f} "
                f"| {same}/{len(r_in)} identical | {same_keys} |"
            )
    models["worker"].close()


if __name__ == "__main__":
    main()
