"""Retrieval metrics at scale: ragtriage vs plain parsing + pytrec_eval vs ranx.

Generates a seeded synthetic TREC run (``N`` queries x 100 docs, ~39 bytes a line) and
qrels (3 judged docs per query), then times each tool in its own subprocess, watched for
peak RSS (the whole process tree, polled) and killed past ``--cap-gib`` so that a tool
that does not fit cannot take a shared machine down. Finally the per-query values of
nDCG@10, recall@10, MRR and MAP are compared across tools.

    python benchmarks/retrieval_scale.py --sizes 10k,100k,1m
    python benchmarks/retrieval_scale.py --sizes 300k --tools ragtriage,pytrec_eval --rounds 5

ragtriage is timed end to end as users run it (the CLI reading, ranking, scoring and
writing its JSON report); the baselines are timed from parse to evaluated dicts, which
flatters them (no interpreter start, no output), and also as whole processes (the
``whole s`` column), the fair comparison with ragtriage's figure. Generated files live
under ``--workdir`` (default: a temp dir) and are deleted at the end unless ``--keep``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DEPTH = 100
CORPUS = 8_800_000
JUDGED_IN_RUN = 2
SEED = 20261130
CHUNK_QUERIES = 20_000
EVAL_CHUNK = 100_000  # queries per pytrec_eval call in the chunked baseline
METRICS = ("ndcg@10", "recall@10", "mrr", "map")
TREC_NAMES = {"ndcg@10": "ndcg_cut_10", "recall@10": "recall_10", "mrr": "recip_rank", "map": "map"}
RANX_NAMES = {"ndcg@10": "ndcg@10", "recall@10": "recall@10", "mrr": "mrr", "map": "map"}
TOLERANCE = 1e-9
GIB = 1 << 30


# --------------------------------------------------------------------------- generation


def parse_size(text: str) -> int:
    """``"10k"`` -> 10_000, ``"1m"`` -> 1_000_000."""
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("km")) * scale)


def size_label(n: int) -> str:
    return f"{n // 1_000_000}M" if n % 1_000_000 == 0 else f"{n // 1_000}k"


def _data(array) -> bytes:
    """The concatenated string bytes of a freshly built (offset 0) arrow string array."""
    offsets = np.frombuffer(array.buffers()[1], np.int32, len(array) + 1)
    return array.buffers()[2].to_pybytes()[: offsets[-1]]


def _run_chunk(rng: np.random.Generator, first: int, n: int) -> tuple[bytes, bytes]:
    """TREC run and qrels lines for queries ``first .. first + n - 1``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    base = rng.integers(0, CORPUS, n)
    stride = rng.integers(1, CORPUS // DEPTH, n)
    docs = (base[:, None] + np.arange(DEPTH) * stride[:, None]) % CORPUS  # distinct per query
    scores = np.round(rng.uniform(0.0, 30.0, (n, DEPTH)), 4)
    scores = -np.sort(-scores, axis=1)  # rank order; some scores tie
    qids = np.repeat(np.arange(first, first + n), DEPTH)
    query_col = pc.binary_join_element_wise("q", pc.cast(pa.array(qids), pa.string()), "")
    doc_col = pc.binary_join_element_wise("D", pc.cast(pa.array(docs.ravel()), pa.string()), "")
    rank_col = pc.cast(pa.array(np.tile(np.arange(1, DEPTH + 1), n)), pa.string())
    score_col = pc.cast(pa.array(scores.ravel()), pa.string())
    run = _data(_join([query_col, "Q0", doc_col, rank_col, score_col, "bm25-run"]))
    return run, _qrels_chunk(rng, first, n, docs)


def _qrels_chunk(rng: np.random.Generator, first: int, n: int, docs: np.ndarray) -> bytes:
    """Three judged docs per query: two retrieved (one likely near the top), one not."""
    import pyarrow as pa
    import pyarrow.compute as pc

    top = (50 * rng.random(n) ** 3).astype(np.int64)
    deep = 50 + (50 * rng.random(n)).astype(np.int64)
    rows = np.arange(n)
    judged = np.stack([docs[rows, top], docs[rows, deep]], axis=1)
    retrieved = pc.binary_join_element_wise("D", pc.cast(pa.array(judged.ravel()), pa.string()), "")
    unretrieved = pc.binary_join_element_wise(
        "X", pc.cast(pa.array(rng.integers(0, CORPUS, n)), pa.string()), ""
    )
    doc_col = pa.chunked_array([retrieved, unretrieved]).combine_chunks()
    qids = np.concatenate([np.repeat(np.arange(first, first + n), JUDGED_IN_RUN), rows + first])
    order = np.argsort(qids, kind="stable")
    labels = rng.choice(np.array([0, 1, 2]), p=[0.3, 0.5, 0.2], size=len(qids))
    query_col = pc.binary_join_element_wise("q", pc.cast(pa.array(qids[order]), pa.string()), "")
    label_col = pc.cast(pa.array(labels), pa.string())
    return _data(_join([query_col, "0", doc_col.take(pa.array(order)), label_col]))


def _join(columns: list):
    import pyarrow as pa
    import pyarrow.compute as pc

    line = pc.binary_join_element_wise(*columns, " ")
    return pc.binary_join_element_wise(line, pa.scalar(""), "\n")


def generate(n: int, workdir: Path) -> tuple[Path, Path]:
    """``(run, qrels)`` for ``n`` queries; deterministic, reused when already there."""
    run_path = workdir / f"run-{size_label(n)}.trec"
    qrels_path = workdir / f"qrels-{size_label(n)}.trec"
    done = workdir / f".done-{size_label(n)}"
    if done.exists():
        return run_path, qrels_path
    rng = np.random.default_rng([SEED, n])
    with run_path.open("wb") as run_file, qrels_path.open("wb") as qrels_file:
        for first in range(0, n, CHUNK_QUERIES):
            run, qrels = _run_chunk(rng, first, min(CHUNK_QUERIES, n - first))
            run_file.write(run)
            qrels_file.write(qrels)
    done.touch()
    return run_path, qrels_path


# --------------------------------------------------------------------------- baseline workers


def parse_trec_dicts(run_path: Path, qrels_path: Path) -> tuple[dict, dict]:
    """The plain-Python way: one dict entry (and one str and one float) per line."""
    run: dict[str, dict[str, float]] = defaultdict(dict)
    with run_path.open() as handle:
        for line in handle:
            query, _, doc, _, score, _ = line.split()
            run[query][doc] = float(score)
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    with qrels_path.open() as handle:
        for line in handle:
            query, _, doc, label = line.split()
            qrels[query][doc] = int(label)
    return run, qrels


def worker_pytrec_eval(run_path: Path, qrels_path: Path) -> dict[str, dict[str, float]]:
    import pytrec_eval

    run, qrels = parse_trec_dicts(run_path, qrels_path)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_NAMES.values()))
    values = evaluator.evaluate(run)
    return {ours: {q: v[trec] for q, v in values.items()} for ours, trec in TREC_NAMES.items()}


def worker_ranx(run_path: Path, qrels_path: Path) -> dict[str, dict[str, float]]:
    """ranx as documented: its own TREC loaders, then ``evaluate``."""
    from ranx import Qrels as RanxQrels
    from ranx import Run as RanxRun
    from ranx import evaluate

    qrels = RanxQrels.from_file(str(qrels_path), kind="trec")
    run = RanxRun.from_file(str(run_path), kind="trec")
    evaluate(qrels, run, list(RANX_NAMES.values()), save_results_in_run=True)
    return {
        ours: {q: float(v) for q, v in run.scores[name].items()}
        for ours, name in RANX_NAMES.items()
    }


def worker_pytrec_eval_chunked(run_path: Path, qrels_path: Path) -> dict[str, dict[str, float]]:
    """The same parse and pytrec_eval, a chunk of queries at a time (the run is grouped by
    query): the same work in bounded memory, so that a million queries can be checked
    value by value, and timed, under a cap the plain way exceeds."""
    import pytrec_eval

    _, qrels = parse_trec_dicts(Path(os.devnull), qrels_path)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_NAMES.values()))
    out: dict[str, dict[str, float]] = {ours: {} for ours in TREC_NAMES}
    chunk: dict[str, dict[str, float]] = defaultdict(dict)

    def flush() -> None:
        for query, values in evaluator.evaluate(chunk).items():
            for ours, trec in TREC_NAMES.items():
                out[ours][query] = values[trec]
        chunk.clear()

    with run_path.open() as handle:
        for line in handle:
            query, _, doc, _, score, _ = line.split()
            if query not in chunk and len(chunk) >= EVAL_CHUNK:
                flush()
            chunk[query][doc] = float(score)
    flush()
    return out


WORKERS = {
    "pytrec_eval": worker_pytrec_eval,
    "pytrec_eval_chunked": worker_pytrec_eval_chunked,
    "ranx": worker_ranx,
}


def run_worker(name: str, run_path: Path, qrels_path: Path, out: Path) -> None:
    """Child process: time parse + evaluate, then write values and the time."""
    start = time.perf_counter()
    values = WORKERS[name](run_path, qrels_path)
    seconds = time.perf_counter() - start
    import orjson

    out.write_bytes(orjson.dumps({"seconds": seconds, "values": values}))


# --------------------------------------------------------------------------- measuring


@dataclass
class Measured:
    tool: str
    size: int
    seconds: float | None = None
    peak_rss: int = 0
    status: str = "ok"
    wall: float = 0.0  # seconds the process ran (until killed, if it was)
    cpu: float = 0.0  # user + system seconds of the process and its threads (wait4)
    values: dict[str, dict[str, float]] | None = None
    agreement: str = ""


def watch(command: list[str], cap: int) -> tuple[float, int, str, float]:
    """Run ``command``; ``(wall seconds, peak RSS bytes of its process tree, status, CPU
    seconds)``: CPU time (user + system, from ``wait4``) moves less than wall time on a
    shared machine, where a tool that uses two cores waits longer for them than one
    that uses one.

    RSS is polled every 50 ms over the child and its descendants; past ``cap`` the whole
    tree is killed (``status`` then says so). The kernel's own high-water mark of the
    child (``wait4``) is folded in, so a short spike between polls still counts.
    """
    import psutil

    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        peak, killed, proc = 0, False, psutil.Process(child.pid)
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, _tree_rss(proc))
            if peak > cap and not killed:
                killed = True
                _kill_tree(proc)
            time.sleep(0.05)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        peak = max(peak, usage.ru_maxrss * 1024)  # Linux reports KiB
        cpu = usage.ru_utime + usage.ru_stime
        errors.seek(0)
        stderr = errors.read().decode(errors="replace").strip()
    if killed:
        return wall, peak, f"killed at {cap / GIB:.0f} GiB cap after {wall:.0f} s", cpu
    if child.returncode != 0:
        return wall, peak, f"failed (exit {child.returncode}): {stderr[-300:]}", cpu
    return wall, peak, "ok", cpu


def _tree_rss(proc) -> int:
    import psutil

    total = 0
    try:
        tree = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    for p in tree:
        with contextlib.suppress(psutil.Error):
            total += p.memory_info().rss
    return total


def _kill_tree(proc) -> None:
    import psutil

    with contextlib.suppress(psutil.Error):
        for p in [*proc.children(recursive=True), proc]:
            with contextlib.suppress(psutil.Error):
                p.kill()


def measure_ragtriage(n: int, run_path: Path, qrels_path: Path, tmp: Path, cap: int) -> Measured:
    out = tmp / f"ragtriage-{size_label(n)}.json"
    command = [
        sys.executable, "-m", "ragtriage.cli.main", "retrieval",
        "--qrels", str(qrels_path), "--run", str(run_path), "-o", str(out),
        "--quiet", "--metrics", ",".join(METRICS),
    ]  # fmt: skip
    wall, peak, status, cpu = watch(command, cap)
    result = Measured("ragtriage", n, wall if status == "ok" else None, peak, status, wall, cpu)
    if status == "ok":
        import orjson

        per_query = orjson.loads(out.read_bytes())["per_query"]
        result.values = {m: {q: row[m] for q, row in per_query.items()} for m in METRICS}
        out.unlink()
    return result


def measure_worker(
    tool: str, n: int, run_path: Path, qrels_path: Path, tmp: Path, cap: int
) -> Measured:
    out = tmp / f"{tool}-{size_label(n)}.json"
    command = [
        sys.executable, __file__, "--worker", tool,
        "--run", str(run_path), "--qrels", str(qrels_path), "--out", str(out),
    ]  # fmt: skip
    wall, peak, status, cpu = watch(command, cap)
    result = Measured(tool, n, None, peak, status, wall, cpu)
    if status == "ok":
        import orjson

        data = orjson.loads(out.read_bytes())
        result.seconds, result.values = data["seconds"], data["values"]
        out.unlink()
    return result


def agreement(ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]]) -> str:
    """Per-query agreement on every query ragtriage scored (the answerable ones)."""
    worst, differing, compared, absent = 0.0, 0, 0, 0
    for metric in METRICS:
        mine, other = ours[metric], theirs.get(metric, {})
        for query, value in mine.items():
            if query not in other:
                absent += 1
                continue
            diff = abs(value - other[query])
            worst = max(worst, diff)
            differing += diff > TOLERANCE
            compared += 1
    verdict = "identical" if differing == 0 and absent == 0 else f"{differing} differ"
    extra = f", {absent} absent" if absent else ""
    return f"{verdict} (max |d| {worst:.1e} over {compared:,} values{extra})"


# --------------------------------------------------------------------------- report


def table(results: list[Measured], cap: int) -> str:
    """Markdown table: seconds, peak RSS and both ratios to pytrec_eval at the same size.

    When pytrec_eval was killed at the cap, its time and memory are lower bounds (the
    seconds it ran, the cap), so the ratios become bounds too: ``>=`` and ``<=``.
    """
    lines = [
        "| queries | tool | seconds | whole s | CPU s | peak RSS | speed-up vs pytrec_eval "
        "| whole processes | CPU | memory vs pytrec_eval | per-query values vs ragtriage |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    base = {r.size: r for r in results if r.tool == "pytrec_eval"}
    streamed = {r.size: r for r in results if r.tool == "pytrec_eval_chunked"}
    for r in results:
        ref = base.get(r.size)
        seconds = f"{r.seconds:.1f}" if r.seconds is not None else r.status
        killed = " (at kill)" if r.status.startswith("killed") else ""
        rss = f"{r.peak_rss / GIB:.2f} GiB{killed}"
        speed, memory = _ratios(r, ref, cap)
        chunked = streamed.get(r.size)
        if r.tool == "ragtriage" and chunked and chunked.seconds and r.seconds:
            speed += f" ({chunked.seconds / r.seconds:.1f}x vs chunked)"
        whole = f"{r.wall:.1f}" if r.status == "ok" else "-"
        lines.append(
            f"| {r.size:,} | {r.tool} | {seconds} | {whole} | {r.cpu:.1f} | {rss} | {speed} "
            f"| {_whole_ratio(r, ref)} | {_cpu_ratio(r, ref)} | {memory} | {r.agreement} |"
        )
    return "\n".join(lines)


def _whole_ratio(r: Measured, ref: Measured | None) -> str:
    """pytrec_eval's whole process over this tool's: interpreter start, parse, evaluate
    and (for ragtriage) the JSON report included on both sides."""
    if ref is None or r.tool == "pytrec_eval" or r.status != "ok" or ref.status != "ok":
        return "-"
    return f"{ref.wall / r.wall:.1f}x"


def _cpu_ratio(r: Measured, ref: Measured | None) -> str:
    if ref is None or r.tool == "pytrec_eval" or r.status != "ok" or ref.status != "ok":
        return "-"
    return f"{ref.cpu / r.cpu:.1f}x" if r.cpu else "-"


def _ratios(r: Measured, ref: Measured | None, cap: int) -> tuple[str, str]:
    if ref is None or r.tool == "pytrec_eval" or r.status != "ok" or not r.seconds:
        return "-", "-"
    if ref.status == "ok" and ref.seconds:
        return f"{ref.seconds / r.seconds:.1f}x", f"{r.peak_rss / ref.peak_rss:.2f}x"
    if ref.status.startswith("killed"):
        return f">= {ref.wall / r.seconds:.1f}x", f"<= {r.peak_rss / cap:.2f}x"
    return "-", "-"


def machine() -> str:
    import platform

    import psutil

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{platform.python_version()}, {os.cpu_count()} cores, "
        f"{psutil.virtual_memory().total / GIB:.0f} GiB RAM, load average {load}, "
        f"one core hashes {core_speed():.2f} GB/s (SHA-256)"
    )


def core_speed() -> float:
    """GB/s of SHA-256 over 128 MB on one core: how fast this machine is right now (on a
    shared host the same machine ran from 0.3 to 1.1 GB/s within an hour)."""
    import hashlib

    data = os.urandom(128 << 20)
    start = time.perf_counter()
    hashlib.sha256(data).digest()
    return len(data) / (time.perf_counter() - start) / 1e9


def commit() -> str:
    """The checkout's commit (``+`` when it has uncommitted changes), or ``unknown``."""
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10k,100k,1m", help="query counts, e.g. 10k,100k,1m")
    parser.add_argument("--tools", default="ragtriage,pytrec_eval,pytrec_eval_chunked,ranx")
    parser.add_argument(
        "--cap-gib", type=float, default=21.0, help="kill a tool past this RSS (24 GiB machine)"
    )
    parser.add_argument("--workdir", type=Path, help="where runs are generated (default: temp)")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--ranx-max", default="1m", help="largest size to run ranx at")
    parser.add_argument(
        "--rounds", type=int, default=1, help="measure every tool this many times, in turn"
    )
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--run", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--qrels", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        run_worker(args.worker, args.run, args.qrels, args.out)
        return 0
    start_load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    start_load += f"; one core hashes {core_speed():.2f} GB/s"
    print(f"# python benchmarks/retrieval_scale.py {' '.join(argv or sys.argv[1:])}")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, ragtriage commit {commit()}")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ragtriage-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    cap = int(args.cap_gib * GIB)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    results: list[Measured] = []
    try:
        for n in (parse_size(s) for s in args.sizes.split(",")):
            chosen = [t for t in tools if t != "ranx" or n <= parse_size(args.ranx_max)]
            results.extend(bench_size(n, chosen, workdir, cap, args.rounds))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nmachine: {machine()} (at start: {start_load})")
    print(table(results, cap))
    if args.rounds > 1:
        print(f"(each figure the median of {args.rounds} rounds; peak RSS the largest)")
    return 0


def bench_size(
    n: int, tools: list[str], workdir: Path, cap: int, rounds: int = 1
) -> list[Measured]:
    """Generate (or reuse) the files for ``n`` queries and measure every tool on them,
    ``rounds`` times in turn (A B A B ...): on a shared machine whose speed drifts from
    minute to minute, each tool's figures are the medians over the rounds, and the
    ratio of whole processes is also given round by round (a pair ran back to back)."""
    start = time.perf_counter()
    run_path, qrels_path = generate(n, workdir)
    size = run_path.stat().st_size
    print(f"{n:,} queries: run {size / 1e9:.2f} GB ({time.perf_counter() - start:.0f} s to make)")
    by_tool: dict[str, list[Measured]] = {tool: [] for tool in tools}
    for round_ in range(rounds):
        for tool in tools:
            if tool == "ragtriage":
                result = measure_ragtriage(n, run_path, qrels_path, workdir, cap)
            else:
                result = measure_worker(tool, n, run_path, qrels_path, workdir, cap)
            shown = f"{result.seconds:.1f} s" if result.seconds is not None else result.status
            whole = f", whole process {result.wall:.1f} s" if result.status == "ok" else ""
            print(
                f"  round {round_ + 1}: {tool}: {shown}{whole}, "
                f"peak RSS {result.peak_rss / GIB:.2f} GiB",
                flush=True,
            )
            if round_ and result.values is not None:
                result.values = None  # agreement is checked on the first round's values
            by_tool[tool].append(result)
    if rounds > 1:
        _print_pairs(by_tool)
    measured = [_median(runs) for runs in by_tool.values()]
    ours = next((r for r in measured if r.tool == "ragtriage" and r.values), None)
    for result in measured:
        if ours is not None and result.values is not None and result is not ours:
            result.agreement = agreement(ours.values, result.values)
    for result in measured:
        result.values = None
    return measured


def _print_pairs(by_tool: dict[str, list[Measured]]) -> None:
    """Each round's whole-process ratio of pytrec_eval to ragtriage, and their median."""
    ours, ref = by_tool.get("ragtriage"), by_tool.get("pytrec_eval")
    if not ours or not ref:
        return
    ratios = [b.wall / a.wall for a, b in zip(ours, ref, strict=True) if a.wall and b.wall]
    shown = ", ".join(f"{r:.1f}x" for r in ratios)
    print(f"  whole-process speed-up round by round: {shown}; median {_mid(ratios):.1f}x")


def _mid(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _median(runs: list[Measured]) -> Measured:
    """One tool's rounds as one row: median seconds, whole-process and CPU seconds, the
    largest peak RSS; the first round's values; a failed round fails the row."""
    first = runs[0]
    if len(runs) == 1 or any(r.status != "ok" for r in runs):
        return next((r for r in runs if r.status != "ok"), first)
    seconds = [r.seconds for r in runs if r.seconds is not None]
    return Measured(
        first.tool,
        first.size,
        _mid(seconds) if seconds else None,
        max(r.peak_rss for r in runs),
        "ok",
        _mid([r.wall for r in runs]),
        _mid([r.cpu for r in runs]),
        first.values,
    )


if __name__ == "__main__":
    sys.exit(main())
