"""Other evaluators' verdicts as a judge (issue 51 item 1): the files ragas, DeepEval,
Phoenix and MLflow wrote themselves (tests/fixtures/verdicts/, with the scripts that
wrote them) calibrate against the shipped begin_wow grades through the same fit as our
own judge: kappa with its interval, the confusion (TPR/TNR), the threshold chosen inside
the cross-validation, the band, the corrected rate of the ungraded rest, staleness."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ragtriage.calibration import load_calibration
from ragtriage.calibration.foreign import TOOL_PASS, read_verdicts
from ragtriage.calibration.grades import load_grades
from ragtriage.cli.main import main
from ragtriage.errors import InputError
from ragtriage.flows.calibrate import calibrate

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "fixtures" / "verdicts"
GRADES = ROOT / "human_grades" / "begin_wow"

# file, grades, judge name, how the verdicts join the grades
FILES = [
    ("ragas_result.parquet", GRADES, "ragas:faithfulness", "question and answer text"),
    ("deepeval_test_run.json", GRADES, "deepeval:Faithfulness@offline-lexical-stand-in", "id"),
    ("phoenix_evaluations.jsonl", GRADES, "phoenix:hallucination", "question and answer text"),
    ("phoenix_annotations.parquet", HERE / "phoenix_grades.jsonl", "phoenix:hallucination", "id"),
    ("mlflow_results.jsonl", GRADES, "mlflow:faithfulness", "question and answer text"),
]


@pytest.fixture(scope="module")
def begin_items():
    return load_grades(GRADES)


@pytest.mark.parametrize(("name", "grades", "judge", "joined"), FILES)
def test_each_tools_verdicts_calibrate_with_intervals(name, grades, judge, joined):
    runs = calibrate(grades, verdicts=[HERE / name], resamples=300)
    run = next(r for r in runs if r.name == judge)
    assert any(f"100 by {joined}" in note.text for note in run.notes), run.notes
    assert {note.code for note in run.notes} == {"reader"}
    scope = run.record.scopes["begin_wow"]
    assert scope.n_agreement == 100
    cv = scope.selected.cv if scope.selected else scope.cv
    assert cv.kappa_low <= cv.kappa <= cv.kappa_high  # an interval, not a point
    assert 0.4 < cv.kappa < 0.8  # the offline stand-in is a lexical judge: 0.62 measured
    (uu, uf), (fu, ff) = cv.confusion
    assert uu + uf + fu + ff == 100 and uu + uf == 63  # 37 of 100 graded faithful
    assert len(scope.fold_thresholds) == 5  # the cut refitted inside each fold
    assert run.record.band is not None and scope.selective is not None
    assert scope.ppi is not None  # the PPI check on hidden grades
    fp = run.record.fingerprint
    assert fp.judge == judge.split("@")[0] and fp.params["tool"] == judge.split(":")[0]


def test_a_metric_scoring_what_is_wrong_is_turned_round(begin_items):
    (judge,) = read_verdicts(HERE / "phoenix_evaluations.jsonl", begin_items)
    assert judge.fingerprint.params["turned_round"] is True
    rows = [json.loads(line) for line in (HERE / "phoenix_evaluations.jsonl").open()]
    first = rows[0]["hallucination_score"]
    assert first["label"] == "hallucinated" and first["score"] == 1.0
    result = next(r for r in judge.results if r.item_id == "begin-wow-dev-00007")
    assert result.score == 0.0 and result.signals[TOOL_PASS] == 0.0


def test_every_metric_of_a_ragas_result_is_a_judge(begin_items):
    judges = read_verdicts(HERE / "ragas_result.parquet", begin_items)
    assert [j.fingerprint.judge for j in judges] == ["ragas:faithfulness", "ragas:answer_relevancy"]
    assert all(j.fingerprint.model == "unknown" for j in judges)
    assert "names no model or tool_version" in judges[0].notes[-1].text
    assert judges[0].notes[-1].severity == "warn"


def test_deepeval_fingerprint_names_model_and_threshold(begin_items):
    (judge,) = read_verdicts(HERE / "deepeval_test_run.json", begin_items)
    fp = judge.fingerprint
    assert fp.model == "offline-lexical-stand-in" and fp.params["threshold"] == 0.5
    assert {r.signals[TOOL_PASS] for r in judge.results} == {0.0, 1.0}  # success kept


def test_mlflow_fingerprint_names_the_scorer_digest(begin_items):
    (judge,) = read_verdicts(HERE / "mlflow_results.jsonl", begin_items)
    assert str(judge.fingerprint.params["scorer_digest"]).startswith("sha256:")


def test_verdicts_no_grade_names_get_the_corrected_rate(tmp_path, begin_items):
    half = tmp_path / "half.jsonl"
    lines = (GRADES / "grades.jsonl").read_text().splitlines()
    half.write_text("\n".join(lines[:60]) + "\n")
    runs = calibrate(half, verdicts=[HERE / "deepeval_test_run.json"], resamples=300)
    (run,) = runs
    assert run.audit_ppi is not None
    assert run.audit_ppi.n_unlabelled == 40 and run.audit_ppi.n_labelled > 0
    assert run.audit_ppi.low <= run.audit_ppi.estimate <= run.audit_ppi.high


def test_verdicts_of_another_model_are_flagged_stale(tmp_path):
    run_file = json.loads((HERE / "deepeval_test_run.json").read_text())
    for case in run_file["testCases"]:
        for metric in case["metricsData"]:
            metric["evaluationModel"] = "gpt-9"
    newer = tmp_path / "newer_run.json"
    newer.write_text(json.dumps(run_file))
    (run,) = calibrate(
        GRADES, verdicts=[HERE / "deepeval_test_run.json"], audit=newer, resamples=300
    )
    stale = [w for w in run.record.warnings if w.code == "stale_calibration"]
    assert stale and "model" in stale[0].text and stale[0].text.startswith("STALE")
    assert run.audit_ppi is not None and run.audit_ppi.n_unlabelled == 100


def test_cli_writes_a_record_per_metric(tmp_path, capsys):
    code = main(
        ["calibrate", str(GRADES), "--verdicts", str(HERE / "ragas_result.parquet"),
         "--out", str(tmp_path), "--resamples", "200", "--no-plots"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "joined to grades: 100 by question and answer text" in out
    record = load_calibration(tmp_path / "ragas_faithfulness" / "calibration.json")
    assert record.fingerprint.judge == "ragas:faithfulness"
    assert (tmp_path / "ragas_answer_relevancy" / "calibration.json").exists()


def test_a_bad_score_is_refused_naming_file_line_and_field(tmp_path, capsys):
    run_file = json.loads((HERE / "deepeval_test_run.json").read_text())
    run_file["testCases"][3]["metricsData"][0]["score"] = "high"
    bad = tmp_path / "bad_run.json"
    bad.write_text(json.dumps(run_file, indent=1))
    code = main(["calibrate", str(GRADES), "--verdicts", str(bad), "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{bad}:1: field 'testCases[3].metricsData[0].score'" in err
    assert len(err.strip().splitlines()) == 1


def test_a_file_without_verdicts_is_refused_saying_what_it_is(tmp_path):
    with pytest.raises(InputError, match="human grades file.*not verdicts"):
        read_verdicts(GRADES / "grades.jsonl")


HANDBOOK = ROOT / "golden_sets" / "handbook"
OURS_NOT_VERDICTS = [
    (HANDBOOK / "golden.jsonl", "this is a golden set, not verdicts: give it to audit --golden"),
    (ROOT / "tests" / "fixtures" / "headline" / "traces.jsonl",
     "this is a traces file, not verdicts: give it to audit --traces"),
    (HANDBOOK / "conversation_traces.jsonl",
     "this is a conversation traces file, not verdicts: give it to conversations --traces"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("wrong", "said"), OURS_NOT_VERDICTS, ids=["golden", "traces", "conversation_traces"]
)
def test_a_golden_set_or_traces_given_as_verdicts_is_named(wrong, said, tmp_path, capsys):
    """Read as "no evaluator's verdicts, not verdicts": only another tool's files were
    named (docs/judge-against-people.md promises a golden set is)."""
    code = main(["calibrate", str(GRADES), "--verdicts", str(wrong), "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"ragtriage: error: {wrong}: {said}"), err
    assert len(err.strip().splitlines()) == 1, err


def test_verdicts_naming_no_graded_answer_are_refused(begin_items, tmp_path):
    other = tmp_path / "other.json"
    data = json.loads((HERE / "deepeval_test_run.json").read_text())
    for case in data["testCases"]:
        case["name"], case["input"] = f"x-{case['name']}", "another question"
    other.write_text(json.dumps(data))
    with pytest.raises(InputError, match="no verdict names a graded answer"):
        read_verdicts(other, begin_items)


def test_a_nan_score_is_unscored_not_a_zero(tmp_path, begin_items):
    pd = pytest.importorskip("pandas")
    frame = pd.read_parquet(HERE / "ragas_result.parquet")
    frame.loc[0, "faithfulness"] = math.nan
    path = tmp_path / "nan.parquet"
    frame.to_parquet(path, index=False)
    judges = read_verdicts(path, begin_items)
    judge = next(j for j in judges if j.fingerprint.judge == "ragas:faithfulness")
    unscored = [r for r in judge.results if r.outcome == "unscored"]
    assert len(unscored) == 1 and "NaN" in unscored[0].reason


def test_a_verdicts_file_given_as_traces_or_grades_says_where_it_goes(tmp_path, capsys):
    golden = ROOT / "tests" / "fixtures" / "formats" / "ragas_ids.jsonl"
    run = HERE / "deepeval_test_run.json"
    code = main(["audit", "--golden", str(golden), "--traces", str(run), "--judge", "lexical",
                 "--out", str(tmp_path / "a")])  # fmt: skip
    assert code == 2
    assert "DeepEval test run (another evaluator's verdicts), not a trace file: give it to " \
        "calibrate --verdicts" in capsys.readouterr().err  # fmt: skip
    with pytest.raises(InputError, match="MLflow genai.evaluate results.*calibrate --verdicts"):
        load_grades(HERE / "mlflow_results.jsonl")


def test_grades_keyed_by_span_ids_stay_grades(tmp_path):
    rows = [json.loads(line) for line in (HERE / "phoenix_grades.jsonl").open()]
    path = tmp_path / "d" / "grades.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps({**r, "span_id": r["id"]}) + "\n" for r in rows))
    items = load_grades(path)  # a span id and a label: a person's grade, not Phoenix's
    assert len(items) == 100 and len(items[0].id) == 16


def test_our_judge_beside_verdicts_given_as_audit_gets_no_rate_of_them():
    runs = calibrate(
        GRADES, judges=["lexical"], verdicts=[HERE / "deepeval_test_run.json"],
        audit=HERE / "deepeval_test_run.json", resamples=200,
    )  # fmt: skip
    lexical, deepeval = runs
    assert lexical.audit_ppi is None
    assert any("holds no lexical verdicts" in w.text for w in lexical.record.warnings)
    assert deepeval.audit_ppi is not None and deepeval.audit_ppi.n_unlabelled == 100
    assert not any(w.code == "stale_calibration" for w in deepeval.record.warnings)


@pytest.mark.parametrize(
    "name", ["deepeval_test_run.json", "phoenix_evaluations.jsonl", "mlflow_results.jsonl"]
)
def test_any_field_of_a_verdicts_file_made_hostile_is_read_or_refused_naming_the_file(
    tmp_path_factory, name
):
    """Any node of a tool's file replaced by a hostile value (the hostile-input suite's
    values): read, or refused naming the file; never a traceback."""
    from hypothesis import given
    from hypothesis import strategies as st

    from tests.data.test_hostile_loaders import HOSTILE, SETTINGS, write_mutated

    source = HERE / name
    first = tmp_path_factory.mktemp("one") / name
    first.write_text(source.read_text().splitlines()[0] + "\n")  # one JSON document

    @SETTINGS
    @given(st.integers(0, 10**6), HOSTILE)
    def check(choice, value):
        bad = tmp_path_factory.mktemp("verdicts") / name
        write_mutated(first, bad, choice, value)
        try:
            read_verdicts(bad)
        except InputError as exc:
            assert str(bad) in str(exc), str(exc)

    check()
