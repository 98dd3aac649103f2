"""Coverage and width of the faithful-rate intervals: PPI vs the judge alone vs humans alone.

Usage: ``python benchmarks/calibration_ppi_coverage.py [--draws 2000] [--seed 20261129]``

Each draw: a true faithful rate of 0.6, ``n`` human-graded and ``N`` = 2000 unlabelled
answers, and a biased judge (misses ``miss`` of the unfaithful answers, flags ``false_alarm``
of the faithful ones). For each interval: the share of draws that cover the truth
(nominal 0.95) and the mean width. PPI must cover; the judge alone cannot; PPI should be
narrower than the human-only interval when the judge is good.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ragtriage.calibration.ppi import ppi_rate
from ragtriage.stats import DEFAULT_SEED

TRUTH = 0.6
BIG_N = 2000


def draw(rng, n, miss, false_alarm):
    y = (rng.random(n + BIG_N) < TRUTH).astype(float)
    flip = np.where(y == 1, rng.random(n + BIG_N) < false_alarm, rng.random(n + BIG_N) < miss)
    f = np.where(flip, 1 - y, y)
    return f[n:], f[:n], y[:n]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    print(f"truth {TRUTH}, N = {BIG_N} unlabelled, {args.draws} draws per row, seed {args.seed}")
    print(
        f"{'n':>4} {'miss':>5} {'f.a.':>5} | {'PPI cov':>7} {'width':>6} | {'PPI++':>6} "
        f"{'width':>6} | {'judge':>6} {'width':>6} | {'human':>6} {'width':>6}"
    )
    for n in (50, 100, 300):
        for miss, false_alarm in ((0.3, 0.1), (0.1, 0.05), (0.5, 0.3)):
            cov = np.zeros(4)
            width = np.zeros(4)
            for _ in range(args.draws):
                f_u, f_l, y = draw(rng, n, miss, false_alarm)
                classic = ppi_rate(f_u, f_l, y)
                tuned = ppi_rate(f_u, f_l, y, power_tuning=True)
                se = y.std(ddof=1) / np.sqrt(n)
                human = (y.mean() - 1.96 * se, y.mean() + 1.96 * se)
                bounds = [
                    (classic.low, classic.high),
                    (tuned.low, tuned.high),
                    (classic.naive_low, classic.naive_high),
                    human,
                ]
                for k, (lo, hi) in enumerate(bounds):
                    cov[k] += lo <= TRUTH <= hi
                    width[k] += hi - lo
            cov /= args.draws
            width /= args.draws
            print(
                f"{n:>4} {miss:>5} {false_alarm:>5} | {cov[0]:>7.3f} {width[0]:>6.3f} | "
                f"{cov[1]:>6.3f} {width[1]:>6.3f} | {cov[2]:>6.3f} {width[2]:>6.3f} | "
                f"{cov[3]:>6.3f} {width[3]:>6.3f}"
            )
    print(f"took {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
