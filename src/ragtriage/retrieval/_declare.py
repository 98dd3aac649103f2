"""How a metric is declared: its name, typed parameters, formula and trec_eval name in one
object, as ir_measures declares its measures (``SUPPORTED_PARAMS``, ``ParamInfo``).

:mod:`ragtriage.retrieval.metrics` registers each metric function with :func:`metric`;
the parser, the cutoff expansion and the reference page (``docs/reference/metrics.md``)
all read these declarations, so a spelling, a parameter or a formula is written once.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ragtriage.retrieval.ranking import RankedBatch

MetricFn = Callable[[RankedBatch, int | None], np.ndarray]
# where a parameter's value comes from: the metric's text (``ndcg@10``), the evaluation's
# options (one relevance level for every metric, as trec_eval's ``-l``), or the metric
# itself (``ndcg`` and ``ndcg_exp`` are two metrics, not one with a gain option)
SetBy = Literal["name", "evaluation", "metric"]


@dataclass(frozen=True)
class Param:
    """One typed parameter of a metric: its type, default and meaning."""

    name: str
    dtype: type
    default: object
    description: str
    set_by: SetBy
    required: bool = False

    @property
    def written(self) -> str:
        """How a user gives it, in words (for the reference page)."""
        return _WRITTEN[self.set_by]


_WRITTEN = {
    "name": "in the name: `@k` (also trec_eval's `_k` and `.k`)",
    "evaluation": "`relevance_level=` / `--relevance-level`, one for all metrics",
    "metric": "fixed by the metric",
}


@dataclass(frozen=True)
class MetricSpec:
    """A registered metric: the function and everything said about it.

    ``formula`` is the definition in the notation of the reference page; ``trec`` the
    trec_eval measure it equals per query (``None`` when trec_eval has none);
    ``trec_uncut`` the measure it equals without a cutoff, where that has another name
    (``ndcg`` for ``ndcg_cut_k``); ``aliases`` the other spellings the parser accepts;
    ``cut_names`` trec_eval's cut measures (``ndcg_cut``), which, bare, mean a list of
    cutoffs, never the uncut metric.
    """

    name: str
    fn: MetricFn
    title: str
    formula: str
    trec: str | None
    params: tuple[Param, ...]
    aliases: tuple[str, ...] = ()
    cut_names: tuple[str, ...] = ()
    equals: str = ""  # what else it equals, where trec_eval has no such measure
    trec_uncut: str | None = None

    @property
    def cutoff(self) -> str:
        """``"required"``, ``"optional"`` or ``"none"``: whether ``@k`` must, may or cannot
        be given."""
        param = self.param("cutoff")
        if param is None:
            return "none"
        return "required" if param.required else "optional"

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    @property
    def notes(self) -> str:
        """The function's docstring: why it is computed the way it is."""
        return inspect.cleandoc(self.fn.__doc__ or "")


REGISTRY: dict[str, MetricSpec] = {}


def metric(name: str, **declared: Any) -> Callable[[MetricFn], MetricFn]:
    """Register the decorated function under ``name`` with its declaration (the fields of
    :class:`MetricSpec` after ``fn``, by keyword)."""

    def register(fn: MetricFn) -> MetricFn:
        spec = MetricSpec(name, fn, **declared)
        taken = set(REGISTRY) | {a for s in REGISTRY.values() for a in s.aliases + s.cut_names}
        clash = taken & {name, *spec.aliases, *spec.cut_names}
        if clash:  # a spelling must name one metric
            raise ValueError(f"metric {name!r}: {sorted(clash)} already registered")
        REGISTRY[name] = spec
        return fn

    return register


def aliases() -> dict[str, str]:
    """Every other spelling (lower case) -> the registered name."""
    return {a: s.name for s in REGISTRY.values() for a in (*s.aliases, *s.cut_names)}


def cut_names() -> frozenset[str]:
    return frozenset(n for s in REGISTRY.values() for n in s.cut_names)
