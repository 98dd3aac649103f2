"""A calibration record is data from disk: every field is held to the ranges ``calibrate``
itself enforces, and a record outside them is refused with the file and the field named
(issue 52 item 3), whatever the value (property tests over the field ranges)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragtriage.calibration import load_calibration
from ragtriage.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "src" / "ragtriage" / "calibrations" / "lexical.json"
BAND = {
    "min_agreement": 0.85,
    "delta": 0.1,
    "groups": {"logistic": {"min_distance": 1.0, "n": 300, "decided": 150, "errors": 15,
                            "upper": 0.14}},
}  # fmt: skip
SELECTIVE = {
    "min_agreement": 0.85,
    "delta": 0.1,
    "n": 300,
    "decided": 150,
    "coverage": {"estimate": 0.5, "low": 0.44, "high": 0.56},
    "agreement": {"estimate": 0.9, "low": 0.84, "high": 0.94},
    "band": BAND,
}


@pytest.fixture(scope="module")
def base() -> dict:
    data = json.loads(SHIPPED.read_text())
    data["band"] = copy.deepcopy(BAND)
    data["scopes"]["pooled"]["selective"] = copy.deepcopy(SELECTIVE)
    return data


def _load(data: dict, tmp_path: Path):
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(data))
    return load_calibration(path)


def _set(data: dict, where: tuple, value) -> dict:
    out = copy.deepcopy(data)
    node = out
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return out


def test_the_base_record_loads(base, tmp_path):
    record = _load(base, tmp_path)
    assert record.band is not None and record.band.groups["logistic"].decided == 150


# (where, an impossible value, the field the refusal names): the hostile inputs of issue 52
IMPOSSIBLE = [
    (("band", "min_agreement"), 1.5, "band.min_agreement"),
    (("band", "min_agreement"), 0, "band.min_agreement"),
    (("band", "delta"), -1, "band.delta"),
    (("band", "delta"), 1, "band.delta"),
    (("band", "groups", "logistic", "min_distance"), -0.5, "min_distance"),
    (("band", "groups", "logistic", "decided"), 301, "band.groups.logistic"),
    (("band", "groups", "logistic", "errors"), 151, "band.groups.logistic"),
    (("scopes", "pooled", "selective", "agreement", "estimate"), 1.7, "agreement.estimate"),
    (("scopes", "pooled", "selective", "coverage", "estimate"), -0.4, "coverage.estimate"),
    (("scopes",), {}, "scopes"),
    (("fold_rules",), [], "fold_rules"),
    (("folds",), 1, "folds"),
]


@pytest.mark.parametrize(("where", "value", "field"), IMPOSSIBLE)
def test_an_impossible_value_is_refused_naming_file_and_field(base, tmp_path, where, value, field):
    with pytest.raises(InputError) as err:
        _load(_set(base, where, value), tmp_path)
    text = str(err.value)
    assert "calibration.json" in text and field in text, text
    assert "\n" not in text


@settings(max_examples=60, deadline=None)
@given(
    target=st.floats(allow_nan=False, allow_infinity=False, min_value=-5, max_value=5),
    delta=st.floats(allow_nan=False, allow_infinity=False, min_value=-5, max_value=5),
)
def test_band_levels_are_accepted_exactly_in_calibrates_ranges(base, tmp_path_factory, target,
                                                               delta):  # fmt: skip
    data = _set(_set(base, ("band", "min_agreement"), target), ("band", "delta"), delta)
    ok = 0.5 <= target <= 0.99 and 0.01 <= delta <= 0.5
    tmp = tmp_path_factory.mktemp("r")
    if ok:
        assert _load(data, tmp).band.delta == delta
    else:
        with pytest.raises(InputError):
            _load(data, tmp)


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(min_value=-3, max_value=400),
    decided=st.integers(min_value=-3, max_value=400),
    errors=st.integers(min_value=-3, max_value=400),
)
def test_group_counts_are_accepted_only_when_they_nest(base, tmp_path_factory, n, decided,
                                                       errors):  # fmt: skip
    group = {"min_distance": 1.0, "n": n, "decided": decided, "errors": errors, "upper": 0.1}
    data = _set(base, ("band", "groups", "logistic"), group)
    tmp = tmp_path_factory.mktemp("g")
    if 0 <= errors <= decided <= n:
        assert _load(data, tmp).band.groups["logistic"].n == n
    else:
        with pytest.raises(InputError):
            _load(data, tmp)


@settings(max_examples=60, deadline=None)
@given(value=st.floats(allow_nan=False, allow_infinity=False, min_value=-3, max_value=3))
def test_shares_are_accepted_only_between_0_and_1(base, tmp_path_factory, value):
    share = {"estimate": value, "low": min(value, 0.0), "high": max(value, 1.0)}
    data = _set(base, ("scopes", "pooled", "selective", "coverage"), share)
    tmp = tmp_path_factory.mktemp("s")
    if 0.0 <= value <= 1.0:
        assert _load(data, tmp).scopes["pooled"].selective.coverage.estimate == value
    else:
        with pytest.raises(InputError):
            _load(data, tmp)


def test_old_string_warnings_become_notices(base, tmp_path):
    data = _set(base, ("warnings",), ["pooled: FEW GRADES: 10 scored grades", "anything else"])
    record = _load(data, tmp_path)
    assert [w.code for w in record.warnings] == ["few_grades", "other"]
    assert record.warnings[1].text == "anything else"


def test_the_cli_refuses_it_in_one_line_with_exit_2(base, tmp_path, capsys):
    from ragtriage.cli.main import main

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_set(base, ("band", "delta"), -1)))
    answers = tmp_path / "answers.jsonl"
    row = {"id": "a", "question": "q?", "contexts": ["The sky is blue."], "answer": "Blue."}
    answers.write_text(json.dumps(row) + "\n")
    code = main(["judge", "--answers", str(answers), "--judge", "lexical", "--no-cache",
                 "--calibration", str(bad)])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "bad.json" in err and "band.delta" in err
