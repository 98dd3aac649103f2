"""Pictures of a calibration (matplotlib, Agg backend, PNG): the confusion matrix, kappa
against the threshold, and the judge's scores for faithful vs unfaithful items."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ragtriage.calibration.record import CalibrationRecord
from ragtriage.calibration.threshold import candidate_thresholds, kappa_curve
from ragtriage.render.format import describe_rule, fmt
from ragtriage.render.plots import label

__all__ = ["write_plots"]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _suptitle(fig, text: str) -> None:
    """The figure's title wrapped to its width (about 15 characters an inch at 9 pt): on
    one panel a rule's description ran off both edges."""
    import textwrap

    width = int(fig.get_size_inches()[0] * 15)
    fig.suptitle(textwrap.fill(text, max(width, 40)), fontsize=9)


def _scope_data(record: CalibrationRecord, scope: str) -> tuple[np.ndarray, np.ndarray]:
    rows = [
        i
        for i in record.items
        if (scope == "pooled" or i.dataset == scope)
        and i.human is not None
        and i.score is not None
        and i.outcome == "scored"
    ]
    return np.array([i.score for i in rows], float), np.array([i.human for i in rows], float)


def write_plots(record: CalibrationRecord, directory: Path | str) -> list[Path]:
    """Write ``confusion.png``, ``kappa_threshold.png`` and ``score_distribution.png`` (one
    panel per scope) into ``directory`` and return their paths."""
    # Long on purpose (79 lines): three figures drawn in sequence on one title and one
    # scope list; each block is a figure, read top to bottom like the files it writes.
    plt = _plt()
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    scopes = list(record.scopes)
    title = record.judge_name
    if record.fingerprint.model not in title:
        title += f" ({record.fingerprint.model})"
    title = label(title, 80)  # names and ids are text, not mathtext (``$``)
    paths = []

    fig, axes = plt.subplots(1, len(scopes), figsize=(3.6 * len(scopes), 3.4), squeeze=False)
    for ax, name in zip(axes[0], scopes, strict=True):
        applied = _applied(record, name)
        cm = np.array(applied.confusion)
        ax.imshow(cm, cmap="Blues")
        for (r, c), v in np.ndenumerate(cm):
            ax.text(
                c,
                r,
                str(v),
                ha="center",
                va="center",
                color="white" if v > cm.max() / 2 else "black",
                fontsize=12,
            )
        ax.set_xticks([0, 1], ["unfaithful", "faithful"])
        ax.set_yticks([0, 1], ["unfaithful", "faithful"])
        ax.set_xlabel("decision rule (cross-validated)")
        ax.set_ylabel("human")
        ci = f"[{fmt(applied.kappa_low, 2)}, {fmt(applied.kappa_high, 2)}]"  # '-' if undefined
        ax.set_title(f"{label(name)}: kappa {fmt(applied.kappa, 2)} {ci}", fontsize=9)
    _suptitle(fig, f"{title}: {label(describe_rule(record.rule), 140)}")
    fig.tight_layout()
    paths.append(_save(fig, directory / "confusion.png", plt))

    fig, axes = plt.subplots(1, len(scopes), figsize=(4 * len(scopes), 3.2), squeeze=False)
    for ax, name in zip(axes[0], scopes, strict=True):
        x, y = _scope_data(record, name)
        s = record.scopes[name]
        if len(x):
            grid = np.unique(
                np.concatenate([np.linspace(x.min(), x.max(), 200), candidate_thresholds(x)])
            )
            ax.plot(grid, kappa_curve(x, y, grid), color="C0", label="in-sample kappa")
        ax.axvline(s.threshold, color="C3", ls="--", label=f"chosen {fmt(s.threshold, 3)}")
        for t in s.fold_thresholds:
            ax.axvline(t, color="C3", alpha=0.25, lw=0.8)
        ax.axhline(s.cv.kappa, color="C2", ls=":", label=f"CV kappa {fmt(s.cv.kappa, 2)}")
        _label(ax, "threshold on judge score", "Cohen's kappa", name)
    _suptitle(
        fig,
        title
        + ": kappa against a threshold on the judge score (faint: fold thresholds)"
        + _not_applied(record),
    )
    fig.tight_layout()
    paths.append(_save(fig, directory / "kappa_threshold.png", plt))

    fig, axes = plt.subplots(1, len(scopes), figsize=(4 * len(scopes), 3.2), squeeze=False)
    for ax, name in zip(axes[0], scopes, strict=True):
        x, y = _scope_data(record, name)
        bins = np.linspace(min(0.0, x.min(initial=0)), max(1.0, x.max(initial=1)), 21)
        ax.hist(x[y == 1], bins=bins, alpha=0.6, color="C2", label=f"faithful (n={int(y.sum())})")
        ax.hist(
            x[y == 0],
            bins=bins,
            alpha=0.6,
            color="C3",
            label=f"unfaithful (n={int((y == 0).sum())})",
        )
        ax.axvline(record.scopes[name].threshold, color="black", ls="--", label="threshold")
        _label(ax, "judge score", "items", name)
    _suptitle(fig, title + ": judge scores by human label" + _not_applied(record))
    fig.tight_layout()
    paths.append(_save(fig, directory / "score_distribution.png", plt))
    return paths


def _applied(record: CalibrationRecord, scope: str):
    """The agreement of the rule the record applies (chosen by nested cross-validation),
    not of the plain score threshold: the report showed kappa 0.32 beside a rule of 0.38."""
    s = record.scopes[scope]
    return s.selected.cv if s.selected is not None else s.cv


def _not_applied(record: CalibrationRecord) -> str:
    """A second title line when the applied rule is not a threshold on the judge score."""
    rule = record.rule
    if rule.kind == "threshold" and rule.feature == "score":
        return ""
    return f"\n(the rule applied is another: {label(describe_rule(rule), 140)})"


def _label(ax, xlabel: str, ylabel: str, title: str) -> None:
    """One panel's axes, title and legend, alike in every calibration figure."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(label(title), fontsize=9)
    ax.legend(fontsize=7)


def _save(fig, path: Path, plt) -> Path:
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
