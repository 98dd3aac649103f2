"""The gate against judge noise: a bar on a rate of an audit judged with ``--samples``
fails only when its judge-noise interval misses it (``--strict``: the point value);
``compare`` sets aside flips only judge noise made."""

from __future__ import annotations

from ragtriage.judge.samples import FAITHFUL, UNFAITHFUL
from ragtriage.judge.types import Sample, Stability
from ragtriage.results.gate import Bar, check_bars
from ragtriage.triage.models import Label
from tests.support.audits import make_audit


def _stable(votes: dict[str, int]) -> Stability:
    samples = [
        Sample(outcome="scored", score=0.9 if v == FAITHFUL else 0.1, verdict=v)
        for v, n in votes.items()
        for _ in range(n)
    ]
    lead = max(votes, key=votes.__getitem__)
    minority = sum(votes.values()) - votes[lead]
    return Stability(
        limit=5, votes=votes, verdict=lead, flip_rate=minority / sum(votes.values()),
        samples=samples,
    )  # fmt: skip


def _noisy_audit(flaky_fails: int):
    """The shared audit, its judged cases sampled: ``flaky_fails`` of its passing cases
    turned into generation failures by a 3-2 vote, the rest unanimous."""
    audit = make_audit()
    cases, turned = [], 0
    for case in audit.cases:
        if case.judge is None or case.faithful is None:
            cases.append(case)
            continue
        if case.label == Label.PASS and turned < flaky_fails:
            turned += 1
            judge = case.judge.model_copy(
                update={"stability": _stable({UNFAITHFUL: 3, FAITHFUL: 2})}
            )
            case = case.model_copy(
                update={"judge": judge, "faithful": False, "label": Label.GENERATION}
            )
        else:
            vote = FAITHFUL if case.faithful else UNFAITHFUL
            judge = case.judge.model_copy(update={"stability": _stable({vote: 3})})
            case = case.model_copy(update={"judge": judge})
        cases.append(case)
    return audit.model_copy(update={"cases": cases, "counts": {}})


def test_a_bar_missed_only_through_flaky_cases_holds_unless_strict():
    base = make_audit()
    passing = sum(c.label == Label.PASS for c in base.cases)
    scored = sum(c.label != Label.UNSCORED for c in base.cases)
    noisy = _noisy_audit(2)
    bar = [Bar("min", "pass_rate", passing / scored)]
    (check,) = check_bars(noisy, bar)
    assert check.value < check.bar.bound and check.high >= check.bar.bound
    assert check.ok and check.flaky == 2 and "2 flaky cases" in check.describe()
    (strict,) = check_bars(noisy, bar, strict=True)
    assert not strict.ok and "--strict" in strict.describe()
    # without samples the same rates are held to the point value, as before
    (plain,) = check_bars(base, [Bar("min", "pass_rate", 1.0)])
    assert plain.low is None and not plain.ok


def test_a_bar_far_below_every_sample_fails_the_gate():
    noisy = _noisy_audit(0)
    (check,) = check_bars(noisy, [Bar("min", "pass_rate", 0.99)])
    assert check.high < 0.99 and not check.ok


def test_compare_sets_aside_flips_that_only_judge_noise_made():
    """The same answer, judged 3-2 one way and 2-3 the other: noise, not a regression;
    a changed answer that flips stays a flip."""
    from ragtriage.render.compare import flip_summary
    from ragtriage.results.compare import Comparison, flips, split_noise

    base = _noisy_audit(0)
    noisy = _noisy_audit(2)
    found = flips(base, noisy)
    assert len(found) == 2
    kept, noise = split_noise(found, base, noisy)
    assert kept == [] and len(noise) == 2
    changed = noisy.model_copy(
        update={
            "cases": [
                c.model_copy(update={"answer": c.answer + " (rewritten)"})
                if c.case_id == found[0].case_id
                else c
                for c in noisy.cases
            ]
        }
    )
    kept, noise = split_noise(flips(base, changed), base, changed)
    assert [f.case_id for f in kept] == [found[0].case_id] and len(noise) == 1
    line = flip_summary(
        Comparison(kind="audit", golden={}, n_common=0, metrics=[], flips=kept, noise_flips=noise)
    )
    assert "1 more set aside as judge noise" in line
