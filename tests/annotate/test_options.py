"""``ragtriage annotate``'s options: a bad value is one line naming the option, exit 2,
before any server starts (the option fuzz in tests/cli leaves out commands that
serve, since a valid draw would start a server and wait)."""

from __future__ import annotations

import pytest

from ragtriage.cli.main import main
from tests.conftest import ROOT

CORPUS = ROOT / "golden_sets/handbook/corpus.jsonl"


@pytest.fixture
def queries(tmp_path):
    path = tmp_path / "queries.txt"
    path.write_text("how do I reset my password\nwhere is the VPN guide\n")
    return path


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [
        ("--sample", "0", "--sample"),
        ("--port", "70000", "--port"),
        ("--seed", "-1", "--seed"),
        ("--run", "missing.jsonl", "missing.jsonl"),
    ],
)
def test_a_bad_golden_option_is_refused_before_serving(
    tmp_path, queries, capsys, option, value, named
):
    args = ["annotate", "golden", "--queries", str(queries), "--corpus", str(CORPUS)]
    args += ["-o", str(tmp_path / "g.jsonl"), "--no-browser", option, value]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and named in err[0], err


def test_a_missing_audit_is_refused_before_serving(tmp_path, capsys):
    args = ["annotate", "grades", "--audit", str(tmp_path / "nope.json")]
    args += ["-o", str(tmp_path / "grades.jsonl"), "--no-browser"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope.json" in err[0], err


RAGAS = ROOT / "tests/fixtures/users/ragas_texts.jsonl"


@pytest.mark.parametrize(
    ("sources", "named"),
    [
        ([], "--audit"),  # neither
        (["--audit", "results.json", "--answers", str(RAGAS)], "--audit"),  # both
        (["--answers", str(RAGAS), "--show-judge"], "--show-judge"),  # no verdict to show
        (["--answers", str(ROOT / "tests/fixtures/users/ours_traces.jsonl")], "query"),
    ],
)
def test_grades_take_an_audit_or_answers_refused_otherwise(tmp_path, capsys, sources, named):
    args = ["annotate", "grades", *sources, "-o", str(tmp_path / "grades.jsonl"), "--no-browser"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and named in err[0], err
