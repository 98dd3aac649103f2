"""The terminal summary of ``ragtriage calibrate`` (rich tables)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ragtriage.notices import Notice, Severity
from ragtriage.render.format import describe_rule, fmt, signed
from ragtriage.render.views import calibration_answer_line
from ragtriage.results.calibrate import CalibrationRecord, JudgeCalibration

# notices shown in bold red whatever their severity: they change what every figure means
URGENT_CODES = frozenset({"stale_calibration", "few_grades"})

__all__ = ["print_judge_comparison", "print_run"]


def _ci(a) -> str:
    return f"{fmt(a.kappa, 2)} [{fmt(a.kappa_low, 2)}, {fmt(a.kappa_high, 2)}]"


def print_run(run: JudgeCalibration, console: Console) -> None:
    rec = run.record
    _print_header(run, console)
    console.print(_agreement_table(rec))
    console.print(_signals_table(rec))
    _print_selection(rec, console)
    console.print(_choice_table(rec))
    _print_lexical_differences(rec, console)
    _print_ppi(rec, console)
    _print_audit_and_plan(run, console)
    console.print(f"decision rule ({rec.rule_name}): {describe_rule(rec.rule)}")
    console.print(Text(calibration_answer_line(rec.answer_check)))
    if rec.stability is not None:
        _print_stability(rec, console)
    _print_left_out(rec, console)
    for w in rec.warnings:  # markup is off in our consoles: styles go in a Text
        console.print(Text.assemble(("warning:", _style(w)), " ", w.text))
    _print_cost(run, console)


def _style(note: Notice) -> str:
    """By code and severity, never by the words: the urgent ones in bold red."""
    urgent = note.severity == Severity.LEAD or note.code in URGENT_CODES
    return "bold red" if urgent else "yellow"


def _print_header(run: JudgeCalibration, console: Console) -> None:
    rec, fp = run.record, run.record.fingerprint
    console.print(
        Text.assemble(
            "\n",
            (f"judge {rec.judge_name}", "bold"),
            f"  (judge={fp.judge}, model={fp.model}, "
            f"ragtriage {fp.package_version or '?'}; {rec.folds}-fold CV, seed {rec.seed}, "
            f"{rec.resamples} bootstrap resamples; results: {run.source or 'ran'})",
        )
    )


def _agreement_table(rec: CalibrationRecord) -> Table:
    """Per scope: the score threshold's agreement with the grades."""
    t = Table(title="agreement with the human grades (kappa: Cohen's, bootstrap 95 % CI)")
    for col in (
        "scope",
        "items",
        "scored",
        "threshold",
        "kappa CV [95% CI]",
        "kappa in-sample",
        "acc CV",
        "F1 unfaithful",
        "human / judge faithful",
        "rho, tau",
        "alpha graders",
    ):
        t.add_column(col, justify="left" if col == "scope" else "right")
    for name, s in rec.scopes.items():
        rank = "-" if s.cv.spearman is None else f"{fmt(s.cv.spearman, 2)}, {fmt(s.cv.kendall, 2)}"
        t.add_row(
            name,
            str(s.n_items),
            str(s.n_agreement),
            fmt(s.threshold, 3),
            _ci(s.cv),
            fmt(s.in_sample.kappa, 2),
            fmt(s.cv.accuracy, 2),
            fmt(s.cv.f1_unfaithful, 2),
            f"{fmt(s.cv.human_faithful_rate, 2)} / {fmt(s.cv.judge_faithful_rate, 2)}",
            rank,
            fmt(s.krippendorff_alpha, 2) if s.n_multi_graded else "1 grader",
        )
    return t


def _signals_table(rec: CalibrationRecord) -> Table:
    """Each signal alone, the combination and the baselines, per scope."""
    t = Table(
        title="kappa of each signal alone, the combination and the baselines: "
        "cross-validated (in-sample)"
    )
    t.add_column("signal / baseline")
    for name in rec.scopes:
        t.add_column(name, justify="right")
    rows: list[tuple[str, str]] = []
    for s in rec.scopes.values():
        rows += [(m.name, "signals") for m in s.signals if (m.name, "signals") not in rows]
        rows += [(m.name, "baselines") for m in s.baselines if (m.name, "baselines") not in rows]
    labels = {"score": "judge score", "combination": "combination (logistic)"}
    for n, kind in rows:
        cells = []
        for s in rec.scopes.values():
            m = next((m for m in getattr(s, kind) if m.name == n), None)
            cells.append("" if m is None else f"{fmt(m.cv.kappa, 2)} ({fmt(m.in_sample_kappa, 2)})")
        t.add_row(f"baseline: {n}" if kind == "baselines" else labels.get(n, n), *cells)
    return t


def _choice_table(rec: CalibrationRecord) -> Table:
    """The chosen rule and its band beside the runner-up, on the record's first scope:
    inner kappa, transfer kappa (leave one dataset out) and what the band decides."""
    first_name, first = next(iter(rec.scopes.items()))
    t = Table(title=f"the rule the audit applies, its band and the runner-up ({first_name})")
    for col in ("", "rule", "inner kappa", "transfer kappa", "band"):
        t.add_column(col, justify="left" if col in ("", "rule") else "right")
    sel = first.selection
    if sel is None:
        return t
    t.add_row("chosen", sel.chosen, *_inner_and_transfer(sel, sel.chosen), _band_words(rec))
    if sel.runner_up is not None:
        t.add_row("runner-up", sel.runner_up, *_inner_and_transfer(sel, sel.runner_up), "-")
    if sel.criterion:
        t.caption = f"chosen by: {sel.criterion}"
    return t


def _inner_and_transfer(sel, name: str) -> tuple[str, str]:
    transfer = sel.transfer_kappa.get(name)
    return fmt(sel.inner_kappa.get(name), 2), "-" if transfer is None else fmt(transfer, 2)


def _band_words(rec: CalibrationRecord) -> str:
    """What the band decides out of fold, and what happens when it decides too little."""
    first = next(iter(rec.scopes.values()))
    band = first.selective
    if rec.band is None or band is None:
        return "no band: every answer decided"
    words = f"decides {_share(band.coverage)} at agreement {_share(band.agreement)}"
    if rec.band_inert:
        fallback = "rule's verdicts stand" if rec.band_fallback == "rule" else "unsure"
        words += f"; inert: {fallback}"
    return words


def _print_lexical_differences(rec: CalibrationRecord, console: Console) -> None:
    diffs = [
        f"{n} {signed(d, 2)} [{signed(lo, 2)}, {signed(hi, 2)}]"
        for n, s in rec.scopes.items()
        if s.vs_lexical
        for d, lo, hi in [s.vs_lexical]
    ]
    if diffs:
        console.print(
            "selected rule minus lexical baseline, outer-fold kappa (paired bootstrap 95 % CI): "
            + "; ".join(diffs)
        )


def _print_ppi(rec: CalibrationRecord, console: Console) -> None:
    """The PPI check per scope, or why it did not run."""
    t = Table(
        title="faithful rate: naive judge vs prediction-powered (PPI) on a seeded split "
        "(labels of the other part hidden)"
    )
    for col in (
        "scope",
        "labelled / hidden",
        "naive judge rate",
        "PPI rate [95% CI]",
        "hidden human rate",
    ):
        t.add_column(col, justify="right")
    missing = [(name, s.ppi_note) for name, s in rec.scopes.items() if s.ppi is None]
    for name, s in rec.scopes.items():
        if s.ppi is None:
            continue
        e = s.ppi.estimate
        t.add_row(
            name,
            f"{e.n_labelled} / {e.n_unlabelled}",
            fmt(e.naive, 3),
            f"{fmt(e.estimate, 3)} [{fmt(e.low, 3)}, {fmt(e.high, 3)}]",
            fmt(s.ppi.hidden_human_rate, 3),
        )
    if t.row_count:  # never an empty table without a word of why
        console.print(t)
    for name, note in missing:
        console.print(Text(f"{name}: PPI check {note or 'not run'}"))


def _print_audit_and_plan(run: JudgeCalibration, console: Console) -> None:
    """The audit's corrected rate (``--audit``) and the grades plan (``--plan``)."""
    if run.audit_ppi is not None:
        e = run.audit_ppi
        console.print(
            f"audit faithful rate: naive {fmt(e.naive, 3)}, PPI-corrected {fmt(e.estimate, 3)} "
            f"[{fmt(e.low, 3)}, {fmt(e.high, 3)}] ({e.n_unlabelled} answers, "
            f"{e.n_labelled} graded)"
        )
    if run.plan is not None:
        console.print(_plan_words(run))


def _plan_words(run: JudgeCalibration) -> str:
    p = run.plan
    assert p is not None
    over = f" over the audit's {p.answers} answers" if p.answers else ""
    if p.needed < 0:
        text = (
            f"plan: no number of grades brings the corrected rate's interval to "
            f"+-{p.half_width:g}{over}: the judge's own spread over so few answers is wider"
        )
    else:
        text = (
            f"plan: a corrected rate within +-{p.half_width:g} (95 %){over} needs about "
            f"{p.needed} graded answers drawn like these: {p.more} more than the "
            f"{p.graded} so far (ragtriage annotate grades --audit ...)"
        )
    first = next(iter(run.record.scopes.values())).selective
    if first is not None and first.grades_to_decide is not None:
        text += (
            f"; the unsure band needs about {first.grades_to_decide} grades like these to "
            f"decide a quarter of the answers at agreement >= {first.min_agreement:.2f}"
        )
    return text


def _print_left_out(rec: CalibrationRecord, console: Console) -> None:
    for name, s in rec.scopes.items():
        if s.unscored:
            listed = ", ".join(f"{u.id} ({u.outcome})" for u in s.unscored[:8])
            more = f" and {len(s.unscored) - 8} more" if len(s.unscored) > 8 else ""
            console.print(f"{name}: {len(s.unscored)} not scored: {listed}{more}")
        if s.tied:
            console.print(
                f"{name}: {len(s.tied)} items with tied graders left out: " + ", ".join(s.tied[:8])
            )


def _print_cost(run: JudgeCalibration, console: Console) -> None:
    c = run.record.cost
    sec = "recorded" if c.seconds_per_item is None else f"{fmt(c.seconds_per_item, 3)} s"
    calls, usd = fmt(c.calls_per_item, 2), fmt(c.usd_per_item, 5)
    console.print(f"cost per item: {calls} calls, ${usd}, {sec}")
    if run.record_path.name:
        console.print(f"wrote {run.record_path}" + "".join(f", {p}" for p in run.plots))


def _print_stability(rec, console: Console) -> None:
    """Self-agreement beside the agreement with people (calibration/stability.py)."""
    st = rec.stability
    first = next(iter(rec.scopes.values()))
    people = first.applied
    at = f" at temperature {st.temperature:g}" if st.temperature is not None else ""
    t = Table(title=f"the judge against itself and against people ({st.samples} samples{at})")
    for col in ("", "kappa [95% CI]", "agreement"):
        t.add_column(col, justify="left" if not col else "right")
    t.add_row(
        "self: two samples of one answer",
        f"{fmt(st.kappa, 2)} [{fmt(st.kappa_low, 2)}, {fmt(st.kappa_high, 2)}]",
        fmt(st.agreement, 3),
    )
    t.add_row("people: the rule, cross-validated", _ci(people), fmt(people.accuracy, 3))
    t.add_row(
        "people: the rule in-sample, over samples",
        f"{fmt(st.human_kappa, 2)} [{fmt(st.human_kappa_low, 2)}, {fmt(st.human_kappa_high, 2)}]",
        fmt(st.human_agreement, 3),
    )
    console.print(t)
    console.print(
        f"flip rate: {st.flaky} of {len(st.items_detail)} answers flip between samples, "
        f"mean flip rate {fmt(st.mean_flip_rate, 3)} (each answer's in calibration.json)"
    )


def _print_selection(rec, console: Console) -> None:
    """The rule nested cross-validation chose per scope, the procedure's outer-fold kappa
    (choice included) and how often each candidate won an outer fold."""
    t = Table(title="decision rule chosen by nested cross-validation (outer-fold kappa)")
    numbers = ("kappa outer-fold [95% CI]", "decided [95% CI]", "agreement on decided [95% CI]")
    for col in ("scope", "chosen", numbers[0], "chosen in outer folds", *numbers[1:]):
        t.add_column(col, justify="right" if col in numbers else "left")
    target = None
    for name, s in rec.scopes.items():
        if s.selection is None or s.selected is None:
            continue
        counts = ", ".join(
            f"{k} {v}/{len(s.selection.fold_choices)}" for k, v in s.selection.choice_counts.items()
        )
        chosen = s.selection.chosen + (" + swap veto" if s.selection.fact_veto else "")
        band = s.selective
        cells = ("-", "-") if band is None else (_share(band.coverage), _share(band.agreement))
        target = band or target
        t.add_row(name, chosen, _ci(s.selected.cv), counts, *cells)
    console.print(t)
    if target is not None:
        console.print(
            f"decided: the share of answers the band decides out of fold (the rest are "
            f"unsure); the band is fitted for agreement >= {target.min_agreement:.2f} on "
            f"decided answers with probability >= {1 - target.delta:.2f} (--min-agreement, "
            "--delta), inside each outer fold"
        )


def _share(e) -> str:
    """A share with its interval; ``-`` when undefined (nothing decided)."""
    if e.estimate != e.estimate:  # NaN
        return "-"
    return f"{fmt(e.estimate, 2)} [{fmt(e.low, 2)}, {fmt(e.high, 2)}]"


def _versus(scope) -> str:
    if scope.vs_lexical is None:
        return "-"
    d, lo, hi = scope.vs_lexical
    if scope.beats_lexical:  # the paired interval excludes 0
        verdict = "better"
    else:
        verdict = "within noise, not better" if d > 0 else "NOT better"
    return f"{signed(d, 2)} [{signed(lo, 2)}, {signed(hi, 2)}] {verdict}"


def print_judge_comparison(runs: list[JudgeCalibration], console: Console) -> None:
    """Judges ranked by pooled cross-validated kappa (best decision rule of each)."""
    t = Table(title="judges ranked by cross-validated kappa (pooled)")
    for col in (
        "rank",
        "judge",
        "kappa CV [95% CI]",
        "per dataset",
        "minus lexical [95% CI]",
        "calls/item",
        "$/item",
        "s/item",
    ):
        t.add_column(col, justify="left" if col == "judge" else "right")

    def chosen(run: JudgeCalibration):
        s = next(iter(run.record.scopes.values()))
        if s.selected is not None:
            return s.selected
        return next(m for m in s.signals if m.name == run.record.rule_name)

    def key(run: JudgeCalibration) -> float:
        kappa = chosen(run).cv.kappa
        return kappa if kappa == kappa else -2.0

    for rank, run in enumerate(sorted(runs, key=key, reverse=True), start=1):
        rec = run.record
        first = next(iter(rec.scopes.values()))
        per = ", ".join(
            f"{n} {fmt((s.selected or s).cv.kappa, 2)}" for n, s in list(rec.scopes.items())[1:]
        )
        label = f"{rec.judge_name} ({rec.rule_name})"
        sec = rec.cost.seconds_per_item
        t.add_row(
            str(rank),
            label,
            _ci(chosen(run).cv),
            per or "-",
            _versus(first),
            fmt(rec.cost.calls_per_item, 2),
            fmt(rec.cost.usd_per_item, 5),
            "recorded" if sec is None else fmt(sec, 3),
        )
    console.print(t)
