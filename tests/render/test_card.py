"""The validity card (``calibrate --card``, issue 51 item 2): per judge, Markdown and
self-contained HTML with what was graded and by whom, agreement with intervals, the
confusion, the human ceiling where answers have two grades, the rate correction and when
it goes stale; every text from the files inert."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ragtriage.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
GRADES = ROOT / "human_grades" / "begin_wow" / "grades.jsonl"
DEEPEVAL = ROOT / "tests" / "fixtures" / "verdicts" / "deepeval_test_run.json"
HOSTILE = "<script>alert(1)</script> *x* [a](http://e.vil)"


def _grades_with_a_second_grader(path: Path) -> None:
    """begin_wow's grades, and for 60 of them a second grader who disagrees on 9."""
    rows = [json.loads(line) for line in GRADES.read_text().splitlines()]
    second = []
    for k, row in enumerate(rows[:60]):
        label = (not row["label"]) if k % 7 == 0 else row["label"]
        second.append({**row, "label": label, "grader": HOSTILE})
    path.write_text("\n".join(json.dumps(r) for r in rows + second) + "\n")


def test_card_with_a_human_ceiling_and_inert_text(tmp_path, capsys):
    grades = tmp_path / "grades.jsonl"
    _grades_with_a_second_grader(grades)
    run = json.loads(DEEPEVAL.read_text())
    for case in run["testCases"]:
        case["metricsData"][0]["evaluationModel"] = HOSTILE
    verdicts = tmp_path / "run.json"
    verdicts.write_text(json.dumps(run))
    code = main(["calibrate", str(grades), "--verdicts", str(verdicts), "--out",
                 str(tmp_path / "out"), "--resamples", "200", "--no-plots", "--card"])  # fmt: skip
    assert code == 0, capsys.readouterr().out
    (folder,) = (tmp_path / "out").iterdir()
    md = (folder / "card.md").read_text()
    page = (folder / "card.html").read_text()
    for text in (md, page):
        for section in ("What was graded", "Agreement with the graders", "Confusion",
                        "Human ceiling", "Rate correction", "When it goes stale"):  # fmt: skip
            assert section in text
    assert "60 answers graded two or more times" in md
    ceiling = re.search(r"Krippendorff's alpha (-?[\d.]+) \\\[(-?[\d.]+), (-?[\d.]+)\\\]", md)
    assert ceiling and float(ceiling[2]) <= float(ceiling[1]) <= float(ceiling[3])
    assert float(ceiling[1]) < 1.0  # 9 of 60 disagree
    assert re.search(r"the judge on the same answers \(\d+\): kappa [\d.]+ \\\[", md)
    assert re.search(r"TPR \\\[95% CI\\\]", md) and "TNR" in md
    assert re.search(r"\| 0\.\d\d \\\[0\.\d\d, 0\.\d\d\\\] \(\d+/\d+\) \|", md)  # TPR with CI
    # untrusted text inert: no live tag in the page, no link or emphasis in the markdown
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "\\<script>" in md and " <script>" not in md and "@<script>" not in md
    assert "[a](http" not in md
    assert 'http-equiv="Content-Security-Policy"' in page and "src=" not in page
