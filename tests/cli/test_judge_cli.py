"""``ragtriage judge`` end to end, replaying the embedded judge; errors exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from ragtriage.cli.main import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "judge"
SAMPLE = FIXTURES / "calibration_sample20.jsonl"
REPLAY = f"replay:{FIXTURES / 'embedded_calibration_recording.jsonl'}"


def test_judge_command_then_rerun_costs_zero_calls(tmp_path, capsys):
    out, cache = tmp_path / "judged.json", tmp_path / "c.sqlite"
    args = [
        "judge",
        "--answers",
        str(SAMPLE),
        "--judge",
        REPLAY,
        "--cache",
        str(cache),
        "--output",
        str(out),
        "--all-signals",
    ]
    assert main(args) == 0
    first = json.loads(out.read_text())
    assert len(first["results"]) == 20 and first["usage"]["calls"] > 0
    assert first["fingerprint"]["judge"] == "sentences"
    assert main(args) == 0
    second = json.loads(out.read_text())
    assert second["usage"]["calls"] == 0
    assert second["usage"]["cached_calls"] == first["usage"]["calls"]
    assert [r["score"] for r in second["results"]] == [r["score"] for r in first["results"]]
    assert "calls 0," in capsys.readouterr().out


def test_dry_run_estimates_and_calls_nothing(tmp_path, capsys):
    args = [
        "judge",
        "--answers",
        str(SAMPLE),
        "--judge",
        REPLAY,
        "--no-cache",
        "--dry-run",
        "--output",
        str(tmp_path / "est.json"),
        "--all-signals",
    ]
    assert main(args) == 0
    estimate = json.loads((tmp_path / "est.json").read_text())
    assert estimate["items"] == 20 and estimate["calls"] > 20
    assert estimate["prompt_tokens"] > 1000 and estimate["cost_usd"] == 0.0


def test_a_rule_reading_no_model_signal_calls_no_model(tmp_path, capsys):
    """The shipped rule of the embedded judge reads only model-free signals: ``judge``
    then computes them without the model, as ``audit`` does, and says so; the dry run
    counts no call, and ``--all-signals`` pays for the model's signals."""
    out = tmp_path / "judged.json"
    args = ["judge", "--answers", str(SAMPLE), "--judge", REPLAY, "--no-cache", "-o", str(out)]
    assert main(args) == 0
    printed = " ".join(capsys.readouterr().out.split())
    free = json.loads(out.read_text())
    assert free["usage"]["calls"] == 0 and free["fingerprint"]["judge"] == "lexical"
    assert "signals: model-free only" in printed and "was not called" in printed
    assert free["signals"].startswith("signals: model-free only")
    assert main([*args, "--dry-run"]) == 0
    assert json.loads(out.read_text())["calls"] == 0
    assert main([*args, "--all-signals"]) == 0
    full = json.loads(out.read_text())
    assert full["usage"]["calls"] > 20 and full["fingerprint"]["judge"] == "sentences"
    assert "signals: all" in capsys.readouterr().out
    # the model-free signals are the same either way: the rule decides alike
    for a, b in zip(free["results"], full["results"], strict=True):
        for name in ("fact_check", "min_sentence_lexical", "lexical"):
            assert a["signals"].get(name) == b["signals"].get(name)


def test_dry_run_prices_a_hosted_model(tmp_path):
    args = [
        "judge",
        "--answers",
        str(SAMPLE),
        "--judge",
        "openai/gpt-4o-mini",
        "--no-cache",
        "--dry-run",
        "--output",
        str(tmp_path / "est.json"),
        "--quiet",
    ]
    assert main(args) == 0
    estimate = json.loads((tmp_path / "est.json").read_text())
    assert estimate["calls"] == 20  # claims strategy: one call per answer
    assert 0 < estimate["cost_usd"] < 1


def test_lexical_jsonl_output(tmp_path):
    out = tmp_path / "lex.jsonl"
    assert (
        main(
            [
                "judge",
                "--answers",
                str(SAMPLE),
                "--judge",
                "lexical",
                "--no-cache",
                "-o",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 20 and all(r["outcome"] == "scored" for r in rows)


def test_bad_input_exits_2_naming_line_and_field(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "a", "question": "q", "contexts": ["x"], "answer": "y"}\n'
        '{"id": "b", "question": "q", "contexts": "x", "answer": "y"}\n'
    )
    assert main(["judge", "--answers", str(bad), "--judge", "lexical", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2" in err and "contexts" in err


def test_dry_run_counts_every_sample(tmp_path):
    """--samples K: the most calls are K times one sample's, the fewest a majority's."""
    counted = []
    for k in (1, 5):
        est = tmp_path / f"est{k}.json"
        args = ["judge", "--answers", str(SAMPLE), "--judge", REPLAY, "--no-cache"]
        args += ["--dry-run", "--all-signals", "--samples", str(k), "-o", str(est), "--quiet"]
        args += ["--temperature", "0.7"] if k > 1 else []
        assert main(args) == 0
        counted.append(json.loads(est.read_text()))
    one, five = counted
    assert five["calls"] == 5 * one["calls"] and five["calls_fewest"] == 3 * one["calls"]
    assert five["prompt_tokens"] == 5 * one["prompt_tokens"] and five["samples"] == 5
    assert "up to 5 samples" in five["note"]


def test_samples_of_the_embedded_model_at_temperature_0_are_refused(tmp_path, capsys):
    args = ["judge", "--answers", str(SAMPLE), "--all-signals", "--samples", "3", "--dry-run"]
    assert main(args) == 2
    assert "temperature above 0" in capsys.readouterr().err
