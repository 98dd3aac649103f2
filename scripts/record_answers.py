"""Have the embedded model write a golden set's answers now, live, into the recording the
audit reads beside the set (``embedded_answers.jsonl``), with their provenance.

    bash scripts/setup.sh --local                            # the model (once; minutes)
    python scripts/record_answers.py golden_sets/handbook    # the model writes every answer

The demo's first report audits these shipped answers, so it needs no model and nothing
compiled (issue 53); the report names this command. Each row is keyed exactly like the
response cache (the embedded model's name, the generation prompt's hash, the retrieved
context), so an audit reads an answer only for the very request the model answered.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

from ragtriage.data.golden import load_golden
from ragtriage.data.models import DEFAULT_CONTEXT_K
from ragtriage.flows.config import DEFAULT_DEPTH
from ragtriage.judge.prompts import load_prompt
from ragtriage.judge.types import Usage
from ragtriage.llm.base import cache_key
from ragtriage.llm.cache import ResponseCache
from ragtriage.llm.calls import Caller
from ragtriage.llm.local import LocalModel, require_llama
from ragtriage.llm.recorded import RECORDED_ANSWERS
from ragtriage.llm.weights import MODEL_SHA256, model_path
from ragtriage.retrieval.retrievers import run_retriever
from ragtriage.system.generate import GENERATION_PROMPT, LocalGenerator

ROOT = Path(__file__).resolve().parents[1]


async def record(golden_dir: Path, cache: Path, threads: int | None) -> list[dict]:
    """One row per golden case: its id, the request's cache key, the model's response."""
    golden = load_golden(golden_dir)
    model = LocalModel(n_threads=threads)
    generator = LocalGenerator(Caller(model, ResponseCache(cache), concurrency=1))
    _, hits = run_retriever(golden, "bm25", DEFAULT_DEPTH, texts=True)
    rows, started = [], time.perf_counter()
    try:
        for n, case in enumerate(golden.cases, start=1):
            request = generator.request(case.query, hits[case.id][:DEFAULT_CONTEXT_K])
            response = await generator.caller.raw(request, Usage())
            body = response.model_dump(mode="json", exclude_defaults=True)
            rows.append({"key": cache_key(model, request), "query_id": case.id, "response": body})
            print(f"record: {n}/{len(golden.cases)} ({time.perf_counter() - started:.0f} s)")
    finally:
        model.close()
    return rows


def provenance(golden_dir: Path) -> dict[str, str]:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return {
        "model": "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (llama-cpp-python "
        f"{version('llama-cpp-python')})",
        "weights_sha256": MODEL_SHA256,
        "prompt": GENERATION_PROMPT,
        "prompt_sha256": load_prompt(GENERATION_PROMPT).sha256,
        "written": datetime.now(UTC).strftime("%Y-%m-%d"),
        "commit": commit or "unknown",
        "command": f"python scripts/record_answers.py {golden_dir.as_posix()}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("golden", type=Path, help="the golden set's folder")
    # greedy answers do not depend on threads; one thread fared better on a busy machine
    parser.add_argument("--threads", type=int, default=None, help="the model's CPU threads")
    parser.add_argument(
        "--resume", type=Path, default=None, help="a cache this script left when interrupted"
    )
    args = parser.parse_args(argv)
    require_llama()
    print(f"record: weights {model_path()} (SHA-256 verified)")
    # live: nothing cached but what an interrupted run of this script wrote
    with_cache = args.resume or Path(f"/tmp/record-answers-{time.time_ns()}.sqlite")
    print(f"record: answers cached in {with_cache} (--resume it after an interruption)")
    rows = asyncio.run(record(args.golden, with_cache, args.threads))
    header = {
        "model": LocalModel().name,
        "params": {},
        "note": "answers the embedded model wrote for this golden set; the audit reads "
        "them instead of generating (ragtriage audit --live generates them)",
        "provenance": provenance(args.golden),
    }
    out = args.golden / RECORDED_ANSWERS
    with out.open("w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        f.writelines(json.dumps(row, separators=(",", ":")) + "\n" for row in rows)
    print(f"record: wrote {len(rows)} answers to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
