"""What the router file's limits cost: reading the largest file allowed, refusing the rest.

Issue 52 item 6: a 4 MB / 40 MB router file (20,000 / 200,000 deployments) ran for over
300 s and a 600-byte YAML alias bomb for over 120 s. ``llm/router.py`` now refuses a
file past ``MAX_BYTES`` before parsing, past ``MAX_DEPLOYMENTS`` after, and YAML whose
aliases expand past ``MAX_NODES`` nodes before anything is built. Prints the wall time
of ``load_router`` on each file (litellm imported before timing) with the commit.

    python benchmarks/router_limits.py --out benchmarks/results/router_limits.txt
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

from ragtriage.errors import InputError
from ragtriage.llm.litellm_model import _litellm
from ragtriage.llm.router import MAX_BYTES, MAX_DEPLOYMENTS, MAX_NODES, load_router

HERE = Path(__file__).resolve().parent
DEPLOYMENT = "  - model_name: judge\n    litellm_params:\n      model: openai/fake-judge\n"


def _deployments(n: int) -> str:
    return "model_list:\n" + "".join(
        DEPLOYMENT + f"      api_base: http://10.0.{i // 250}.{i % 250}:8080/v1\n" for i in range(n)
    )


def _bomb() -> str:
    lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 9)]
    return "\n".join(lines) + "\nmodel_list:\n" + DEPLOYMENT + "router_settings:\n  x: *l8\n"


FILES = {
    f"{MAX_DEPLOYMENTS:,} deployments (the most allowed)": lambda: _deployments(MAX_DEPLOYMENTS),
    f"{MAX_DEPLOYMENTS + 1:,} deployments": lambda: _deployments(MAX_DEPLOYMENTS + 1),
    "20,000 deployments (the issue's 4 MB file held as many)": lambda: _deployments(20_000),
    "200,000 deployments (the issue's 40 MB file held as many)": lambda: _deployments(200_000),
    "a 600-byte alias bomb (9 levels of 9 aliases)": _bomb,
}


def _commit() -> str:
    run = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True, cwd=HERE, check=False)  # fmt: skip
    return run.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="append the lines to this file too")
    args = parser.parse_args()
    _litellm()  # its import (seconds) is not the file's cost
    limits = f"{MAX_BYTES:,} bytes, {MAX_DEPLOYMENTS:,} deployments, {MAX_NODES:,} YAML nodes"
    lines = [f"commit {_commit()}, {time.strftime('%Y-%m-%d', time.gmtime())}: limits {limits}"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in FILES.items():
            path = Path(tmp) / "router.yaml"
            path.write_text(make())
            start = time.perf_counter()
            try:
                config = load_router(f"router:{path}")
                verdict = f"read, {len(config.deployments):,} deployments"
            except InputError as exc:
                verdict = f"refused: {exc.message}"
            seconds = time.perf_counter() - start
            size = path.stat().st_size
            lines.append(f"  {name}, {size:,} bytes: {seconds:.3f} s, {verdict}")
            print(lines[-1], flush=True)
    if args.out:
        with args.out.open("a", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    print(lines[0])


if __name__ == "__main__":
    main()
