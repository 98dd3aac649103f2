"""The headline tells the truth (issue 35): what makes a result meaningless, or changes
what a figure means, is on the first line of every report and fails the audit's own gate.

Every case is a small file of ``tests/fixtures/headline`` (see its README): a six-case
golden set and traces of one system, right and wrong in the ways users got wrong.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ragtriage.cli.main import main
from tests.conftest import ROOT

FILES = ROOT / "tests" / "fixtures" / "headline"
GOLDEN = FILES / "golden"


@pytest.fixture(autouse=True)
def _wide(monkeypatch):
    """A console wide enough that the headline is one line, as in a wide terminal."""
    monkeypatch.setenv("COLUMNS", "1000")


class _Text(HTMLParser):
    """The page's visible text in document order, and its h1."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.h1 = ""
        self._skip = 0
        self._in_h1 = False

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("style", "head")
        self._in_h1 = self._in_h1 or tag == "h1"

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "head")
        self._in_h1 = self._in_h1 and tag != "h1"

    def handle_data(self, data):
        if not self._skip and data.strip():
            self.parts.append(data.strip())
            if self._in_h1:
                self.h1 += data


def _audit(tmp_path: Path, traces: str, *extra: str, golden: Path = GOLDEN):
    """Exit code, terminal lines, results.json, report.md lines, the page's (h1, text)."""
    out = tmp_path / "out"
    args = [
        "audit",
        "--golden",
        str(golden),
        "--traces",
        str(FILES / traces),
        "--judge",
        "lexical",
        "--cache",
        str(tmp_path / "c.sqlite"),
        "-o",
        str(out),
        *extra,
    ]
    code = main(args)
    return code, out  # fmt: skip


def _reports(out: Path):
    result = json.loads((out / "results.json").read_text(encoding="utf-8"))
    markdown = (out / "report.md").read_text(encoding="utf-8").splitlines()
    page = _Text()
    page.feed((out / "report.html").read_text(encoding="utf-8"))
    return result, markdown, page


def _terminal(capsys) -> list[str]:
    return [line for line in capsys.readouterr().out.splitlines() if line.strip()]


def _gate(results: Path, capsys, *bars: str) -> tuple[int, str]:
    code = main(["gate", str(results), *bars])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


CASES = [
    ("unknown_ids.jsonl", GOLDEN, "18 of 18 retrieved ids are not in the corpus"),
    ("query_ids_v01.jsonl", GOLDEN, "0 of 6 golden cases have a trace"),
    ("traces.jsonl", FILES / "golden_typo", "1 expected id is not in the corpus (v-03:hb-O3)"),
]


@pytest.mark.parametrize(("traces", "golden", "why"), CASES, ids=[c[0] for c in CASES])
def test_a_meaningless_result_says_so_first_and_fails_the_gate(
    traces, golden, why, tmp_path, capsys
):
    code, out = _audit(tmp_path, traces, golden=golden)
    assert code == 0  # the reports are written, as with a leak
    terminal = _terminal(capsys)[0]  # the headline
    assert terminal.startswith("ragtriage audit: gate fails; MEANINGLESS: ")
    assert why in terminal.split("cases failing")[0]
    result, markdown, page = _reports(out)
    assert markdown[0].startswith("## ragtriage audit: gate fails; MEANINGLESS: ")
    assert why in markdown[0]
    assert page.parts[0] == page.h1 and why in page.h1 and "gate fails" in page.h1
    assert "Gate fails whatever the bars: the files mismatch" in page.parts[1]
    assert why in " ".join(result["meaningless"].values())
    code, said = _gate(out / "results.json", capsys)
    assert code == 1 and "MEANINGLESS result" in said and "gate FAILED" in said


def test_on_mismatch_warn_goes_on_with_the_reason_still_in_the_headline(tmp_path, capsys):
    code, out = _audit(tmp_path, "unknown_ids.jsonl", "--on-mismatch", "warn")
    assert code == 0
    headline, gate = _terminal(capsys)[:2]
    assert headline.startswith("ragtriage audit: MEANINGLESS: 18 of 18 retrieved ids")
    assert gate.startswith("Gate passes without bars") and "allowed by --on-mismatch warn" in gate
    code, said = _gate(out / "results.json", capsys)
    assert code == 0 and "allowed by --on-mismatch warn" in said


def test_on_mismatch_error_stops(tmp_path, capsys):
    code, out = _audit(tmp_path, "unknown_ids.jsonl", "--on-mismatch", "error")
    assert code == 2 and not out.exists()
    assert "trace ids not in corpus" in capsys.readouterr().err


def test_a_bar_without_value_says_why(tmp_path, capsys):
    _audit(tmp_path, "query_ids_v01.jsonl")
    capsys.readouterr()
    code, said = _gate(tmp_path / "out" / "results.json", capsys, "--min", "pass_rate=0.8")
    assert code == 2
    assert "'pass_rate' has no value in this result: all 6 cases are unscored" in said
    assert "0 of 6 golden cases have a trace (the traces' query ids: v01, v02, v03, ...)" in said


def test_the_right_files_lead_with_no_caveat(tmp_path, capsys):
    code, out = _audit(tmp_path, "traces.jsonl")
    assert code == 0
    lines = _terminal(capsys)
    assert lines[0].startswith("ragtriage audit: 0 of 6 cases failing")
    assert lines[1].startswith("Gate passes without bars")
    assert not any(line.startswith("Assumed:") for line in lines)
    result, markdown, _ = _reports(out)
    assert result["meaningless"] == {} and result["assumptions"] == {}
    assert "These figures" not in "\n".join(markdown)
    assert _gate(out / "results.json", capsys)[0] == 0


def test_the_caveat_sits_beside_the_figure_it_changes(tmp_path, capsys):
    _audit(tmp_path, "unknown_ids.jsonl")
    terminal = _terminal(capsys)
    row = next(line for line in terminal if re.search(r"retrieval\s+│ recall@3", line))
    assert "18 of 18 retrieved ids are not in" in row  # the caveat column of that row
    result, markdown, page = _reports(tmp_path / "out")
    stage1 = markdown.index(next(m for m in markdown if m.startswith("### Stage 1")))
    assert markdown[stage1 + 3] == "> These figures: 18 of 18 retrieved ids are not in the corpus."
    text = " ".join(page.parts)
    assert "Stage 1: retrieval" in text and (
        text.index("These figures: 18 of 18") > text.index("Stage 1: retrieval")
    )
    assert "These failures follow from the mismatched files" in "\n".join(markdown)


ASSUMED = [
    ("no_context_ids.jsonl", "the top 3 retrieved were taken as the generator's context in 6 "
     "of 6 traces, which give no context_ids", "generation"),
    ("reversed.jsonl", "scores rise down the list in 6 of 6 traces (v-01, v-02, v-03, ...)",
     "retrieval"),
    ("ids_by_text.jsonl", "18 retrieved passages without a corpus id were given the id of the "
     "corpus chunk with the same text", "retrieval"),
]  # fmt: skip


@pytest.mark.parametrize(("traces", "said", "figure"), ASSUMED, ids=[a[0] for a in ASSUMED])
def test_assumptions_are_stated_once_under_the_headline(traces, said, figure, tmp_path, capsys):
    code, out = _audit(tmp_path, traces)
    assert code == 0
    terminal = _terminal(capsys)
    joined = " ".join(terminal)
    assert terminal[3].startswith("Assumed: ") and said in terminal[3]  # under the headline
    assert joined.count("Assumed:") == 1  # once (its first words again beside the figure)
    assert not any(line.startswith("warning:") and "same text" in line for line in terminal)
    result, markdown, page = _reports(out)
    assert markdown[4].startswith("Assumed: ") and said in markdown[4]
    assert said in page.parts[2]  # under the title and the gate's verdict
    assert len(result["assumptions"]) == 1
    stage = "### Stage 1" if figure == "retrieval" else "### Stage 2"
    at = markdown.index(next(m for m in markdown if m.startswith(stage)))
    assert markdown[at + 2] == "> [!WARNING]"  # and its few words beside the figures


def test_a_reversed_list_is_scored_as_given_and_said(tmp_path, capsys):
    """Stage 1 ranks as listed (what reached the generator): the MRR falls, and says why."""
    _audit(tmp_path, "traces.jsonl")
    right = json.loads((tmp_path / "out" / "results.json").read_text())
    _audit(tmp_path, "reversed.jsonl")
    reversed_ = json.loads((tmp_path / "out" / "results.json").read_text())
    mrr = {r: {a["metric"]: a["mean"] for a in x["retrieval"]["aggregates"]}["mrr"]
           for r, x in (("right", right), ("reversed", reversed_))}  # fmt: skip
    assert mrr == {"right": 1.0, "reversed": pytest.approx(1 / 3)}
    assert "scores_rising" in reversed_["assumptions"] and not right["assumptions"]


def test_a_calibration_from_one_grades_file_gives_the_audit_its_kappa(
    tmp_path, monkeypatch, capsys
):
    """Item 4 and 5: a record of one scope (one grades file, given by a bare name) has a
    named scope and gives the audit its kappa; its few grades sit beside the corrected
    rate and in the gate's line, on the first screen."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_grades.jsonl").write_bytes((FILES / "my_grades.jsonl").read_bytes())
    args = ["calibrate", "my_grades.jsonl", "--judge", "lexical", "--out", "cal", "--no-plots",
            "--folds", "2", "--resamples", "100"]  # fmt: skip
    assert main(args) == 0
    said = capsys.readouterr().out
    assert "warning: my_grades: FEW GRADES: 12 scored grades" in said
    assert "warning: :" not in said
    record = json.loads((tmp_path / "cal" / "lexical" / "calibration.json").read_text())
    assert list(record["scopes"]) == ["my_grades"]
    scope = record["scopes"]["my_grades"]
    cv = scope["selected"]["cv"] if scope.get("selected") else scope["cv"]

    calibration = str(tmp_path / "cal" / "lexical" / "calibration.json")
    code, out = _audit(tmp_path, "traces.jsonl", "--calibration", calibration)
    assert code == 0
    terminal = _terminal(capsys)
    result, markdown, page = _reports(out)
    assert result["calibration"]["kappa"]["estimate"] == cv["kappa"]
    assert result["calibration"]["n_grades"] == 12 and result["calibration"]["few_grades"]
    assert "FEW GRADES: calibrated on 12" in terminal[1]  # the gate's line
    # and when the gate fails (it was said only when it passed)
    from ragtriage.render.views import gate_line
    from ragtriage.results.load import load_result

    failing = load_result(out / "results.json").model_copy(update={"meaningless": {"x": "y"}})
    line = gate_line(failing)
    assert line.startswith("Gate fails") and "FEW GRADES: calibrated on 12" in line
    corrected = next(line for line in terminal if "faithful (bias-corrected)" in line)
    assert corrected.rstrip(" │").endswith("FEW GRADES: calibrated on 12")  # beside it
    row = next(m for m in markdown if m.startswith("| corrected (prediction-powered)"))
    assert "FEW GRADES: calibrated on 12" in row
    kappa = f"kappa: {cv['kappa']:.4f}"  # the record's own (the smooth rule's since issue 54)
    assert any(kappa in m and "FEW GRADES" in m for m in markdown)
    # its one-panel figures keep their own size (they were stretched to the page's width)
    page_html = (out / "report.html").read_text(encoding="utf-8")
    assert '<figure><img alt="Calibration: human grade' in page_html
    assert 'class="wide"' not in page_html


def test_version(capsys):
    assert main(["--version"]) == 0
    assert re.fullmatch(r"ragtriage \S+.*\n", capsys.readouterr().out)


def test_a_rate_bar_given_as_a_percentage_says_rates_run_0_to_1(tmp_path, capsys):
    _audit(tmp_path, "traces.jsonl")
    capsys.readouterr()
    code, said = _gate(tmp_path / "out" / "results.json", capsys, "--min", "recall@5=80")
    assert code == 2
    assert "recall@5 runs from 0 to 1" in said and "did you mean recall@5=0.8?" in said
    code, _ = _gate(tmp_path / "out" / "results.json", capsys, "--max", "failures=3")
    assert code == 0  # a count is not a rate


def test_the_default_judge_is_named_as_it_ran(tmp_path, capsys):
    """The embedded judge whose shipped rule reads only model-free signals: the header said
    "judge lexical (none)"; it names the judge asked for and that its model was not called."""
    out = tmp_path / "out"
    args = ["audit", "--golden", str(GOLDEN), "--traces", str(FILES / "traces.jsonl"),
            "--cache", str(tmp_path / "c.sqlite"), "-o", str(out), "--quiet"]  # fmt: skip
    assert main(args) == 0
    _, _, page = _reports(out)
    header = next(p for p in page.parts if p.startswith("Created "))
    assert "judge embedded, decided by its calibrated rule on model-free signals" in header
    assert "the model was not called" in header and "lexical (none)" not in header


@pytest.mark.parametrize(
    "group", [[], ["golden"], ["annotate"]], ids=["root", "golden", "annotate"]
)
def test_command_help_is_never_cut(group, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main([*group, "--help"]) == 0
    listing = capsys.readouterr().out.split("Commands:", 1)[1]
    assert "..." not in listing and listing.strip()
