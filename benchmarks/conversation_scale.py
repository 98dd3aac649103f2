"""How long does ``ragtriage conversations`` take on one very long conversation?

Issue 52 item 6: a 10,000-turn conversation was killed at 600 s, the history work being
quadratic (every turn judged with every earlier turn, the probe text holding every
earlier message, each turn's result listing its whole history). Generates one
conversation of N turns over the conversational fixture's corpus (each turn asks about
one product, the traced system retrieves its chunk and quotes it, every fifth answer
is unsupported), audits it with the model-free ``lexical`` judge and prints the wall
time per size with the commit; a linear time grows by the same factor as N.

    python benchmarks/conversation_scale.py                       # 1,250 2,500 5,000 10,000
    python benchmarks/conversation_scale.py --turns 10000 --out benchmarks/results/x.txt
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

from ragtriage.flows.conversations import ConversationsConfig, run

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "fixtures" / "conversations" / "corpus.jsonl"


def _write(folder: Path, turns: int) -> tuple[Path, Path]:
    chunks = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    golden, traces = [], []
    for n in range(1, turns + 1):
        chunk = chunks[n % len(chunks)]
        user = f"Turn {n}: what does the {chunk['title']} say?"
        golden.append({"conversation_id": "long", "turn": n, "user": user,
                       "expected": [chunk["id"]], "standalone": n == 1})  # fmt: skip
        other = chunks[(n + 1) % len(chunks)]
        answer = chunk["text"] if n % 5 else "The warranty covers accidental damage."
        traces.append({"conversation_id": "long", "turn": n, "user": user,
                       "retrieved": [chunk["id"], other["id"]], "context_ids": [chunk["id"]],
                       "answer": answer})  # fmt: skip
    (folder / "corpus.jsonl").write_text(CORPUS.read_text())
    gpath, tpath = folder / "conversations.jsonl", folder / "turns.jsonl"
    gpath.write_text("".join(json.dumps(r) + "\n" for r in golden))
    tpath.write_text("".join(json.dumps(r) + "\n" for r in traces))
    return gpath, tpath


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                         cwd=HERE, check=False)  # fmt: skip
    dirty = subprocess.run(["git", "status", "--porcelain", "src"], capture_output=True,
                           text=True, cwd=HERE, check=False).stdout.strip()  # fmt: skip
    return out.stdout.strip() + ("+dirty" if dirty else "")


def measure(turns: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        golden, traces = _write(Path(tmp), turns)
        start = time.perf_counter()
        result = run(ConversationsConfig(golden=golden, traces=traces, judge="lexical",
                                         cache=Path(tmp) / "cache.sqlite"))  # fmt: skip
        return time.perf_counter() - start, len(result.turns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[1250, 2500, 5000, 10000])
    parser.add_argument("--out", type=Path, help="append the lines to this file too")
    args = parser.parse_args()
    lines = [f"commit {_commit()}, {time.strftime('%Y-%m-%d', time.gmtime())}, lexical judge:"]
    previous = None
    for turns in args.turns:
        seconds, judged = measure(turns)
        growth = (
            f" (x{seconds / previous[0]:.2f} for x{turns / previous[1]:g} turns)"
            if previous
            else ""
        )
        lines.append(
            f"  {turns:,} turns in one conversation: {seconds:.2f} s, "
            f"{judged:,} turn results{growth}"
        )
        previous = (seconds, turns)
        print(lines[-1], flush=True)
    if args.out:
        with args.out.open("a", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")
    print(lines[0])


if __name__ == "__main__":
    main()
