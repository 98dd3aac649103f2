"""How fast is ``ragtriage annotate golden`` on real sizes?

Generates (seeded) a corpus of 100,000 chunks (60 words each, Zipf-distributed over a
50,000-word vocabulary, with product codes such as ``E1042``) and a query log of
1,000,000 queries (3-9 words; 10 % exact repeats of earlier ones, as a search log has),
then runs the command's own flow: ``prepare`` reads, folds and samples the log and
indexes the corpus once (timed: "load once"), and the real server (uvicorn on 127.0.0.1,
in a thread) answers over HTTP with the token:

* **next item**: ``GET /api/item/i`` for 100 consecutive items (BM25 over the whole
  corpus for the item's query, pooled with nothing else here);
* **keyword search**: ``GET /api/search?q=...`` for 100 searches (25 each of one word,
  two words, a product code, a quoted phrase of two words; words drawn from the same
  Zipf law, so many are among the commonest), through the word index over the corpus.

Prints the load times and p50 / p95 / max of each request kind in milliseconds; the bar
is 200 ms. Usage::

    python benchmarks/annotate_speed.py                      # 100k chunks, 1M queries
    python benchmarks/annotate_speed.py --chunks 10000 --queries 100000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import uvicorn

from ragtriage.annotate.app import make_app, new_token
from ragtriage.annotate.serve import free_port
from ragtriage.flows.annotate import GoldenConfig, prepare

VOCABULARY = 50_000
CHUNK_WORDS = 60


def words(rng: np.random.Generator, n: int) -> np.ndarray:
    """Word ids, Zipf-like (rank r with probability ~ 1/r), as text has."""
    ranks = np.arange(1, VOCABULARY + 1)
    p = 1.0 / ranks
    return rng.choice(VOCABULARY, size=n, p=p / p.sum())


def write_corpus(path: Path, n: int, rng: np.random.Generator) -> None:
    ids = words(rng, n * CHUNK_WORDS).reshape(n, CHUNK_WORDS)
    codes = rng.integers(1000, 9999, size=n)
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            text = " ".join(f"w{w}" for w in ids[i]) + f" error E{codes[i]}."
            out.write(json.dumps({"id": f"c{i}", "title": f"chunk {i}", "text": text}) + "\n")


def write_queries(path: Path, n: int, rng: np.random.Generator) -> None:
    lengths = rng.integers(3, 10, size=n)
    flat = words(rng, int(lengths.sum()))
    repeat = rng.random(n) < 0.10
    lines: list[str] = []
    start = 0
    for i, length in enumerate(lengths):
        if repeat[i] and lines:
            lines.append(lines[int(rng.integers(0, len(lines)))])
        else:
            lines.append(" ".join(f"w{w}" for w in flat[start : start + length]))
        start += length
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def timed_get(url: str, token: str) -> float:
    request = urllib.request.Request(url, headers={"X-Ragtriage-Token": token})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()
        assert response.status == 200
    return (time.perf_counter() - start) * 1000


def summary(name: str, ms: list[float]) -> str:
    a = np.array(ms)
    p50, p95 = np.percentile(a, [50, 95])
    verdict = "under" if a.max() < 200 else "OVER"
    return (
        f"{name}: n={len(a)} p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {a.max():.1f} ms "
        f"({verdict} 200 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"# python benchmarks/annotate_speed.py --chunks {args.chunks} --queries {args.queries}")
    print(f"# commit {commit}; uptime at start: {uptime}")
    with tempfile.TemporaryDirectory(prefix="annotate-speed-") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        write_corpus(folder / "corpus.jsonl", args.chunks, rng)
        write_queries(folder / "queries.txt", args.queries, rng)
        print(f"generated inputs in {time.perf_counter() - t0:.1f} s (not part of the timings)")

        t0 = time.perf_counter()
        config = GoldenConfig(
            queries=folder / "queries.txt",
            corpus=folder / "corpus.jsonl",
            out=folder / "golden.jsonl",
            sample=200,
        )
        prepared = prepare(config)
        loaded = time.perf_counter() - t0
        for note in prepared.notes:
            print(f"note: {note}")
        task = prepared.task
        t0 = time.perf_counter()
        task.corpus.bm25()  # built on the first item otherwise: timed here, once
        indexed = time.perf_counter() - t0
        print(
            f"load once: read + fold + sample the log and read the corpus {loaded:.1f} s; "
            f"BM25 index of {args.chunks} chunks {indexed:.1f} s"
        )

        token = new_token()
        port = free_port("127.0.0.1")
        server = uvicorn.Server(
            uvicorn.Config(
                make_app(task, token, host="127.0.0.1", port=port),
                host="127.0.0.1",
                port=port,
                log_level="warning",
            )
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        timed_get(f"{base}/api/item/0", token)  # first request: connection set-up
        items = [timed_get(f"{base}/api/item/{i}", token) for i in range(1, 101)]
        terms = [f"w{int(w)}" for w in words(rng, 50)]
        kinds: dict[str, list[float]] = {"one word": [], "two words": [], "a code": [],
                                         "a quoted phrase": []}  # fmt: skip
        for i in range(100):
            kind = list(kinds)[i % 4]
            query = {
                "one word": terms[i % 50],
                "two words": f"{terms[i % 50]} {terms[(i + 7) % 50]}",
                "a code": f"E{1000 + 89 * i}",
                "a quoted phrase": f'"{terms[i % 50]} {terms[(i + 3) % 50]}"',
            }[kind]
            url = f"{base}/api/search?q={urllib.request.quote(query)}"
            kinds[kind].append(timed_get(url, token))
        print(summary("next item (GET /api/item/i, BM25 pool over the corpus)", items))
        searches = [ms for values in kinds.values() for ms in values]
        print(summary("keyword search (GET /api/search, word index), all kinds", searches))
        for kind, values in kinds.items():
            print("  " + summary(f"search for {kind}", values))
        server.should_exit = True
        thread.join(timeout=10)
        task.store.close()


if __name__ == "__main__":
    main()
