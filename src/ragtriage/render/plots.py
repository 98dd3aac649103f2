"""The HTML report's figures: small deterministic PNGs, returned as bytes.

Figures are built on ``matplotlib.figure.Figure`` with the Agg canvas, never pyplot, so
rendering a report changes no global backend or state and is safe in a thread. PNG
metadata is dropped so the same result gives the same bytes. Labels from the data are
cleaned and their ``$`` escaped: matplotlib would otherwise parse them as mathtext.
"""

from __future__ import annotations

import io
from collections import Counter

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ragtriage.render.text import clean
from ragtriage.results.run import AuditResult
from ragtriage.retrieval.models import RetrievalReport, ThresholdAnalysis
from ragtriage.triage.models import FAILURES

__all__ = [
    "COLOURS",
    "DPI",
    "MAX_TAGS",
    "failure_breakdown",
    "label",
    "metric_bars",
    "score_distributions",
]

DPI = 90
MAX_TAGS = 12
COLOURS = {"retrieval": "#d62728", "ranking": "#ff7f0e", "generation": "#9467bd"}


def label(text: object, limit: int = 28) -> str:
    """Untrusted text as a safe matplotlib label (no controls, no mathtext)."""
    return clean(text, limit).replace("$", r"\$")


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def metric_bars(report: RetrievalReport) -> bytes | None:
    """Mean of every retrieval metric with its 95% bootstrap interval as an error bar."""
    # mean, low and high are null together (no answerable query)
    aggs = [
        (a.metric, a.mean, a.low, a.high)
        for a in report.aggregates
        if a.mean is not None and a.low is not None and a.high is not None
    ]
    if not aggs:
        return None
    fig = _figure(max(4.0, 0.5 * len(aggs) + 1.5), 3.2)
    ax = fig.subplots()
    means = [mean for _, mean, _, _ in aggs]
    errors = [
        [max(mean - low, 0.0) for _, mean, low, _ in aggs],
        [max(high - mean, 0.0) for _, mean, _, high in aggs],
    ]
    ax.bar(range(len(aggs)), means, yerr=errors, capsize=3, color="#1f77b4")
    ax.set_xticks(range(len(aggs)), [label(m) for m, _, _, _ in aggs], rotation=45, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("mean (95% CI)")
    ax.set_title(f"Retrieval metrics over {report.n_answerable} answerable queries", fontsize=9)
    return _png(fig)


def score_distributions(threshold: ThresholdAnalysis | None) -> bytes | None:
    """Relevant vs non-relevant retrieval scores with the best cut-off: histograms when the
    report carries ``score_samples``, else each group's p10-p90 range, median and mean."""
    if threshold is None or not (threshold.relevant.n or threshold.non_relevant.n):
        return None
    fig = _figure(6.0, 3.0)
    ax = fig.subplots()
    groups = [
        ("relevant", threshold.relevant, "#2ca02c"),
        ("non_relevant", threshold.non_relevant, "#d62728"),
    ]
    samples = threshold.score_samples or {}
    if any(samples.get(name) for name, _, _ in groups):
        for name, summary, colour in groups:
            ax.hist(
                samples.get(name) or [],
                bins=30,
                alpha=0.55,
                color=colour,
                label=f"{name.replace('_', '-')} (n={summary.n})",
            )
        ax.set_ylabel("results")
    else:
        for y, (_, summary, colour) in enumerate(groups):
            p10, p90, median, mean = summary.p10, summary.p90, summary.median, summary.mean
            # the four are null together (no scores)
            if summary.n and p10 is not None and p90 is not None:
                assert median is not None and mean is not None
                ax.plot([p10, p90], [y, y], color=colour, lw=6, alpha=0.5)
                ax.plot([median], [y], "|", color="black", ms=18)
                ax.plot([mean], [y], "o", color=colour)
        ax.set_yticks([0, 1], [f"{n.replace('_', '-')} (n={s.n})" for n, s, _ in groups])
        ax.set_ylim(-0.7, 1.7)
        ax.plot([], [], color="grey", lw=6, alpha=0.5, label="p10 to p90")
        ax.plot([], [], "|", color="black", ms=12, label="median")
        ax.plot([], [], "o", color="grey", label="mean")
    if threshold.best_threshold is not None:
        ax.axvline(
            threshold.best_threshold,
            color="black",
            ls="--",
            label=f"cut-off {threshold.best_threshold:.4g}",
        )
    ax.set_xlabel(f"retrieval score (top {threshold.depth})")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _png(fig)


def failure_breakdown(result: AuditResult) -> bytes | None:
    """Failing cases per tag, stacked by stage (the tags with most failures first)."""
    per_tag: dict[str, Counter] = {}
    for case in result.cases:
        if case.label not in FAILURES:
            continue
        for tag in case.tags or ["(untagged)"]:
            per_tag.setdefault(tag, Counter())[case.label.value] += 1
    if not per_tag:
        return None
    tags = sorted(per_tag, key=lambda t: (-sum(per_tag[t].values()), t))[:MAX_TAGS][::-1]
    fig = _figure(6.0, 0.35 * len(tags) + 1.4)
    ax = fig.subplots()
    left = [0] * len(tags)
    for stage in FAILURES:
        widths = [per_tag[t][stage.value] for t in tags]
        ax.barh(range(len(tags)), widths, left=left, color=COLOURS[stage.value], label=stage.value)
        left = [a + w for a, w in zip(left, widths, strict=True)]
    ax.set_yticks(range(len(tags)), [label(t, 32) for t in tags])
    ax.set_xlabel("failing cases")
    locator = ax.xaxis.get_major_locator()
    assert isinstance(locator, MaxNLocator)  # a linear axis' default AutoLocator
    locator.set_params(integer=True)
    ax.set_title(f"Failures by tag and stage (top {len(tags)} tags)", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _png(fig)
