"""Calibration of the embedded local judge from its recorded results on the shipped grades:
the figures the README quotes, reproduced in CI without a model."""

from pathlib import Path

import pytest

from ragtriage.calibration import load_calibration
from ragtriage.calibration.judges import read_judged
from ragtriage.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "judge" / "embedded_calibration_results.jsonl"
SHIPPED = ROOT / "human_grades" / "_judged" / "embedded_sentences.jsonl"


def test_shipped_recording_is_the_fixture():
    assert SHIPPED.read_bytes() == FIXTURE.read_bytes(), (
        f"re-recorded: copy {FIXTURE.relative_to(ROOT)} to {SHIPPED.relative_to(ROOT)}"
    )
    results = read_judged(SHIPPED)
    assert len({r.item_id for r in results}) == 300


def test_default_calibrate_is_offline_and_uses_the_recording(tmp_path, monkeypatch, capsys):
    """``ragtriage calibrate`` with no options: the embedded judge's fingerprint matches the
    recording, so no model runs. If this fails because the judge changed (prompt, params),
    re-record the fixture: the recording would be stale."""
    from ragtriage.judge import api

    monkeypatch.setattr(
        api,
        "judge_faithfulness",
        lambda *a, **k: pytest.fail(
            "the embedded judge ran: human_grades/_judged/ is stale for today's judge; re-record"
        ),
    )
    monkeypatch.chdir(ROOT)
    code = main(["calibrate", "--out", str(tmp_path), "--resamples", "300"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"results: recorded {Path('human_grades') / '_judged' / SHIPPED.name}" in out
    for text in ("pooled", "expertqa", "begin_wow", "PPI rate", "decision rule"):
        assert text in out
    record = load_calibration(next(tmp_path.glob("*/calibration.json")))
    assert record.fingerprint.judge == "sentences"
    assert {s.n_items for s in record.scopes.values()} == {300, 200, 100}
    assert record.scopes["pooled"].n_agreement + len(record.scopes["pooled"].unscored) == 300
    assert all(s.beats_lexical is not None for s in record.scopes.values())
    assert all(s.vs_lexical is not None for s in record.scopes.values())
    # measured 2026-12-01 with 2000 resamples (facts v4, shape-aware candidates): pooled,
    # the rule chosen by nested CV (model-free) is ahead of word
    # overlap, +0.18 [+0.04, +0.31]; on ExpertQA +0.23 [+0.02, +0.45]; on BEGIN, where
    # overlap is the rule anyway, within noise
    assert record.scopes["pooled"].beats_lexical
    assert not record.scopes["begin_wow"].beats_lexical
    assert record.scopes["expertqa"].vs_lexical[0] > 0.05
    # score threshold pooled 0.32, BEGIN 0.58, ExpertQA 0.24; nested-CV selection 0.50
    assert 0.2 < record.scopes["pooled"].cv.kappa < 0.45
    assert 0.4 < record.scopes["pooled"].selected.cv.kappa < 0.6
    # 2026-12-04 (issue 54): the smooth rule, chosen under the transfer criterion, over the
    # shape rules; every candidate carries the swap veto (a restated sentence failing the
    # fact check), not the whole fact check
    selection = record.scopes["pooled"].selection
    assert selection.chosen == "signals-logistic" and selection.runner_up is not None
    assert set(selection.transfer_kappa) == set(selection.candidates)
    assert 0.45 < record.scopes["begin_wow"].cv.kappa < 0.8
    assert selection.fact_veto
    assert record.rule.kind == "veto" and record.rule.veto == "swapped_facts"
    assert len(list(tmp_path.glob("*/*.png"))) == 3
