"""The run file's digest: SHA-256 or BLAKE3, and what the choice costs ``ragtriage retrieval``.

Two measurements on the 300k-query files of ``retrieval_scale.py`` (generated, or reused
from ``--workdir``):

1. the digest alone over the run file (mapped, read in the reader's 1 MiB steps):
   hashlib's SHA-256, the ``blake3`` package on one thread and multi-threaded
   (``max_threads=AUTO``): wall seconds and CPU seconds (every thread), median of
   ``--repeats``;
2. the whole command (``python -m ragtriage.cli.main retrieval --qrels Q --run R``) under
   each ``--code LABEL=SRC`` in turn, round after round (A B C A B C ...), so that a
   shared machine's drift from minute to minute falls on every code alike: wall, CPU
   (user + system of the process and its threads, from ``wait4``) and peak RSS, each
   code's median and each round's ratio to the first code. ``SRC`` is a ``src`` folder
   or a commit (its ``src`` is taken with ``git archive``).

Finally the reports are compared: equal byte for byte once the run's digest entry is
set aside, and each digest checked against one computed here from the file's bytes
(``b3sum`` prints the same BLAKE3 digest, where it is installed).

    python benchmarks/run_digest.py --workdir /tmp/bench --code sha256=ba8dc59 --code blake3=HEAD
"""

from __future__ import annotations

import argparse
import hashlib
import json
import mmap
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_scale import GIB, commit, generate, machine, parse_size  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STEP = 1 << 20  # the fast reader's HASH_STEP
DIGESTS = ("sha256", "blake3")


def hashers():
    import blake3

    return {
        "SHA-256 (hashlib)": hashlib.sha256,
        "BLAKE3, 1 thread": lambda: blake3.blake3(max_threads=1),
        "BLAKE3, multi-threaded": lambda: blake3.blake3(max_threads=blake3.blake3.AUTO),
    }


def time_digest(path: Path, make, repeats: int) -> tuple[float, float, str]:
    """Median wall and CPU seconds of one digest of the mapped file; the hex digest."""
    walls, cpus, hexdigest = [], [], ""
    with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as m:
        view = memoryview(m)
        for _ in range(repeats):
            wall, cpu = time.perf_counter(), time.process_time()
            digest = make()
            for at in range(0, len(view), STEP):
                digest.update(view[at : at + STEP])
            hexdigest = digest.hexdigest()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        del view
    return statistics.median(walls), statistics.median(cpus), hexdigest


@dataclass
class Whole:
    wall: float
    cpu: float
    rss: int
    report: Path


def source_tree(spec: str, into: Path) -> Path:
    """A ``src`` folder as given, or a commit's ``src`` unpacked under ``into``."""
    if Path(spec).is_dir():
        return Path(spec).resolve()
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", spec, "src"],
        capture_output=True,
        check=True,
    ).stdout
    with tempfile.TemporaryFile() as tar:
        tar.write(archive)
        tar.seek(0)
        with tarfile.open(fileobj=tar) as unpacked:
            unpacked.extractall(into, filter="data")
    return into / "src"


def run_command(src: Path, run: Path, qrels: Path, report: Path) -> Whole:
    command = [
        sys.executable, "-m", "ragtriage.cli.main", "retrieval", "--qrels", str(qrels),
        "--run", str(run), "-o", str(report), "--quiet",
        "--metrics", "ndcg@10,recall@10,mrr,map",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(src)}
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    assert child.stderr is not None
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{src}: exit {status}: {child.stderr.read().decode()[-500:]}")
    return Whole(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, report)


def digest_of(report: Path) -> tuple[str, str]:
    run = json.loads(report.read_bytes())["run"]
    names = [name for name in DIGESTS if name in run]
    if len(names) != 1:
        raise SystemExit(f"{report}: expected one run digest, got {names}")
    return names[0], run[names[0]]


def without_digest(report: Path) -> bytes:
    data = json.loads(report.read_bytes())
    for name in DIGESTS:
        data["run"].pop(name, None)
    return json.dumps(data, sort_keys=True).encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--size", default="300k")
    parser.add_argument("--workdir", type=Path, required=True, help="holds or gets the files")
    parser.add_argument("--code", action="append", required=True, help="LABEL=SRC or commit")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3, help="of each digest alone")
    args = parser.parse_args(argv)
    print(f"# python benchmarks/run_digest.py {' '.join(argv or sys.argv[1:])}")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, ragtriage commit {commit()}")
    print(f"# at start: {machine()}")
    args.workdir.mkdir(parents=True, exist_ok=True)
    run, qrels = generate(parse_size(args.size), args.workdir)
    print(f"run file: {run.stat().st_size / 1e9:.2f} GB ({args.size} queries x 100 docs)")

    print("\nthe digest alone (mapped file, 1 MiB steps), median of", args.repeats)
    expected = {}
    for name, make in hashers().items():
        wall, cpu, hexdigest = time_digest(run, make, args.repeats)
        expected["sha256" if name.startswith("SHA") else "blake3"] = hexdigest
        speed = run.stat().st_size / wall / 1e9
        print(f"  {name}: {wall:.2f} s wall, {cpu:.2f} CPU s ({speed:.2f} GB/s)")
    b3sum = shutil.which("b3sum")
    if b3sum:
        printed = subprocess.run([b3sum, str(run)], capture_output=True, text=True, check=True)
        same = printed.stdout.split()[0] == expected["blake3"]
        print(f"  b3sum prints the same BLAKE3 digest: {same}")

    scratch = Path(tempfile.mkdtemp(prefix="ragtriage-digest-"))
    try:
        codes = {}
        for spec in args.code:
            label, _, source = spec.partition("=")
            codes[label] = source_tree(source, scratch / label)
        runs: dict[str, list[Whole]] = {label: [] for label in codes}
        print(f"\nthe whole command, {args.rounds} rounds, codes in turn")
        for round_ in range(args.rounds):
            for label, src in codes.items():
                whole = run_command(src, run, qrels, scratch / f"{label}-{round_}.json")
                runs[label].append(whole)
                print(
                    f"  round {round_ + 1}: {label}: {whole.wall:.2f} s wall, "
                    f"{whole.cpu:.2f} CPU s, peak RSS {whole.rss / GIB:.2f} GiB",
                    flush=True,
                )
        first = next(iter(runs))
        print("\n| code | median wall s | median CPU s | largest peak RSS | wall vs "
              f"{first}, round by round | digest |")  # fmt: skip
        print("|---|---:|---:|---:|---|---|")
        for label, wholes in runs.items():
            ratios = [a.wall / b.wall for a, b in zip(runs[first], wholes, strict=True)]
            name, value = digest_of(wholes[0].report)
            right = "equals the file's" if expected.get(name) == value else "WRONG"
            print(
                f"| {label} | {statistics.median(w.wall for w in wholes):.2f} "
                f"| {statistics.median(w.cpu for w in wholes):.2f} "
                f"| {max(w.rss for w in wholes) / GIB:.2f} GiB "
                f"| {', '.join(f'{r:.2f}x' for r in ratios)} (median "
                f"{statistics.median(ratios):.2f}x) | {name}, {right} |"
            )
        reports = {without_digest(w.report) for wholes in runs.values() for w in wholes}
        same = "identical" if len(reports) == 1 else "DIFFER"
        print(f"\nreports apart from the run's digest: {same}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"# at end: {machine()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
