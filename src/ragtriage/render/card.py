"""The validity card (``calibrate --card``): one page per judge a team can attach to a
release review, as Markdown (``card.md``) and self-contained HTML (``card.html``: no
script, no outside file, every text escaped). What it holds: docs/judge-against-people.md.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from pathlib import Path

from ragtriage.atomic import write_atomic
from ragtriage.calibration.ceiling import Ceiling, human_ceiling
from ragtriage.calibration.grades import GradedItem
from ragtriage.calibration.record import CalibrationRecord, ScopeReport
from ragtriage.render.format import fmt, fmt_estimate
from ragtriage.render.markdown import escape
from ragtriage.render.markdown import table as markdown_table
from ragtriage.results.calibrate import JudgeCalibration
from ragtriage.stats import wilson_interval

__all__ = ["card_sections", "write_card"]

Section = tuple[str, list[str], list[list[str]] | None]  # title, lines, table rows


def _num(value: float | None) -> str:
    return fmt(value, 2)


def _ci(value: float | None, low: float | None, high: float | None) -> str:
    return f"{_num(value)} [{_num(low)}, {_num(high)}]"


def _rate(k: int, n: int) -> str:
    if n == 0:
        return "-"
    w = wilson_interval(k, n)
    return f"{_ci(w.estimate, w.low, w.high)} ({k}/{n})"


def _agreement_rows(record: CalibrationRecord) -> list[list[str]]:
    rows = [["scope", "n", "kappa [95% CI]", "TPR [95% CI]", "TNR [95% CI]", "accuracy"]]
    for name, scope in record.scopes.items():
        cv = scope.applied
        (uu, uf), (fu, ff) = cv.confusion
        rows.append(
            [name, str(cv.n), _ci(cv.kappa, cv.kappa_low, cv.kappa_high), _rate(ff, fu + ff),
             _rate(uu, uu + uf), _num(cv.accuracy)]
        )  # fmt: skip
    return rows


def _confusion(scope: ScopeReport) -> list[list[str]]:
    cv = scope.applied
    (uu, uf), (fu, ff) = cv.confusion
    return [
        ["", "judge: unfaithful", "judge: faithful"],
        ["human: unfaithful", str(uu), str(uf)],
        ["human: faithful", str(fu), str(ff)],
    ]


def _graded(items: list[GradedItem], record: CalibrationRecord) -> list[str]:
    graders = Counter(grade.grader or "unnamed" for item in items for grade in item.grades)
    datasets: dict[str, list[GradedItem]] = {}
    for item in items:
        datasets.setdefault(item.dataset, []).append(item)
    lines = [
        f"{len(items)} answers graded ({sum(len(i.grades) for i in items)} grades), "
        f"{sum(i.label is True for i in items)} faithful by the graders' majority, "
        f"{sum(i.label is None for i in items)} tied"
    ]
    lines += [
        f"dataset {name}: {len(group)} answers, {sum(i.label is True for i in group)} faithful"
        for name, group in sorted(datasets.items())
    ]
    lines.append("graders: " + ", ".join(f"{g} ({n} grades)" for g, n in sorted(graders.items())))
    lines += [f"grade file {path}: sha256 {digest}" for path, digest in record.grades.items()]
    return lines


def _judge(run: JudgeCalibration) -> list[str]:
    fp = run.record.fingerprint
    lines = [f"judge {run.record.judge_name}: strategy or tool metric {fp.judge}, "
             f"model {fp.model}"]  # fmt: skip
    lines += [f"{k}: {v}" for k, v in sorted(fp.params.items())]
    lines += [f"prompt {k}: sha256 {v}" for k, v in sorted(fp.prompt_sha256.items())]
    if fp.package_version:
        lines.append(f"ragtriage version that judged: {fp.package_version}")
    lines.append(f"results: {run.source}")
    return lines + [note.text for note in run.notes]  # how another tool's file was read


def _rule(record: CalibrationRecord) -> list[str]:
    scope = next(iter(record.scopes.values()))
    cuts = [t for t in scope.fold_thresholds if not math.isnan(t)]
    lines = [
        f"decision rule: {record.rule_name}, chosen by nested cross-validation "
        f"({record.folds} folds, seed {record.seed}); the figures above are its out-of-fold "
        "decisions, never the data it was fitted on",
    ]
    if cuts:
        lines.append(
            f"score threshold refitted in each fold: {_num(min(cuts))} to {_num(max(cuts))} "
            f"(on all grades: {_num(scope.threshold)})"
        )
    sel = scope.selective
    if sel is not None:
        lines.append(
            f"unsure band (agreement >= {sel.min_agreement:.2f} with probability >= "
            f"{1 - sel.delta:.2f}): decides {fmt_estimate(sel.coverage, 2)} of answers, "
            f"agreement on decided {fmt_estimate(sel.agreement, 2)}"
        )
    return lines


def _ceiling(ceiling: Ceiling | None) -> list[str]:
    if ceiling is None:
        return [
            "no answer was graded by two or more people: the graders' own agreement, the "
            "ceiling a judge can reach, is unknown (grade some answers twice)"
        ]
    graders = ", ".join(f"{g} ({n})" for g, n in sorted(ceiling.graders.items()))
    return [
        f"{ceiling.n_items} answers graded two or more times, by {graders}",
        f"graders with each other: Krippendorff's alpha {_ci(*ceiling.alpha)}, "
        f"Cohen's kappa of the first two grades {_ci(*ceiling.kappa)}",
        f"the judge on the same answers ({ceiling.judge_n}): kappa {_ci(*ceiling.judge_kappa)}",
    ]


def _correction(run: JudgeCalibration) -> list[str]:
    lines = []
    for name, scope in run.record.scopes.items():
        if scope.ppi is None:
            lines.append(f"{name}: no PPI check ({scope.ppi_note})")
            continue
        est = scope.ppi.estimate
        lines.append(
            f"{name}: labels of {1 - scope.ppi.labelled_fraction:.0%} of the grades hidden: "
            f"judge's own rate {_num(est.naive)}, PPI-corrected {fmt_estimate(est, 2)}, "
            f"the hidden human rate {_num(scope.ppi.hidden_human_rate)}"
        )
    if run.audit_ppi is not None:
        est = run.audit_ppi
        lines.append(
            f"answers without grades ({est.n_unlabelled}): judge's own faithful rate "
            f"{_num(est.naive)}, PPI-corrected {fmt_estimate(est, 2)} "
            f"(with {est.n_labelled} grades)"
        )
    return lines


def _stale(record: CalibrationRecord) -> list[str]:
    fp = record.fingerprint
    fields = ["judge", "model", *(f"params.{k}" for k in sorted(fp.params))]
    fields += [f"prompt_sha256.{k}" for k in sorted(fp.prompt_sha256)]
    lines = [
        "this card holds for the judge with this fingerprint only; it is stale when any of "
        + ", ".join(fields)
        + " changes (ragtriage flags an audit or verdicts file whose judge "
        "differs), and when the grades change (their sha256 above)",
    ]
    unknown = [k for k, v in fp.params.items() if v == "unknown"] + (
        ["model"] if fp.model == "unknown" else []
    )
    if unknown:
        lines.append(
            "the verdicts file named no "
            + ", ".join(sorted(set(unknown)))
            + ": a change there cannot be seen; record it beside this card"
        )
    return lines


def card_sections(run: JudgeCalibration, items: list[GradedItem]) -> list[Section]:
    """The card's sections: a title, lines of text, an optional table (rows of cells)."""
    record = run.record
    first = next(iter(record.scopes.values()))
    ceiling = human_ceiling(items, record, resamples=min(record.resamples, 1000), seed=record.seed)
    return [
        ("What was graded, by whom", _graded(items, record), None),
        ("The judge", _judge(run), None),
        ("Agreement with the graders (out of fold)", [], _agreement_rows(record)),
        (f"Confusion ({first.scope})", [], _confusion(first)),
        ("Decision rule and unsure band", _rule(record), None),
        ("Human ceiling", _ceiling(ceiling), None),
        ("Rate correction", _correction(run), None),
        ("Warnings", [w.text for w in record.warnings] or ["none"], None),
        ("When it goes stale", _stale(record), None),
    ]


def _markdown(title: str, sections: list[Section]) -> str:
    out = [f"# Validity card: {escape(title)}", ""]
    for name, lines, table in sections:
        out += [f"## {escape(name)}", ""]
        out += [f"- {escape(line)}" for line in lines]
        if table:
            head, *rows = [[escape(c) for c in row] for row in table]
            out.append(markdown_table(head, rows))
        out.append("")
    return "\n".join(out)


_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;"
    "color:#222}table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #bbb;"
    "padding:.25rem .5rem;text-align:left}th{background:#f0f0f0}li{margin:.2rem 0}"
)


def _html(title: str, sections: list[Section]) -> str:
    e = html.escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">",
        f"<title>Validity card: {e(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Validity card: {e(title)}</h1>",
    ]
    for name, lines, table in sections:
        out.append(f"<h2>{e(name)}</h2>")
        if lines:
            out.append("<ul>" + "".join(f"<li>{e(line)}</li>" for line in lines) + "</ul>")
        if table:
            head = "".join(f"<th>{e(c)}</th>" for c in table[0])
            body = "".join(
                "<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in table[1:]
            )
            out.append(f"<table><tr>{head}</tr>{body}</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_card(run: JudgeCalibration, items: list[GradedItem], folder: Path) -> list[Path]:
    """``card.md`` and ``card.html`` in ``folder`` (the judge's calibration folder)."""
    sections = card_sections(run, items)
    title = run.record.judge_name
    return [
        write_atomic(folder / "card.md", _markdown(title, sections)),
        write_atomic(folder / "card.html", _html(title, sections)),
    ]
