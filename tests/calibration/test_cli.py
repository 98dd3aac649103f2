import json
from pathlib import Path

import pytest

from ragtriage.calibration import load_calibration
from ragtriage.cli.main import main
from ragtriage.judge.judge import Judge

from .conftest import FINGERPRINT, synthetic, write_jsonl

ROOT = Path(__file__).resolve().parents[2]


def test_lexical_on_the_shipped_grades(tmp_path, capsys):
    code = main(
        [
            "calibrate",
            str(ROOT / "human_grades"),
            "--judge",
            "lexical",
            "--out",
            str(tmp_path),
            "--resamples",
            "200",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    for text in (
        "pooled",
        "expertqa",
        "begin_wow",
        "kappa CV",
        "PPI rate",
        "decision rule",
        "took",
    ):
        assert text in out
    record = load_calibration(tmp_path / "lexical" / "calibration.json")
    assert record.fingerprint.judge == "lexical"
    assert {s.n_items for s in record.scopes.values()} == {300, 200, 100}
    assert 0.2 < record.scopes["pooled"].cv.kappa < 0.45  # measured 0.33
    assert record.scopes["begin_wow"].cv.kappa > 0.5  # measured 0.68
    for png in ("confusion.png", "kappa_threshold.png", "score_distribution.png"):
        assert (tmp_path / "lexical" / png).read_bytes()[:4] == b"\x89PNG"


def test_recorded_results_audit_and_comparison(synthetic_files, tmp_path, capsys):
    grades, judged, _ = synthetic_files
    _, audit = synthetic(n=300, seed=4, unscored=0)
    audit_path = write_jsonl(tmp_path / "audit.jsonl", audit)
    code = main(
        [
            "calibrate",
            str(grades),
            "--judged",
            str(judged),
            "--judge",
            "lexical",
            "--out",
            str(tmp_path / "out"),
            "--resamples",
            "200",
            "--no-plots",
            "--audit",
            str(audit_path),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "judges ranked by cross-validated kappa" in out
    assert "audit faithful rate: naive" in out
    assert "not scored" in out and "s119 (missing)" in out
    record = load_calibration(tmp_path / "out" / "judged" / "calibration.json")
    assert record.fingerprint == FINGERPRINT
    assert record.cost.seconds_per_item is None  # recorded, not run
    assert not list((tmp_path / "out" / "judged").glob("*.png"))


def test_recorded_results_of_the_same_fingerprint_are_reused(
    synthetic_files, tmp_path, monkeypatch, capsys
):
    from ragtriage.calibration import judges

    grades, judged, results = synthetic_files
    default = Judge.from_spec(None).fingerprint  # the default judge's, as it records it
    recorded = [r.model_copy(update={"fingerprint": default}) for r in results]
    write_jsonl(grades / "_judged" / "synthetic.jsonl", recorded)
    monkeypatch.setattr(judges, "_api", lambda: pytest.fail("the judge must not run"))
    code = main(
        ["calibrate", str(grades), "--out", str(tmp_path / "o"), "--no-plots", "--resamples", "200"]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "results: recorded" in out


def test_require_beats_lexical_gate(tmp_path, capsys):
    rows, results = synthetic(n=90, seed=2, noise=5.0)  # a judge that is noise
    rows = [dict(r, answer=("the sky is blue" if r["label"] else "a cat sat")) for r in rows]
    grades = write_jsonl(tmp_path / "g" / "d" / "grades.jsonl", rows).parent.parent
    judged = write_jsonl(
        tmp_path / "noise.jsonl",
        [
            r.model_copy(
                update={
                    "signals": {
                        **r.signals,
                        "lexical": float(next(x for x in rows if x["id"] == r.item_id)["label"]),
                    }
                }
            )
            for r in results
        ],
    )
    code = main(
        [
            "calibrate",
            str(grades),
            "--judged",
            str(judged),
            "--out",
            str(tmp_path / "o"),
            "--no-plots",
            "--resamples",
            "100",
            "--require-beats-lexical",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "does not beat the lexical baseline" in out


def test_bad_recorded_file_is_an_input_error(synthetic_files, tmp_path, capsys):
    grades, judged, _ = synthetic_files
    lines = judged.read_text().splitlines()
    bad = json.loads(lines[5])
    bad["outcome"] = "great"
    lines[5] = json.dumps(bad)
    judged.write_text("\n".join(lines) + "\n")
    code = main(["calibrate", str(grades), "--judged", str(judged), "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{judged}:6: field 'outcome'" in err


def test_missing_grades_is_an_input_error(tmp_path, capsys):
    assert main(["calibrate", str(tmp_path / "nope"), "--judge", "lexical"]) == 2
    assert "no such grade file" in capsys.readouterr().err


def test_recorded_results_from_an_older_judge_are_flagged_stale(tmp_path, capsys):
    from ragtriage.calibration.grades import load_grades
    from ragtriage.calibration.judges import run_judge

    items = load_grades(ROOT / "human_grades" / "begin_wow")
    results, _, _ = run_judge("lexical", [i.judge_item() for i in items])
    old = results[0].fingerprint.model_copy(update={"params": {"min_words": 2}})
    judged = write_jsonl(
        tmp_path / "old_lexical.jsonl", [r.model_copy(update={"fingerprint": old}) for r in results]
    )
    code = main(
        [
            "calibrate",
            str(ROOT / "human_grades" / "begin_wow"),
            "--judged",
            str(judged),
            "--out",
            str(tmp_path / "o"),
            "--no-plots",
            "--resamples",
            "100",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "STALE" in out and "params.min_words" in out
    record = load_calibration(tmp_path / "o" / "old_lexical" / "calibration.json")
    assert any(w.code == "stale_calibration" for w in record.warnings)


def test_hostile_dataset_names_and_ids_are_text_in_tables_and_plots(tmp_path, capsys):
    # a TeX-like dataset name crashed the plots (mathtext), a "[/bold]" one the terminal
    rows = [json.loads(x) for x in (ROOT / "human_grades" / "begin_wow" / "grades.jsonl").open()]
    grades = tmp_path / "grades" / "hostile" / "grades.jsonl"
    grades.parent.mkdir(parents=True)
    for i, row in enumerate(rows[:60]):
        row["dataset"] = "$\\frac{1$" if i % 2 else "bw[/bold]\x1b[2J"
        row["id"] = f"id[/bold]{i}"
    rows[0]["answer"] = ""  # an item the judge cannot score, listed by its id
    write_jsonl(grades, rows[:60])
    out_dir = tmp_path / "out"
    args = ["calibrate", str(tmp_path / "grades"), "--judge", "lexical", "--out", str(out_dir)]
    code = main([*args, "--resamples", "100"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "bw[/bold]" in out and "\x1b" not in out
    for png in ("confusion.png", "kappa_threshold.png", "score_distribution.png"):
        assert (out_dir / "lexical" / png).read_bytes()[:4] == b"\x89PNG"
