"""A tampered results file is refused or read as its rows say (issue 52 item 4).

Built from the mechanism: ``results.consistency`` recomputes from the cases and the
per-query table what a gate reads (counts, judge outcomes, the naive faithful rate, the
retrieval means, ``calibration.stale``) and holds every fraction to 0-1, when the file is
loaded. The property test tampers one summary value of a real audit's ``results.json``
(produced by ``ragtriage audit``) and checks that every metric the gate can read is
then either refused (one ``InputError`` naming the file and the field) or unchanged.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtriage.cli.main import main
from ragtriage.errors import InputError
from ragtriage.results.gate import AUDIT_METRICS, metric_value
from ragtriage.results.load import load_result
from tests.conftest import ROOT

SCALE = float(os.environ.get("FUZZ_SCALE", "1"))
OWN = ROOT / "examples" / "own_system"


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> dict:
    """A real audit's results.json (lexical judge, shipped calibration), as JSON."""
    out = tmp_path_factory.mktemp("audit")
    args = ["audit", "--golden", OWN / "golden.jsonl", "--traces", OWN / "traces.jsonl",
            "--judge", "lexical", "--cache", out / "c.sqlite", "-o", out / "a",
            "--quiet"]  # fmt: skip
    assert main([str(a) for a in args]) == 0
    return json.loads((out / "a" / "results.json").read_text())


def _paths(data: dict) -> list[tuple]:
    """Every number a gate or compare may read from a summary, as a path into the JSON."""
    paths: list[tuple] = [("counts", k) for k in data["counts"]]
    paths += [("generation", "outcomes", k) for k in data["generation"]["outcomes"]]
    paths.append(("generation", "n_judged"))
    for rate in ("naive_faithful_rate", "corrected_faithful_rate"):
        if data["generation"].get(rate):
            paths += [("generation", rate, end) for end in ("estimate", "low", "high")]
    retrieval = data["retrieval"]
    for i, _ in enumerate(retrieval["aggregates"]):
        paths += [("retrieval", "aggregates", i, k) for k in ("mean", "low", "high", "n")]
    for q, row in retrieval["per_query"].items():
        paths += [("retrieval", "per_query", q, m) for m in row]
    paths += [("retrieval", k) for k in ("n_queries", "n_answerable", "n_unanswerable")]
    return paths


def _set(data: dict, path: tuple, value) -> None:
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _get(data: dict, path: tuple):
    node = data
    for key in path:
        node = node[key]
    return node


def _metrics(result) -> dict[str, object]:
    """Every metric the gate reads, or the refusal it gives for one without a value."""
    names = sorted(AUDIT_METRICS) + [a.metric for a in result.retrieval.aggregates]
    out: dict[str, object] = {}
    for name in names:
        try:
            out[name] = metric_value(result, name)
        except InputError as exc:
            out[name] = ("no value", exc.message.split(":")[0])
    return out


def _load(data: dict, path: Path):
    path.write_text(json.dumps(data), encoding="utf-8")
    return load_result(path)


TAMPER = st.one_of(
    st.sampled_from([0, -1, 1, 2, 7.0, 1.5, -0.3, 0.5, 10**6]),
    st.sampled_from(["+1", "-1", "*0.9"]),
)


def _tampered(original, how):
    if not isinstance(how, str) or not isinstance(original, int | float):
        return how
    if how == "*0.9":
        return original * 0.9 if isinstance(original, float) else original
    return original + (1 if how == "+1" else -1)


@settings(
    max_examples=int(80 * SCALE),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(pick=st.integers(0, 10_000), how=TAMPER)
def test_any_single_tampering_is_refused_or_changes_nothing_the_gate_reads(
    real, tmp_path_factory, pick, how
):
    folder = tmp_path_factory.mktemp("tamper")
    truth = _metrics(_load(real, folder / "real.json"))
    paths = _paths(real)
    path = paths[pick % len(paths)]
    data = copy.deepcopy(real)
    original = _get(data, path)
    value = _tampered(original, how)
    _set(data, path, value)
    try:
        result = _load(data, folder / "results.json")
    except InputError as exc:
        assert exc.path is not None and "results.json" in exc.path, str(exc)
        return
    assert _metrics(result) == truth, (path, original, value)


def test_real_results_read_back_clean(real, tmp_path):
    _load(real, tmp_path / "results.json")


def _gate(path: Path, *bars: str) -> tuple[int, str]:
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["gate", str(path), *bars])
    return code, err.getvalue()


def _unsure(data: dict) -> dict:
    """Every judged case made unsure, with counts recomputed (a consistent file)."""
    data = copy.deepcopy(data)
    for case in data["cases"]:
        if case.get("judge") is not None and case["label"] in ("pass", "generation"):
            case["label"], case["faithful"] = "unsure", None
    labels = [c["label"] for c in data["cases"]]
    data["counts"] = {k: labels.count(k) for k in data["counts"]}
    data["generation"]["naive_faithful_rate"] = None
    return data


def _stale(data: dict) -> dict:
    data = copy.deepcopy(data)
    data["calibration"]["fingerprint"]["model"] = "older-model"
    data["calibration"]["stale"] = ["model"]
    return data


ISSUE = {  # the issue's seven passes, each one edit of a real file
    "counts.unsure 0 beside unsure cases": (_unsure, ("counts", "unsure"), 0),
    "a negative count": (None, ("counts", "retrieval"), -1),
    "faithful rate 1.5": (None, ("generation", "naive_faithful_rate", "estimate"), 1.5),
    "faithful rate -0.3": (None, ("generation", "naive_faithful_rate", "estimate"), -0.3),
    "recall mean 7.0": (None, ("retrieval", "aggregates", 0, "mean"), 7.0),
    "stale emptied": (_stale, ("calibration", "stale"), []),
}


@pytest.mark.parametrize("name", sorted(ISSUE))
def test_the_issue_tamperings_are_refused_by_gate_and_compare(real, tmp_path, name):
    prepare, path, value = ISSUE[name]
    data = prepare(real) if prepare else copy.deepcopy(real)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(data), encoding="utf-8")
    assert _gate(good)[0] in (0, 1)  # the untampered file reads
    _set(data, path, value)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    code, err = _gate(bad, "--min", "recall@1=0.1")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "bad.json" in lines[0], err
    assert ".".join(str(p) for p in path[:2]) in lines[0] or path[0] in lines[0], err
    assert main(["compare", str(good), str(bad)]) == 2


def test_a_case_id_twice_is_refused(real, tmp_path):
    data = copy.deepcopy(real)
    data["cases"].append(copy.deepcopy(data["cases"][0]))
    with pytest.raises(InputError, match="more than once") as found:
        _load(data, tmp_path / "candidate.json")
    assert found.value.field == "cases"


@pytest.mark.parametrize(
    "rate", ["faithful_rate", "faithful_rate.naive", "faithful_rate.corrected"]
)
def test_a_faithful_rate_bar_with_no_decided_answer_cannot_be_held(real, tmp_path, rate):
    """Issue 52 item 5c: every scored answer unsure, and a corrected rate from the scores
    alone (as PPI gives one): the bar is refused as one that cannot be held, not passed."""
    data = _unsure(real)
    data["generation"]["corrected_faithful_rate"] = {"estimate": 0.97, "low": 0.9, "high": 1.0}
    path = tmp_path / "all_unsure.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, err = _gate(path, "--min", f"{rate}=0.95")
    assert code == 2 and "cannot be held" in err and "unsure" in err, err
    assert _gate(path, "--min", "recall@1=0.1")[0] in (0, 1)  # the file itself reads


@pytest.mark.parametrize(
    ("sent", "decided", "unscored", "ok"),
    [(16, 16, 0, True), (16, 0, 16, True), (16, 16, 16, False), (16, -1, 0, False)],
)
def test_an_escalation_step_holds_what_it_was_sent(real, tmp_path, sent, decided, unscored, ok):
    data = copy.deepcopy(real)
    data["escalations"] = [
        {"judge": "sentences@x", "sent": sent, "decided": decided, "unscored": unscored}
    ]
    if ok:
        _load(data, tmp_path / "results.json")
        return
    with pytest.raises(InputError) as found:
        _load(data, tmp_path / "results.json")
    assert found.value.field == "escalations[0]"
