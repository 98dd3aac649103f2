"""What the portable llama.cpp build costs: prompt and generation tokens/s, native vs portable.

    python benchmarks/llama_build.py --wheel native=/tmp/wheels/native/*.whl \
        --wheel portable=/tmp/wheels/portable/*.whl --threads 2 --repeats 5

Each wheel is unpacked into its own folder and measured in a fresh child process (so the
two builds never share a loaded library), alternating builds on every repeat so a change
in machine load hits both. Prompt processing evaluates a 512-token prompt in one batch;
generation decodes 64 tokens greedily after a short prompt. Reported: the median over
repeats, and llama.cpp's own account of each build. Output is plain text for
``benchmarks/results/llama_build.txt``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, time
import llama_cpp
from llama_cpp import Llama
path, threads, n_prompt, n_gen = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
llm = Llama(model_path=path, n_ctx=2048, n_threads=threads, n_threads_batch=threads,
            n_batch=512, seed=0, verbose=False)
words = ("the context says the tower was completed in 1889 and is 330 metres tall " * 200)
tokens = llm.tokenize(words.encode(), add_bos=False)[:n_prompt]
llm.reset(); llm.eval(tokens[:8])  # warm-up: first-touch of the weights
llm.reset(); t0 = time.perf_counter(); llm.eval(tokens); pp = time.perf_counter() - t0
llm.reset(); llm.eval(tokens[:16])
t0 = time.perf_counter()
for _ in range(n_gen):
    nxt = int(llm.scores[llm.n_tokens - 1].argmax())
    llm.eval([nxt])
tg = time.perf_counter() - t0
info = llama_cpp.llama_print_system_info().decode()
print(json.dumps({"pp_tok_s": len(tokens) / pp, "tg_tok_s": n_gen / tg, "info": info,
                  "file": llama_cpp.__file__}))
"""


def unpack(name: str, wheel: Path, root: Path) -> Path:
    target = root / name
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), wheel],
        check=True,
    )
    return target


def measure(target: Path, model: Path, threads: int, n_prompt: int, n_gen: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(target)}
    args = [str(model), str(threads), str(n_prompt), str(n_gen)]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *args], env=env, capture_output=True, text=True, check=True
    )
    row = json.loads(done.stdout.strip().splitlines()[-1])
    assert row["file"].startswith(str(target)), row["file"]  # the build under test ran
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--wheel", action="append", required=True, help="NAME=PATH")
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--prompt-tokens", type=int, default=512)
    parser.add_argument("--gen-tokens", type=int, default=64)
    args = parser.parse_args()
    if args.model is None:
        from ragtriage.llm.weights import model_path

        args.model = model_path()
    wheels = dict(w.split("=", 1) for w in args.wheel)
    rows: dict[str, list[dict]] = {name: [] for name in wheels}
    with tempfile.TemporaryDirectory() as tmp:
        targets = {n: unpack(n, Path(p), Path(tmp)) for n, p in wheels.items()}
        for _ in range(args.repeats):
            for name, target in targets.items():
                rows[name].append(
                    measure(target, args.model, args.threads, args.prompt_tokens, args.gen_tokens)
                )
    report(rows, args)


def report(rows: dict[str, list[dict]], args: argparse.Namespace) -> None:
    cpu = _cpu_model()
    print(f"machine: {platform.python_version()}, {os.cpu_count()} cores, {cpu}")
    print(
        f"threads {args.threads}, {args.repeats} repeats (median), prompt {args.prompt_tokens} "
        f"tokens in one batch, generation {args.gen_tokens} tokens greedy"
    )
    first = next(iter(rows))
    base_pp = statistics.median(r["pp_tok_s"] for r in rows[first])
    base_tg = statistics.median(r["tg_tok_s"] for r in rows[first])
    head = f"| build | prompt tok/s | generation tok/s | vs {first} (pp / tg) | all pp | all tg |"
    print(head)
    print("|---|---:|---:|---:|---|---|")
    for name, runs in rows.items():
        pp = statistics.median(r["pp_tok_s"] for r in runs)
        tg = statistics.median(r["tg_tok_s"] for r in runs)
        all_pp = " ".join(f"{r['pp_tok_s']:.1f}" for r in runs)
        all_tg = " ".join(f"{r['tg_tok_s']:.1f}" for r in runs)
        ratio = f"{pp / base_pp:.2f}x / {tg / base_tg:.2f}x"
        print(f"| {name} | {pp:.1f} | {tg:.1f} | {ratio} | {all_pp} | {all_tg} |")
    for name, runs in rows.items():
        print(f"{name}: {' '.join(runs[0]['info'].split())}")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    main()
