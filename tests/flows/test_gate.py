"""``ragtriage gate``: every exit code, every metric family, stale refusal."""

from __future__ import annotations

import pytest

from ragtriage.cli.main import main
from ragtriage.results.files import write_json
from ragtriage.results.gate import Bar, BarCheck, metric_value, parse_bars
from tests.support.audits import BASE_RANKS, make_audit, with_leaks

BETTER = {q: 1 if r is not None else 2 for q, r in BASE_RANKS.items()}


@pytest.fixture
def files(tmp_path, audit):
    """base audit (recall@5 0.8, pass_rate 4/9, 1 generation failure), a better audit,
    a stale one, and the base's retrieval report."""
    paths = {name: tmp_path / f"{name}.json" for name in ("base", "better", "stale", "report")}
    write_json(paths["base"], audit)
    write_json(paths["better"], make_audit(BETTER))
    write_json(paths["stale"], make_audit(stale=["model", "prompt_sha256"]))
    write_json(paths["report"], audit.retrieval)
    return {name: str(path) for name, path in paths.items()}


def gate(*args: str) -> int:
    return main(["gate", *args])


def test_all_bars_hold_exit_0(files, capsys):
    code = gate(
        files["base"],
        "--min",
        "recall@5=0.75",
        "--min",
        "pass_rate=0.4",
        "--max",
        "failures.generation=1,unscored=1",
        "--min",
        "faithful_rate=0.7",
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "ok: recall@5 = 0.8000, min 0.7500" in out and "gate passed: 5 bars hold" in out


def test_missed_bars_exit_1_and_each_miss_is_printed(files, capsys):
    code = gate(
        files["base"],
        "--min",
        "recall@5=0.85",
        "--max",
        "failures.generation=0",
        "--min",
        "mrr=0.1",
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "MISSED: recall@5 = 0.8000, min 0.8500" in out
    assert "MISSED: failures.generation = 1, max 0" in out
    assert "ok: mrr" in out and "2 of 3 bars missed" in out


def test_max_drop_against_a_baseline(files, capsys):
    # base vs better: recall@1 0.4 vs 0.8, failures.retrieval 2 vs 0.
    assert gate(files["better"], "--baseline", files["base"], "--max-drop", "recall@1=0") == 0
    assert gate(files["base"], "--baseline", files["better"], "--max-drop", "recall@1=0.39") == 1
    assert gate(files["base"], "--baseline", files["better"], "--max-drop", "recall@1=0.4") == 0
    assert (
        gate(files["base"], "--baseline", files["better"], "--max-drop", "failures.retrieval=1")
        == 1
    )  # counts: a rise is the drop
    out = capsys.readouterr().out
    assert "MISSED: failures.retrieval = 2 vs baseline 0: worse by 2, max drop 1" in out
    gate(files["better"], "--baseline", files["base"], "--max-drop", "failures.retrieval=0")
    assert (
        "failures.retrieval = 0 vs baseline 2: better by 2, max drop 0" in capsys.readouterr().out
    )
    gate(files["base"], "--baseline", files["base"], "--max-drop", "failures.retrieval=0")
    assert "vs baseline 2: unchanged" in capsys.readouterr().out  # was "worse by -0"


def test_gate_a_retrieval_only_result(files, capsys):
    assert gate(files["report"], "--min", "recall@5=0.75,mrr=0.5") == 0
    assert gate(files["report"], "--min", "ndcg@10=0.9") == 1
    assert gate(files["report"], "--min", "pass_rate=0.5") == 2
    assert "needs an audit or conversations result" in capsys.readouterr().err


def test_stale_calibration_is_refused_unless_allowed(files, capsys):
    assert gate(files["stale"], "--min", "recall@5=0.5") == 1
    out = capsys.readouterr().out
    assert "STALE calibration" in out and "model, prompt_sha256" in out
    assert "refusing to pass" in out and "ok: recall@5" in out
    assert gate(files["stale"], "--min", "recall@5=0.5", "--allow-stale") == 0
    out = capsys.readouterr().out
    assert "gating anyway (--allow-stale)" in out
    # the pass line must not call the calibration it just let through current
    assert "gate passed: 1 bar holds; no leak; stale calibration allowed" in out
    assert "calibration not stale" not in out
    assert gate(files["stale"], "--min", "recall@5=0.9", "--allow-stale") == 1


@pytest.mark.parametrize(
    "args",
    [
        ["--min", "recall@5"],  # no value
        ["--min", "recall@5=high"],
        ["--min", "=0.5"],
        ["--min", "recall@5=nan"],
        ["--max-drop", "recall@5=-0.1", "--baseline", "BASE"],
        ["--min", "recall@50=0.5"],  # not computed
        ["--min", "nonsense=1"],
        ["--max-drop", "recall@5=0.02"],  # no baseline
    ],
)
def test_unusable_arguments_exit_2(files, capsys, args):
    args = [files["base"] if a == "BASE" else a for a in args]
    assert gate(files["base"], *args) == 2
    assert "error" in capsys.readouterr().err


def test_unusable_files_exit_2(files, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    assert gate(str(tmp_path / "missing.json"), "--min", "mrr=0.1") == 2
    assert gate(str(bad), "--min", "mrr=0.1") == 2
    assert gate(files["base"], "--baseline", str(bad), "--max-drop", "mrr=0.1") == 2
    err = capsys.readouterr().err
    assert "missing.json: file not found" in err and "bad.json:1: invalid JSON" in err


def test_audit_metric_definitions(audit):
    assert metric_value(audit, "pass_rate") == pytest.approx(4 / 9)  # unscored excluded
    assert metric_value(audit, "faithful_rate") == 0.75  # corrected when present
    assert (
        metric_value(audit, "faithful_rate.naive") == 8 / 9
    )  # 8 of the 9 decided answers faithful
    assert metric_value(audit, "failures") == 5
    assert (metric_value(audit, "failures.ranking"), metric_value(audit, "unscored")) == (2, 1)
    assert metric_value(audit, "recall@5") == audit.retrieval.aggregate("recall@5").mean


def test_bars_parse_and_tolerate_rounding():
    bars = parse_bars(["recall@5=0.75,mrr=0.5", " pass_rate = 0.8 "], "min")
    assert bars == [
        Bar("min", "recall@5", 0.75),
        Bar("min", "mrr", 0.5),
        Bar("min", "pass_rate", 0.8),
    ]
    assert BarCheck(Bar("max-drop", "mrr", 0.02), value=0.78, baseline=0.80).ok
    assert not BarCheck(Bar("max-drop", "mrr", 0.02), value=0.7799, baseline=0.80).ok


def test_any_leak_fails_the_gate_and_is_listed(audit, tmp_path, capsys):
    leaky, clean = tmp_path / "leaky.json", tmp_path / "clean.json"
    write_json(leaky, with_leaks(audit, [("q01", "tenant-b-doc", 2)]))
    write_json(clean, with_leaks(audit, []))
    assert gate(str(leaky), "--min", "recall@5=0.5") == 1
    out = capsys.readouterr().out
    assert "LEAKS: 1 forbidden chunk in a top k" in out and "q01: tenant-b-doc at rank 2" in out
    assert gate(str(clean), "--max", "leaks=0") == 0
    assert gate(str(leaky), "--max", "leaks=1", "--allow-stale") == 1  # no opt-out
    assert gate(str(tmp_path / "clean.json"), "--min", "recall@5=0.5") == 0
    write_json(tmp_path / "unchecked.json", audit)
    assert gate(str(tmp_path / "unchecked.json"), "--max", "leaks=0") == 2
    assert "no leak check" in capsys.readouterr().err


def test_an_uncalibrated_audit_passes_with_a_warning(audit, tmp_path, capsys):
    from ragtriage.triage.models import CalibrationStatus

    path = tmp_path / "uncalibrated.json"
    write_json(path, audit.model_copy(update={"calibration": CalibrationStatus(threshold=0.5)}))
    assert gate(str(path), "--min", "recall@5=0.5") == 0
    assert "warning: the audit's judge had no calibration record" in capsys.readouterr().out
    write_json(path, audit)
    assert gate(str(path), "--min", "recall@5=0.5") == 0
    assert "no calibration record" not in capsys.readouterr().out


def test_plain_gate_with_no_bars_still_checks_leaks_and_staleness(audit, files, tmp_path, capsys):
    """``gate results.json`` alone: the demo's leak (hb-15 'pass') failed only when some
    bar was given; now the policy checks run with none (issue 27, item 6)."""
    leaky = tmp_path / "leaky.json"
    write_json(leaky, with_leaks(audit, [("q01", "tenant-b-doc", 2)]))
    assert gate(str(leaky)) == 1
    out = capsys.readouterr().out
    assert "no bars given" in out and "LEAKS: 1 forbidden chunk in a top k" in out
    assert "gate FAILED: forbidden chunks retrieved" in out
    assert gate(files["stale"]) == 1
    assert "STALE calibration" in capsys.readouterr().out
    assert gate(files["stale"], "--allow-stale") == 0
    assert gate(files["base"]) == 0
    assert "gate passed: no bars; no leak; calibration not stale" in capsys.readouterr().out
