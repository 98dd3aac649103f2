"""The gate against simulated judges of known flip rates: false alarms and detection.

Each seed draws a golden set of ``--cases`` cases whose settled verdicts (what the judge
says in the majority of endless samples) pass at exactly the bar (``--bar``): the system
meets the bar, so a failing gate is a false alarm. Each case has a known flip rate (the
chance one sample differs from its settled verdict), drawn from a mix fixed here in
advance. Then:

* **single sample**: one sample per case, the point rate against the bar (what a gate
  without samples does);
* **K samples, strict**: ``--samples`` with the sequential stop (judge/samples.py), the
  point rate of the majority verdicts against the bar (``gate --strict``);
* **K samples, the gate**: the bar fails only when the upper end of the judge-noise
  interval (judge/samples.py: ``noise_interval``, 95 %, so 2.5 % on the failing side) is
  below it (``gate`` with samples).

The same with the settled rate ``--drop`` below the bar (a real change) measures
detection. False alarms within the stated rate: at most 2.5 % of seeds.

    python benchmarks/gate_noise_sim.py --seeds 1000 --out benchmarks/results/gate_noise_sim.txt
"""

from __future__ import annotations

import argparse
import datetime as dt
import subprocess
import time
from collections import Counter
from pathlib import Path

import numpy as np

from ragtriage.judge.samples import decided, noise_interval

ROOT = Path(__file__).resolve().parents[1]
# (flip rate, share of cases): most cases are judged alike every time, some are flaky,
# a few are near coin flips (the adversarial part: a majority of K often errs on them)
MIXES = {
    "mostly stable": ((0.0, 0.6), (0.05, 0.2), (0.15, 0.15), (0.3, 0.05)),
    "flaky": ((0.0, 0.3), (0.1, 0.3), (0.25, 0.25), (0.4, 0.15)),
    "every case 0.2": ((0.2, 1.0),),
}
STATED = 0.025  # the interval's failing side at 95 %


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True)
    return out.stdout.decode().strip() or "unknown"


def one_seed(
    rng, n: int, rate: float, mix, k: int, bar: float | None = None
) -> tuple[bool, bool, bool, float]:
    """(single-sample fails, strict K fails, gate fails, mean samples a case) with the
    settled rate at ``rate`` and the bar at ``bar`` (default: ``rate``)."""
    passing = round(rate * n)
    truth = np.zeros(n, dtype=bool)
    truth[rng.choice(n, passing, replace=False)] = True
    flips, shares = zip(*mix, strict=True)
    flip = rng.choice(flips, size=n, p=shares)
    single = np.where(rng.random(n) < flip, ~truth, truth)
    majority, votes, drawn = [], [], 0
    for t, f in zip(truth, flip, strict=True):
        count: Counter[str] = Counter()
        m = 0
        while not decided(count, m, k):
            count["pass" if (rng.random() >= f) == t else "fail"] += 1
            m += 1
        drawn += m
        majority.append(2 * count["pass"] > k)
        votes.append((count["pass"], m))
    bar = rate if bar is None else bar
    return (
        single.mean() < bar - 1e-9,
        np.mean(majority) < bar - 1e-9,
        _upper(votes, n) < bar - 1e-9,
        drawn / n,
    )


def _upper(votes: list[tuple[int, int]], n: int) -> float:
    return noise_interval(0, n, votes, 0.95)[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=1000)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--samples", type=int, nargs="+", default=[5, 15])
    parser.add_argument("--bar", type=float, default=0.8)
    parser.add_argument("--drop", type=float, default=0.05)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/gate_noise_sim.txt")
    args = parser.parse_args()
    started = time.time()
    lines = [
        f"# benchmarks/gate_noise_sim.py at commit {_commit()}, "
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        f"# {args.seeds} seeds per row, {args.cases} cases, bar pass_rate >= {args.bar}, "
        f"K = {args.samples} with the sequential stop; stated false-alarm rate {STATED:.3f}",
        "# gate: fails when the upper end of judge.samples.noise_interval (95 %) is below "
        "the bar; K strict: the point rate of the majorities (gate --strict)",
        "# false alarm: the settled rate equals the bar and the gate fails; detection: the "
        f"settled rate is {args.drop} below the bar and the gate fails",
        "",
        "K\tmix\tflip rates (share)\tsingle-sample false alarms\tK strict false alarms\t"
        "gate false alarms\tsingle-sample detection\tgate detection\tsamples a case",
    ]
    for k, (name, mix) in ((k, m) for k in args.samples for m in MIXES.items()):
        null = np.array(
            [
                one_seed(np.random.default_rng(seed), args.cases, args.bar, mix, k)
                for seed in range(args.seeds)
            ]
        )
        alt = np.array(
            [
                one_seed(
                    np.random.default_rng(10**6 + seed),
                    args.cases,
                    args.bar - args.drop,
                    mix,
                    k,
                    bar=args.bar,
                )
                for seed in range(args.seeds)
            ]
        )
        spec = ", ".join(f"{f:g} ({s:.0%})" for f, s in mix)
        lines.append(
            f"{k}\t{name}\t{spec}\t{null[:, 0].mean():.3f}\t{null[:, 1].mean():.3f}\t"
            f"{null[:, 2].mean():.3f}\t{alt[:, 0].mean():.3f}\t{alt[:, 2].mean():.3f}\t"
            f"{null[:, 3].mean():.2f}"
        )
        print(lines[-1], flush=True)
    lines.append(f"# {time.time() - started:.0f} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
