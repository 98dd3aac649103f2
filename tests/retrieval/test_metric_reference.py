"""The metric declarations: what the parser reads follows them, and the reference page
(docs/reference/metrics.md, written by scripts/make_reference.py and checked with the other
reference pages by tests/test_reference_docs.py) names every metric and spelling."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ragtriage.errors import InputError
from ragtriage.retrieval import _declare
from ragtriage.retrieval.metrics import ALIASES, CUT_NAMES, REGISTRY, parse_measure

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location(
        "make_reference", ROOT / "scripts" / "make_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_page_names_every_metric_spelling_and_trec_name():
    text = _script().metrics_page()
    for spec in REGISTRY.values():
        assert f"## {spec.name}\n" in text and spec.formula in text
        assert spec.trec is None or f"`{spec.trec}`" in text
        assert spec.trec_uncut is None or f"`{spec.trec_uncut}` without k" in text
    for alias in ALIASES:
        assert f"`{alias}`" in text


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_parser_follows_the_declared_cutoff(name):
    spec = REGISTRY[name]
    cut = spec.param("cutoff")
    if cut is None:
        with pytest.raises(InputError, match="takes no cutoff"):
            parse_measure(f"{name}@10")
    else:
        assert parse_measure(f"{name}@10").k == 10
    if cut is not None and cut.required:
        with pytest.raises(InputError, match="needs a cutoff"):
            parse_measure(name)
    else:
        assert parse_measure(name).k is None


def test_every_declaration_is_complete():
    for spec in REGISTRY.values():
        assert spec.title and spec.formula and spec.params and spec.notes, spec.name
        assert all(
            p.description and p.set_by in ("name", "evaluation", "metric") for p in spec.params
        )
        assert spec.cutoff == ("none" if spec.param("cutoff") is None else spec.cutoff)
    assert {"ndcg_cut", "map_cut"} == CUT_NAMES
    assert {ALIASES[c] for c in CUT_NAMES} == {"ndcg", "map"}


def test_a_spelling_names_one_metric():
    def fn(batch, k):
        return np.zeros(0)

    with pytest.raises(ValueError, match="already registered"):
        _declare.metric("p_again", title="t", formula="f", trec=None, params=(), aliases=("p",))(fn)
    assert "p_again" not in REGISTRY
