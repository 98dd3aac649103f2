"""The embedded judge at a temperature above 0 over the shipped grades: each answer's
flip rate, and the judge's agreement with itself beside its agreement with people.

Judges the shipped grades (``human_grades/``) in a seeded random order, K samples an
answer at ``--temperature`` (all K drawn, as ``calibrate --samples`` draws them), batch by
batch through a SQLite cache, so an interrupted run resumes where it stopped. With
``--deadline`` it stops starting batches at that UTC time, and the report covers the
answers judged by then: a seeded random subset of the grades, said in the report's first
lines. Then the answers judged are calibrated as ``ragtriage calibrate --samples`` does
(calibration/stability.py) and the report gives:

* the self-agreement (two samples of one answer, kappa with a bootstrap over items and
  sample pairs) beside the kappa with the human grades, for the rule calibration chose
  and for the model's own score (its threshold rule, which reads the sampled verdicts);
* each answer's votes and flip rate under the judge's own verdict (score >= 0.5) and
  under the chosen rule.

    python benchmarks/judge_stability.py --samples 3 --temperature 0.7 \\
        --deadline 15:30 --out benchmarks/results/judge_stability.txt
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import random
import subprocess
import time
from pathlib import Path

from ragtriage.calibration.fit import fit_record
from ragtriage.calibration.grades import load_grades
from ragtriage.calibration.stability import self_agreement
from ragtriage.judge.api import ajudge_run
from ragtriage.judge.types import JudgeResult
from ragtriage.llm.cache import ResponseCache
from ragtriage.llm.local import LocalModel
from ragtriage.llm.worker import ModelCrashed

ROOT = Path(__file__).resolve().parents[1]


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True)
    return out.stdout.decode().strip() or "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--grades", type=Path, default=ROOT / "human_grades")
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--temperature", type=float, default=0.7)
    parser.add_argument("--cache", type=Path, default=ROOT / ".ragtriage" / "stability.sqlite")
    parser.add_argument("--deadline", default="", help="HH:MM UTC: start no batch after it")
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument(
        "--limit", type=int, default=0, help="judge only the first N of the seeded order"
    )
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N of the order")
    parser.add_argument(
        "--calls-only",
        action="store_true",
        help="write only what the judging cost (calls made, calls from the cache), no fit: "
        "for a re-run with a larger --samples over answers judged before",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/judge_stability.txt")
    args = parser.parse_args()

    graded = load_grades(args.grades)
    order = list(range(len(graded)))
    random.Random(args.seed).shuffle(order)
    if args.limit:
        order = order[: args.limit]
    order = order[args.skip :]
    stop = _deadline(args.deadline)
    started = time.time()
    load = os.getloadavg()
    # One event loop for every batch: the model process is started from a thread of the
    # loop's executor, and the kernel's parent-death signal is tied to that thread, so a
    # loop (and its executor) per batch would SIGTERM the model after the first batch.
    results = asyncio.run(_judge_all(args, graded, order, stop, started))
    seconds = time.time() - started
    done = [g for g in graded if g.id in results]
    if args.calls_only:
        _write_calls(args, results, seconds)
        return
    record = fit_record(
        done,
        list(results.values()),
        judge_name=f"embedded@T{args.temperature:g}x{args.samples}",
        grades_digest={},
        seed=args.seed,
        folds=5 if len(done) >= 100 else 2,  # a short run: fewer folds, said in the report
        resamples=1000,
    )
    _write(args, record, results, done, len(graded), seconds, load)


async def _judge_all(args, graded, order, stop, started) -> dict[str, JudgeResult]:
    model = LocalModel(n_threads=args.threads)
    cache = ResponseCache(args.cache)
    results: dict[str, JudgeResult] = {}
    try:
        for at in range(0, len(order), args.batch):
            if stop is not None and dt.datetime.now(dt.UTC) >= stop:
                break
            batch = [graded[k] for k in order[at : at + args.batch]]
            for _attempt in range(3):  # a killed model process: the batch again, from the cache
                try:
                    run = await ajudge_run(
                        [g.judge_item() for g in batch],
                        model,
                        "sentences",
                        1,
                        cache,
                        samples=args.samples,
                        temperature=args.temperature,
                        stop_early=False,
                    )
                    break
                except ModelCrashed as exc:
                    print(f"model process lost ({str(exc)[:80]}); resuming", flush=True)
                    model.close()
                    model = LocalModel(n_threads=args.threads)
            else:
                raise SystemExit("the model process was lost three times on one batch")
            results.update({r.item_id: r for r in run.results})
            print(f"{time.time() - started:7.0f}s {len(results)}/{len(graded)} judged", flush=True)
    finally:
        cache.close()
        model.close()
    return results


def _deadline(text: str) -> dt.datetime | None:
    if not text:
        return None
    hour, minute = (int(p) for p in text.split(":"))
    now = dt.datetime.now(dt.UTC)
    return now.replace(hour=hour, minute=minute, second=0, microsecond=0)


def _write_calls(args, results: dict[str, JudgeResult], seconds: float) -> None:
    """What judging cost: per answer, the samples, the calls made and those from the cache."""
    made = sum(r.usage.calls for r in results.values())
    cached = sum(r.usage.cached_calls for r in results.values())
    lines = [
        f"# benchmarks/judge_stability.py --calls-only at commit {_commit()}, "
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        f"# --samples {args.samples} --temperature {args.temperature:g} --skip {args.skip} "
        f"--limit {args.limit} --cache {args.cache.name}",
        f"answers judged: {len(results)} in {seconds:.0f} s; model calls made: {made}; "
        f"answered from the cache: {cached}",
        "id\tsamples\tcalls_made\tcalls_cached",
        *(f"{k}\t{_drawn(r)}\t{r.usage.calls}\t{r.usage.cached_calls}" for k, r in results.items()),
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:4]))


def _drawn(result: JudgeResult) -> int:
    return len(result.stability.samples) if result.stability else 1


def _write(args, record, results, done, total, seconds, load) -> None:
    st = record.stability
    assert st is not None
    used = {i.id for i in record.items if i.decision is not None}
    human = {i.id: bool(i.human) for i in record.items if i.id in used and i.human is not None}
    scored = {k: v for k, v in results.items() if k in human}
    pooled = next(iter(record.scopes.values()))
    people = pooled.selected.cv if pooled.selected is not None else pooled.cv
    score_fit = next(m for m in pooled.signals if m.name == "score")
    own = self_agreement(score_fit.rule, scored, human, seed=args.seed, resamples=1000)
    assert own is not None
    lines = [
        f"# benchmarks/judge_stability.py at commit {_commit()}, "
        f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC",
        f"# the embedded judge (sentences@{record.fingerprint.model}) at temperature "
        f"{args.temperature:g}, {args.samples} samples an answer (all drawn)",
        f"# answers judged: {len(done)} of the {total} shipped grades"
        + (
            f" (a seeded random subset, seed {args.seed}: the first {len(done)} of a seeded "
            "random order, as many as a loaded 2-core machine judged by the deadline; the "
            "rest of the order was not judged)"
            if len(done) < total
            else ""
        ),
        f"# judging took {seconds:.0f} s this run (load average at start {load[0]:.1f}): "
        f"{sum(r.usage.calls for r in results.values())} model calls made, "
        f"{sum(r.usage.cached_calls for r in results.values())} answered from the cache of "
        f"earlier (interrupted, resumed) runs; {record.folds}-fold nested CV",
        "",
        "## agreement: the judge against itself, beside the judge against people",
        f"chosen rule: {record.rule_name}",
        f"  kappa with people, nested CV         {people.kappa:.3f} "
        f"[{people.kappa_low:.3f}, {people.kappa_high:.3f}]",
        f"  kappa with people, over samples      {st.human_kappa:.3f} "
        f"[{st.human_kappa_low:.3f}, {st.human_kappa_high:.3f}] (in-sample; bootstrap over "
        "items and samples)",
        f"  self-agreement kappa (two samples)   {st.kappa:.3f} [{st.kappa_low:.3f}, "
        f"{st.kappa_high:.3f}], agreement {st.agreement:.3f}, n={st.items}",
        f"  answers that flip: {st.flaky} of {len(st.items_detail)}, mean flip rate "
        f"{st.mean_flip_rate:.3f}",
        "the model's own score (threshold rule on `score`, which reads the sampled verdicts):",
        f"  kappa with people, nested CV         {score_fit.cv.kappa:.3f} "
        f"[{score_fit.cv.kappa_low:.3f}, {score_fit.cv.kappa_high:.3f}]",
        f"  kappa with people, over samples      {own.human_kappa:.3f} "
        f"[{own.human_kappa_low:.3f}, {own.human_kappa_high:.3f}]",
        f"  self-agreement kappa (two samples)   {own.kappa:.3f} [{own.kappa_low:.3f}, "
        f"{own.kappa_high:.3f}], agreement {own.agreement:.3f}, n={own.items}",
        f"  answers that flip: {own.flaky} of {len(own.items_detail)}, mean flip rate "
        f"{own.mean_flip_rate:.3f}",
        "",
        "warnings of the calibration record:",
        *(f"  - {w}" for w in record.warnings),
        "",
        "## each answer: the judge's own votes (score >= 0.5) and flip rate; the chosen",
        "## rule's and the score rule's decisions over the samples (faithful/unfaithful)",
        "id\thuman\tvotes\tflip_rate\tflip_95%\tchosen_rule\tscore_rule",
    ]
    chosen = {d.id: d for d in st.items_detail}
    by_score = {d.id: d for d in own.items_detail}
    for g in done:
        r = results[g.id]
        s = r.stability
        votes = ",".join(f"{k}:{v}" for k, v in (s.votes if s else {}).items()) or r.outcome.value
        flip = "-" if s is None or s.flip_rate is None else f"{s.flip_rate:.2f}"
        ci = "-" if s is None or s.flip_low is None else f"[{s.flip_low:.2f},{s.flip_high:.2f}]"
        a, b = chosen.get(g.id), by_score.get(g.id)
        lines.append(
            f"{g.id}\t{g.label}\t{votes}\t{flip}\t{ci}\t"
            f"{f'{a.faithful}/{a.unfaithful}' if a else '-'}\t"
            f"{f'{b.faithful}/{b.unfaithful}' if b else '-'}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:30]))


if __name__ == "__main__":
    main()
