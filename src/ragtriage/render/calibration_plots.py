"""Pictures of a calibration (matplotlib, Agg backend, PNG): the confusion matrix, kappa
against the threshold, and the judge's scores for faithful vs unfaithful items."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ragtriage.calibration.record import CalibrationRecord
from ragtriage.calibration.threshold import candidate_thresholds, kappa_curve
from ragtriage.render.format import describe_rule, fmt
from ragtriage.render.plots import label

__all__ = ["write_plots"]


def _suptitle(fig, text: str) -> None:
    """The figure's title wrapped to its width (about 15 characters an inch at 9 pt)."""
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
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    title = record.judge_name
    if record.fingerprint.model not in title:
        title += f" ({record.fingerprint.model})"
    title = label(title, 80)  # names and ids are text, not mathtext (``$``)
    return [
        _confusion(record, title, directory / "confusion.png"),
        _kappa(record, title, directory / "kappa_threshold.png"),
        _scores(record, title, directory / "score_distribution.png"),
    ]


def _panels(record: CalibrationRecord, width: float, height: float) -> tuple[Figure, list]:
    """A figure of one panel per scope, ``width`` inches each: the figure and
    ``(axes, scope)`` pairs."""
    scopes = list(record.scopes)
    fig = Figure(figsize=(width * len(scopes), height))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(scopes), squeeze=False)
    return fig, list(zip(axes[0], scopes, strict=True))


def _confusion(record: CalibrationRecord, title: str, path: Path) -> Path:
    fig, panels = _panels(record, 3.6, 3.4)
    for ax, name in panels:
        applied = record.scopes[name].applied
        cm = np.array(applied.confusion)
        ax.imshow(cm, cmap="Blues")
        for (r, c), v in np.ndenumerate(cm):
            colour = "white" if v > cm.max() / 2 else "black"
            ax.text(c, r, str(v), ha="center", va="center", color=colour, fontsize=12)
        ax.set_xticks([0, 1], ["unfaithful", "faithful"])
        ax.set_yticks([0, 1], ["unfaithful", "faithful"])
        ax.set_xlabel("decision rule (cross-validated)")
        ax.set_ylabel("human")
        ci = f"[{fmt(applied.kappa_low, 2)}, {fmt(applied.kappa_high, 2)}]"  # '-' if undefined
        ax.set_title(f"{label(name)}: kappa {fmt(applied.kappa, 2)} {ci}", fontsize=9)
    return _save(fig, f"{title}: {label(describe_rule(record.rule), 140)}", path)


def _kappa(record: CalibrationRecord, title: str, path: Path) -> Path:
    fig, panels = _panels(record, 4, 3.2)
    for ax, name in panels:
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
    what = ": kappa against a threshold on the judge score (faint: fold thresholds)"
    return _save(fig, title + what + _not_applied(record), path)


def _scores(record: CalibrationRecord, title: str, path: Path) -> Path:
    fig, panels = _panels(record, 4, 3.2)
    for ax, name in panels:
        x, y = _scope_data(record, name)
        bins = np.linspace(min(0.0, x.min(initial=0)), max(1.0, x.max(initial=1)), 21)
        ax.hist(x[y == 1], bins=bins, alpha=0.6, color="C2", label=f"faithful (n={int(y.sum())})")
        unfaithful = f"unfaithful (n={int((y == 0).sum())})"
        ax.hist(x[y == 0], bins=bins, alpha=0.6, color="C3", label=unfaithful)
        ax.axvline(record.scopes[name].threshold, color="black", ls="--", label="threshold")
        _label(ax, "judge score", "items", name)
    return _save(fig, title + ": judge scores by human label" + _not_applied(record), path)


def _not_applied(record: CalibrationRecord) -> str:
    """A second title line when the applied rule is not a threshold on the judge score."""
    rule = record.rule
    if rule.kind == "threshold" and rule.feature == "score":
        return ""
    return f"\n(the rule applied is another: {label(describe_rule(rule), 140)})"


def _label(ax, xlabel: str, ylabel: str, title: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(label(title), fontsize=9)
    ax.legend(fontsize=7)


def _save(fig: Figure, title: str, path: Path) -> Path:
    _suptitle(fig, title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path
