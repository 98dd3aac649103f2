"""The audit's dry run counts ``--samples K``: the first judge's calls and dollars are at
most K times its calibration record's cost per answer and at least the
``floor(K/2) + 1`` samples of an answer that agrees with itself; a judge whose rule reads
no model signal draws one sample, as the audit itself does."""

from __future__ import annotations

import pytest

from ragtriage.calibration.record import Cost, load_calibration
from ragtriage.flows.audit import AuditConfig, plan_calls
from ragtriage.render.terminal import print_call_plan
from tests.flows.test_escalation import SPEC, _second_record
from tests.flows.test_unsure_audit import _files

BASE = "http://127.0.0.1:9"  # never reached: a dry run sends nothing


def _priced_record(tmp_path):
    path = _second_record(tmp_path, BASE)
    record = load_calibration(path)
    record.cost = Cost(calls_per_item=2.0, usd_per_item=0.01)
    return record.save(tmp_path / "priced.json")


def _config(tmp_path, judge: str, calibration, samples: int) -> AuditConfig:
    golden, traces, _ = _files(tmp_path)
    return AuditConfig(
        golden=golden,
        traces=traces,
        judge=judge,
        calibration=calibration,
        api_base=BASE,
        cache=None,
        samples=samples,
        temperature=0.7 if samples > 1 else None,
    )


def test_k_samples_multiply_the_first_judges_calls_and_cost(tmp_path, capsys):
    from rich.console import Console

    record = _priced_record(tmp_path)
    [one] = plan_calls(_config(tmp_path, SPEC, record, 1))
    [five] = plan_calls(_config(tmp_path, SPEC, record, 5))
    assert one.samples == 1 and one.calls == pytest.approx(3 * 2.0)
    assert five.samples == 5 and five.calls == pytest.approx(5 * one.calls)
    assert five.usd == pytest.approx(5 * one.usd)
    assert five.calls * five.fewest == pytest.approx(3 * one.calls)  # 3 of 5 agree
    print_call_plan([five], Console(width=200))
    out = capsys.readouterr().out
    assert "up to 5 samples an answer: at most 30 (at least 18, $0.0900)" in out
    assert "$0.1500" in out


def test_a_rule_without_model_signals_draws_one_sample(tmp_path):
    _, _, lexical = _files(tmp_path)
    [first] = plan_calls(_config(tmp_path, "lexical", lexical, 5))
    assert first.samples == 1


def test_a_model_judge_whose_rule_reads_no_model_signal_is_planned_at_no_call(tmp_path):
    """The shipped embedded record's rule reads only model-free signals: the audit judges
    without calling the model, so its dry run counts no call (it counted the record's
    1.26 calls an answer, times --samples)."""
    from tests.conftest import ROOT

    golden = ROOT / "golden_sets/handbook"
    for samples in (1, 3):
        config = AuditConfig(golden=golden, cache=None, samples=samples,
                             temperature=0.7 if samples > 1 else None)  # fmt: skip
        [first] = plan_calls(config)
        assert first.samples == 1 and first.calls == 0.0 and first.usd == 0.0
