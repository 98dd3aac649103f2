"""The record says when the audit's answers are unlike the answers it was graded on."""

from __future__ import annotations

import numpy as np

from ragtriage.calibration.fit_check import grade_shape, misfit
from ragtriage.calibration.record import load_calibration
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from tests.conftest import ROOT


def _rows(n: int, seed: int = 0, words: float = 50.0, cites: float = 1.0):
    rng = np.random.default_rng(seed)
    return [
        {
            "answer_words": float(rng.normal(words, 5)),
            "answer_sentences": 4.0,
            "paraphrase_share": 0.5,
            "context_chars": 2000.0,
            "cites": cites,
        }
        for _ in range(n)
    ]


def test_answers_like_the_graded_ones_fit():
    assert misfit(grade_shape(_rows(200)), _rows(50, seed=1)) == []


def test_longer_answers_and_no_citations_are_named_with_what_to_do():
    found = misfit(grade_shape(_rows(200)), _rows(50, seed=1, words=200.0, cites=0.0))
    assert len(found) == 2
    assert "answers are 4.0x the graded answers' (answer_words median 200 vs 50" in found[0]
    assert "0 % of your answers cite passages, 100 % of the graded ones" in found[0]
    assert found[1].startswith("Grade 40 of them with `ragtriage annotate grades --audit")


def test_the_shipped_record_does_not_fit_long_uncited_answers():
    """Conversational answers by large LLMs: several hundred words, no citations."""
    record = load_calibration(ROOT / "calibrations/lexical.json")
    assert record.grade_shape is not None and record.grade_shape.features["answer_words"].n == 300
    chat = _rows(100, words=400.0, cites=0.0)
    found = misfit(record.grade_shape, chat)
    assert "answer_words median" in found[0] and "cite passages" in found[0]


def test_the_warning_is_on_the_first_screen_of_every_report(tmp_path):
    from ragtriage.render.html import render_html
    from ragtriage.render.markdown import render_markdown

    result = audit_flow.run(
        AuditConfig(
            golden=ROOT / "golden_sets/handbook", generator="extractive", judge="lexical",
            cache=tmp_path / "c.sqlite",
        )
    )  # fmt: skip
    # extractive answers cite nothing; 64 % of the shipped grades cite
    assert result.calibration.misfit and "cite passages" in result.calibration.misfit[0]
    head = render_markdown(result).split("| label | cases |")[0]
    assert "THE CALIBRATION DOES NOT FIT THESE ANSWERS" in head and "annotate grades" in head
    html = render_html(result)
    assert html.index("THE CALIBRATION DOES NOT FIT") < html.index("<table")
