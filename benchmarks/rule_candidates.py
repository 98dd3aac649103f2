"""Which decision rule, for answers the grades have not seen? The candidate table.

    python benchmarks/rule_candidates.py > benchmarks/results/rule_candidates.txt

For the lexical judge (run here, no model) and the embedded judge (its recorded results in
``human_grades/_judged/``), on the 300 shipped grades with ``calibrate``'s folds (5, seed
20261129):

* each **fixed candidate** (the smooth rule ``signals-logistic``, the shape rules and the
  best single signal, as ``calibrate`` builds them, with the fact-check veto where
  ``calibrate`` gives it): its 5-fold cross-validated kappa pooled and per dataset (the
  pooled folds' decisions, restricted to the dataset), and its **transfer** kappa
  (leave-one-dataset-out: fitted on ExpertQA, scored on BEGIN, and back). A fixed
  candidate fits everything it fits inside the folds, so its figure is honest for it
  alone; picking the best row of this table would not be, which is what the last row is
  for;
* **the procedure** ``calibrate`` ships (nested selection with the transfer criterion,
  ``calibration.select``): its outer-fold kappa, choice included, and its transfer kappa
  (the whole procedure run on one dataset, its rule scored on the other).

Every kappa with its percentile-bootstrap 95 % interval (2000 resamples over answers).
Then the fact check and the swap veto on faithful answers: how often each fires on
answers that paraphrase their evidence and on those that copy it, and what the smooth
rule (under the swap veto, weighing the whole fact check) decides on them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from selective_band import _inputs, _judge  # noqa: E402  (the same inputs, one loader)

from ragtriage.calibration.agreement import agreement  # noqa: E402
from ragtriage.calibration.fit import scope_candidates  # noqa: E402
from ragtriage.calibration.select import SMOOTH, nested_select  # noqa: E402
from ragtriage.calibration.threshold import cross_fit, subset  # noqa: E402
from ragtriage.stats import DEFAULT_SEED  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESAMPLES = 2000
SHOWN = (SMOOTH, "cited-shape", "per-shape", "shape-logistic", "shape-tree",
         "min_sentence_lexical", "min_sentence_alignment", "citation_failures")  # fmt: skip
DIRECTIONS = (("expertqa", "begin_wow"), ("begin_wow", "expertqa"))


def _kappa(y: np.ndarray, decided: np.ndarray) -> str:
    ok = np.isfinite(decided)
    a = agreement(y[ok], decided[ok], resamples=RESAMPLES, seed=DEFAULT_SEED)
    return f"{a.kappa:5.2f} [{a.kappa_low:5.2f}, {a.kappa_high:5.2f}]"


def _row(name: str, y, datasets, oof, transfer) -> str:
    cells = [_kappa(y, oof)]
    cells += [_kappa(y[datasets == d], oof[datasets == d]) for d in ("expertqa", "begin_wow")]
    cells += transfer
    return f"{name:<24} " + "  ".join(f"{c:<19}" for c in cells)


def _transfer(fit, table, y, datasets) -> list[str]:
    out = []
    for train, test in DIRECTIONS:
        a, b = datasets == train, datasets == test
        rule = fit(subset(table, a), y[a])
        out.append(_kappa(y[b], rule.predict(subset(table, b))))
    return out


def _procedure_transfer(table, y, folds, datasets, derived, lexical) -> list[str]:
    """The whole procedure on one dataset (its own nested choice), scored on the other."""
    out = []
    for train, test in DIRECTIONS:
        a, b = datasets == train, datasets == test
        part = subset(table, a)
        cands = scope_candidates(part, derived, lexical)
        _, _, _, rule = nested_select(cands, part, y[a], folds[a], DEFAULT_SEED, datasets[a])
        out.append(_kappa(y[b], rule.predict(subset(table, b))))
    return out


def _veto_on_paraphrase(table, y, folds, datasets, smooth_fit, signal: str) -> None:
    """A fact signal as a veto on faithful answers, by how much they paraphrase their
    evidence: ``fact_check`` (the whole fact check, a weighted input since issue 54) and
    ``swapped_facts`` (its restated sentences: the veto every candidate carries)."""
    oof, _ = cross_fit(smooth_fit, table, y, folds)
    faithful = y == 1
    flagged = np.asarray(table[signal]) > 0
    para = np.asarray(table["paraphrase_share"])
    cut = float(np.median(para[faithful]))
    print(f"\n  {signal} > 0 on the faithful answers (paraphrase_share above / at most its "
          f"median among them, {cut:.2f}):")  # fmt: skip
    for label, part in (("paraphrased", para > cut), ("close to the evidence", para <= cut)):
        for d in ("expertqa", "begin_wow"):
            m = faithful & part & (datasets == d)
            fires = flagged & m
            kept = int((oof[fires] == 1).sum())
            fired = f"fires on {int(fires.sum()):>3} of {int(m.sum()):>3}"
            kept_words = f"the chosen rule calls {kept} of those faithful (out of fold)"
            print(f"    {label:<22} {d:<10} {fired}; {kept_words}")
    unfaithful = ~faithful & flagged
    print(f"    (on unfaithful answers it fires on {int(unfaithful.sum())} of "
          f"{int((~faithful).sum())})")  # fmt: skip


def main() -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    print(f"# python benchmarks/rule_candidates.py   (commit {commit}; 300 shipped grades,")
    print(f"# 5 folds, seed {DEFAULT_SEED}; kappa [bootstrap 95 % CI, {RESAMPLES} resamples])")
    head = [
        "CV pooled",
        "CV expertqa",
        "CV begin_wow",
        "transfer EQA->BEGIN",
        "transfer BEGIN->EQA",
    ]
    for judge in ("lexical", "embedded"):
        table, y, folds, derived, datasets = _inputs(_judge(judge))
        lexical = judge == "lexical"
        cands = {c.name: c for c in scope_candidates(table, derived, lexical)}
        print(f"\n{judge} judge ({len(y)} grades)")
        print(f"{'candidate':<24} " + "  ".join(f"{h:<19}" for h in head))
        for name in SHOWN:
            cand = cands.get(name)
            if cand is None:
                continue
            oof, _ = cross_fit(cand.fit, table, y, folds)
            label = name
            print(_row(label, y, datasets, oof, _transfer(cand.fit, table, y, datasets)))
            sys.stdout.flush()
        selection, oof, _, _ = nested_select(
            list(cands.values()), table, y, folds, DEFAULT_SEED, datasets
        )
        transfer = _procedure_transfer(table, y, folds, datasets, derived, lexical)
        print(_row("PROCEDURE (nested)", y, datasets, oof, transfer))
        print(f"  chosen on all 300: {selection.chosen} (runner-up {selection.runner_up}); "
              f"outer folds chose {selection.fold_choices}")  # fmt: skip
        print(f"  criterion: {selection.criterion}")
        inner = {k: round(v, 3) for k, v in selection.inner_kappa.items() if k in SHOWN}
        transfer_k = {k: round(v, 3) for k, v in selection.transfer_kappa.items() if k in SHOWN}
        print(f"  inner kappa on all 300: {inner}")
        print(f"  worst transfer kappa on all 300: {transfer_k}")
        for signal in ("fact_check", "swapped_facts"):
            _veto_on_paraphrase(table, y, folds, datasets, cands[SMOOTH].fit, signal)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
