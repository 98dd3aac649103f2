"""The four generated reference pages (docs/reference/cli.md, results-schema.md,
metrics.md, formats.md) match what the code and the readers give, and the figures between
markers in README.md and docs/*.md match their benchmarks/results/ files: a changed
option, help text, result field, metric, reader or measurement fails here until
``python scripts/make_reference.py`` is re-run and its output committed."""

from __future__ import annotations

import importlib.util
import json
import re
import sys

import pytest

from ragtriage import AuditResult
from ragtriage.calibration.record import CalibrationRecord
from ragtriage.cli.main import command_tree
from ragtriage.retrieval.models import RetrievalReport
from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "make_reference.py"


@pytest.fixture(scope="module")
def make_reference():
    spec = importlib.util.spec_from_file_location("make_reference", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_reference"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("make_reference", None)


def test_committed_reference_pages_are_what_the_code_generates(make_reference):
    assert make_reference.stale_pages() == [], "run: python scripts/make_reference.py"


def test_check_mode_names_a_stale_page(make_reference, tmp_path, monkeypatch, capsys):
    for name in make_reference.PAGES:
        (tmp_path / name).write_text(make_reference.PAGES[name](), encoding="utf-8")
    monkeypatch.setattr(make_reference, "REFERENCE", tmp_path)
    monkeypatch.setattr(make_reference, "ROOT", tmp_path)
    assert make_reference.main(["--check"]) == 0
    page = tmp_path / "cli.md"
    page.write_text(page.read_text().replace("--golden", "--gold"), encoding="utf-8")
    assert make_reference.main(["--check"]) == 1
    assert "stale: cli.md" in capsys.readouterr().err


def test_prose_figures_follow_their_results_files(make_reference, tmp_path, monkeypatch):
    """A figure between markers in README.md or docs/ is the results file's: a new
    measurement makes the prose stale until the script copies it in."""
    results = tmp_path / "results"
    results.mkdir()
    for path in make_reference.RESULTS.iterdir():
        (results / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "the tests: <!-- figure tests.passed -->965<!-- /figure --> passed, <!-- figure "
        "stage1 retrieval_scale_300k_rounds_fast.txt -->5.3x<!-- /figure -->\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(make_reference, "RESULTS", results)
    monkeypatch.setattr(make_reference, "ROOT", tmp_path)
    monkeypatch.setattr(make_reference, "PAGES", {})
    assert make_reference.stale_pages() == ["README.md"]  # 5.3x is not the file's median
    assert make_reference.main([]) == 0 and make_reference.stale_pages() == []
    text = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "**5.4x**, the median of the rounds' ratios (4.9x, 5.4x, 5.7x;" in text
    counted = results / "test_suite_time.txt"
    counted.write_text(re.sub(r"\d+ passed", "1001 passed", counted.read_text()))
    assert make_reference.stale_pages() == ["README.md"]
    make_reference.main([])
    assert "<!-- figure tests.passed -->1001<!-- /figure --> passed" in (
        tmp_path / "README.md"
    ).read_text(encoding="utf-8")


def test_the_judge_speed_figure_is_the_latest_run(make_reference, tmp_path, monkeypatch):
    """judge_speed.txt keeps every run; the prose quotes the last one, and a new run
    appended to the file makes the prose stale."""
    results = tmp_path / "results"
    results.mkdir()
    source = (make_reference.RESULTS / "judge_speed.txt").read_text(encoding="utf-8")
    (results / "judge_speed.txt").write_text(source, encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "<!-- figure judge.speed -->old<!-- /figure -->\n", encoding="utf-8"
    )
    monkeypatch.setattr(make_reference, "RESULTS", results)
    monkeypatch.setattr(make_reference, "ROOT", tmp_path)
    monkeypatch.setattr(make_reference, "PAGES", {})
    assert make_reference.stale_pages() == ["README.md"]
    make_reference.main([])
    assert make_reference.stale_pages() == []
    first, rerun = {"wall_s": 30.0, "calls": 12}, {"wall_s": 0.1, "calls": 0}
    run = json.dumps({"items": 10, "first": first, "rerun": rerun})
    (results / "judge_speed.txt").write_text(
        source + "# at commit abc1234, same command\n" + run + "\n", encoding="utf-8"
    )
    assert make_reference.stale_pages() == ["README.md"]
    make_reference.main([])
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == (
        "<!-- figure judge.speed -->at commit `abc1234`: 30.0 s for 10 answers, 3.0 s per "
        "answer, 12 calls; the re-run 0.1 s and 0 calls<!-- /figure -->\n"
    )


def test_no_figure_marker_opens_a_line_inside_a_paragraph(make_reference):
    """Markdown takes a line opening with ``<!--`` as a raw HTML block: a marker there
    cuts its paragraph in two on the site. A marker opens a line only as a block of its
    own (a table's), a blank line after it."""
    for path in make_reference._prose_files():  # GitHub's Markdown does the same
        lines = path.read_text(encoding="utf-8").split("\n")
        for number, line in enumerate(lines, 1):
            if line.startswith("<!-- figure ") or line.startswith("<!-- /figure"):
                alone = line.endswith("-->") and line.count("<!--") == 1
                after = lines[number] if number < len(lines) else ""
                assert alone and after == "", f"{path.name}:{number}: {line[:60]}"


def _leaves(group, path: str):
    if hasattr(group, "commands"):  # a group, in click or in typer's vendored click
        for name, command in group.commands.items():
            yield from _leaves(command, f"{path} {name}")
    else:
        yield path, group


def test_cli_page_has_every_command_and_option(make_reference):
    page = make_reference.cli_page()
    leaves = list(_leaves(command_tree(), "ragtriage"))
    assert len(leaves) >= 8
    for path, command in leaves:
        assert f"## `{path}`" in page
        for param in command.params:
            if param.param_type_name == "option" and not param.hidden:
                assert all(f"`{opt}`" in page for opt in param.opts), (path, param.opts)


RESULT_FILES = (AuditResult, RetrievalReport, CalibrationRecord)


def test_schema_page_has_every_field_of_every_result_file(make_reference):
    page = make_reference.schema_page()
    for model in RESULT_FILES:
        schema = model.model_json_schema(mode="serialization")
        for node in [schema, *schema.get("$defs", {}).values()]:
            for field in node.get("properties", {}):
                assert f"| `{field}` |" in page, (node.get("title"), field)


def test_every_field_of_every_result_file_is_described():
    """A CI gate written over results.json needs each field's meaning, unit and null case:
    every field of every object in either file carries a description (from the model's
    attribute docstrings, ``use_attribute_docstrings``)."""
    undescribed = []
    for model in RESULT_FILES:
        schema = model.model_json_schema(mode="serialization")
        for node in [schema, *schema.get("$defs", {}).values()]:
            for field, spec in node.get("properties", {}).items():
                if not spec.get("description", "").strip():
                    undescribed.append(f"{node.get('title')}.{field}")
    assert undescribed == []


def test_schema_page_renders_descriptions_as_one_markdown_line(make_reference):
    page = make_reference.schema_page()
    row = next(line for line in page.splitlines() if line.startswith("| `first_relevant_rank` |"))
    assert row.endswith("|") and "1-based rank" in row
    assert "``" not in page and ":class:" not in page  # reST markup turned into code spans


def test_describing_results_leaves_the_judge_request_schema_as_it_was():
    """``Verdict`` is in the claims judge's response schema, sent with every request: a
    description there would change every request, hence every cache key and recording."""
    from ragtriage.judge.strategies.claims import ClaimsOutput

    assert "description" not in str(ClaimsOutput.model_json_schema())
