"""Hostile input, class by class (issue 14), through the real command line in-process.

Each test feeds one class of hostile input to every command and reader it reaches and
asserts the contract of docs/reliability.md: exit 2 with one stderr line naming the file,
line and field (or the option), or a documented correct result; never a traceback, never
a hang. Options are covered in test_option_ranges.py; generated loader contents in
test_hostile_loaders.py.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtriage.data.check import duplicate_queries, jaccard, normalise
from ragtriage.data.models import GoldenCase, GoldenSet
from ragtriage.results.files import write_json
from ragtriage.retrieval.evaluate import evaluate_retrieval
from tests.support.hardening import GOLDEN, RUN
from tests.support.harness import (
    FIGURES,
    assert_ran,
    assert_refused,
    run_cli,
    write_jsonl,
)

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
PLACEHOLDER = "\x00frame:per_query\x00"  # the id that used to move the table (issue 14 #1)
LEXICAL = ["--judge", "lexical"]


def retrieval(golden: Path, run: Path, *extra) -> list:
    return ["retrieval", "--golden", golden, "--run", run, "--quiet", *extra]


def audit(golden: Path, traces: Path, out: Path, *extra) -> list:
    cache = out.parent / f"{out.name}.sqlite"
    return ["audit", "--golden", golden, "--traces", traces, *LEXICAL, "--cache", cache,
            "-o", out, "--quiet", *extra]  # fmt: skip


# --- 1. the results file cannot be corrupted by an id ---------------------------------

ID_TEXT = st.text(min_size=1, max_size=12).filter(lambda s: s.strip())
HOSTILE_IDS = st.one_of(
    ID_TEXT,
    st.sampled_from(
        [PLACEHOLDER, '"per_query": {}', "\\", '"', "\u2028", "{", "missed", "a\nb", "é"]
    ),
)


@SETTINGS
@given(st.lists(HOSTILE_IDS, min_size=1, max_size=6, unique=True))
def test_write_json_keeps_every_id_in_its_place(tmp_path_factory, ids):
    """Any ids: the file parses, per_query holds exactly the answerable ids, missed the
    missed ones; nothing is searched and replaced in the text (issue 14 class 1)."""
    FIGURES["1 results file"] += 1
    golden = GoldenSet(
        cases=[GoldenCase(id=i, query=f"q {n}", relevance={"d1": 1}) for n, i in enumerate(ids)]
    )
    run = {ids[0]: ["d1"]} | {i: ["d9"] for i in ids[1:]}
    report = evaluate_retrieval(golden, run, ["recall@1"])
    path = write_json(tmp_path_factory.mktemp("w") / "r.json", report)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert list(data["per_query"]) == ids
    assert data["per_query"][ids[0]] == {"recall@1": 1.0}
    assert [m["query_id"] for m in data["missed"]] == ids[1:]
    assert path.read_bytes() == write_json(path, report).read_bytes()  # deterministic


def test_gate_and_compare_refuse_a_corrupted_results_file(world, tmp_path):
    """The file the old writer produced (per_query holding the placeholder string)."""
    data = json.loads(world["report"].read_text())
    data["missed"], data["per_query"] = data["per_query"], PLACEHOLDER
    bad = tmp_path / "corrupt.json"
    bad.write_text(json.dumps(data))
    assert_refused(run_cli(["gate", bad, "--min", "mrr=0.1"], "1 results file"), "corrupt.json")
    out = run_cli(["compare", world["report"], bad, "--quiet"], "1 results file")
    assert_refused(out, "corrupt.json")


# --- 2. empty aggregates are results ---------------------------------------------------


def test_only_unanswerable_queries_report_null_aggregates(world, tmp_path):
    golden = write_jsonl(tmp_path / "u.jsonl", [{"id": "a", "query": "q", "expected": []}])
    run = write_jsonl(tmp_path / "run.jsonl", [{"query_id": "a", "retrieved": ["d1"]}])
    out = tmp_path / "o.json"
    assert_ran(run_cli(retrieval(golden, run, "-o", out), "2 empty aggregate"))
    report = json.loads(out.read_text())
    assert report["n_answerable"] == 0 and report["per_query"] == {}
    assert all(a["mean"] is None and a["n"] == 0 for a in report["aggregates"])
    assert any("every aggregate is null" in w for w in report["warnings"])
    # a gate cannot check a bar on no value: unusable input, one line
    gated = run_cli(["gate", out, "--min", "recall@10=0.5"], "2 empty aggregate")
    assert_refused(gated, "recall@10", "has no value", "no answerable query was scored")
    # comparing two reports with no query in common compares nothing: refused, no file
    compared = run_cli(["compare", out, out, "-o", tmp_path / "c.json"], "2 empty aggregate")
    assert_refused(compared, "no query in common")
    assert not (tmp_path / "c.json").exists()


def test_relevance_level_above_every_grade(world, tmp_path):
    out = tmp_path / "o.json"
    args = retrieval(world["golden"], world["run"], "--relevance-level", "100", "-o", out)
    assert_ran(run_cli(args, "2 empty aggregate"))
    report = json.loads(out.read_text())
    assert report["n_answerable"] == 0 and report["aggregates"][0]["mean"] is None


def test_audit_of_an_all_unanswerable_set(world, tmp_path):
    golden = tmp_path / "g"
    unanswerable = [{**g, "expected": [], "relevance_grades": {}} for g in GOLDEN]
    write_jsonl(golden / "golden.jsonl", unanswerable)
    shutil.copy(world["corpus"], golden / "corpus.jsonl")
    out = tmp_path / "out"
    assert_ran(run_cli(audit(golden, world["traces"], out), "2 empty aggregate"))
    results = json.loads((out / "results.json").read_text())
    assert results["retrieval"]["n_answerable"] == 0
    assert all(a["mean"] is None for a in results["retrieval"]["aggregates"])
    assert (out / "report.md").is_file() and (out / "report.html").is_file()


def test_grades_beyond_float_range_in_exponential_ndcg(tmp_path):
    """A grade of 2000 makes 2^grade overflow: the metric is still a number, not NaN."""
    golden = write_jsonl(
        tmp_path / "g.jsonl",
        [{"id": "a", "query": "q", "relevance_grades": {"d1": 2000, "d2": 1}}],
    )
    run = write_jsonl(tmp_path / "r.jsonl", [{"query_id": "a", "retrieved": ["d2", "d1"]}])
    out = tmp_path / "o.json"
    assert_ran(
        run_cli(retrieval(golden, run, "-m", "ndcg_exp,ndcg", "-o", out), "2 empty aggregate")
    )
    row = json.loads(out.read_text())["per_query"]["a"]
    assert 0.63 < row["ndcg_exp"] < 0.631  # 1 / log2(3): the grade-2000 chunk at rank 2


# --- 3. line separators inside JSON strings are valid ----------------------------------

SEPARATORS = ["\u2028", "\u2029", "\u0085"]  # str.splitlines breaks on them; JSON does not


@pytest.mark.parametrize("sep", SEPARATORS)
def test_line_separators_inside_strings_are_accepted(world, tmp_path, sep):
    """Every JSONL reader, with raw (not escaped) separators; later line numbers stay right."""
    golden = tmp_path / "g"
    rows = [{**g, "query": g["query"] + sep + "tail"} for g in GOLDEN]
    write_jsonl(golden / "golden.jsonl", rows, ensure_ascii=False)
    corpus = [{**c, "text": c["text"] + sep} for c in map(json.loads, world["corpus"].open())]
    write_jsonl(golden / "corpus.jsonl", corpus, ensure_ascii=False)
    run = write_jsonl(
        tmp_path / "run.jsonl",
        [{"query_id": q, "retrieved": ids} for q, ids in RUN.items()],
        ensure_ascii=False,
    )
    out = tmp_path / "o.json"
    assert_ran(run_cli(retrieval(golden, run, "-o", out), "3 line separators"))
    assert json.loads(out.read_text())["n_queries"] == 4
    # a broken line after a separator is blamed on its own line, not a shifted one
    bad = write_jsonl(golden / "golden.jsonl", [*rows[:2], {"id": "x"}], ensure_ascii=False)
    assert_refused(run_cli(retrieval(golden, run), "3 line separators"), f"{bad}:3", "query")
    answers = write_jsonl(
        tmp_path / "a.jsonl",
        [{"id": "a", "question": f"q{sep}", "contexts": [f"c{sep}"], "answer": f"x{sep}y"}],
        ensure_ascii=False,
    )
    judged = run_cli(
        [
            "judge",
            "--answers",
            answers,
            "--judge",
            "lexical",
            "--no-cache",
            "-o",
            tmp_path / "j.json",
            "--quiet",
        ],
        "3 line separators",  # fmt: skip
    )
    assert_ran(judged)
    traces = write_jsonl(
        tmp_path / "t.jsonl",
        [{**json.loads(line), "answer": f"answer{sep}"} for line in world["traces"].open()],
        ensure_ascii=False,
    )
    assert_ran(run_cli(audit(world["golden"], traces, tmp_path / "aud"), "3 line separators"))


# --- 4. deep nesting -------------------------------------------------------------------

DEEP = "[" * 10_000 + "]" * 10_000


def _deep_line(record: dict, field: str) -> str:
    return json.dumps({**record, field: "@"}).replace('"@"', DEEP)


def deep_cases(world, tmp: Path) -> list[tuple[str, list, Path, int]]:
    """(name, args, file, line): a field nested 10,000 deep on the file's second line."""
    cases = []

    def two_lines(name: str, source: Path, field: str) -> Path:
        lines = source.read_text().splitlines()
        path = tmp / name / source.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(lines[0] + "\n" + _deep_line(json.loads(lines[1]), field) + "\n")
        return path

    golden = two_lines("golden", world["golden"] / "golden.jsonl", "tags")
    cases.append(("golden", retrieval(golden, world["run"]), golden, 2))
    corpus_dir = tmp / "corpus"
    corpus = two_lines("corpus", world["corpus"], "title")
    shutil.copy(world["golden"] / "golden.jsonl", corpus_dir / "golden.jsonl")
    cases.append(("corpus", ["golden", "check", "--golden", corpus_dir], corpus, 2))
    run = two_lines("run", world["run"], "retrieved")
    cases.append(("run", retrieval(world["golden"], run), run, 2))
    traces = two_lines("traces", world["traces"], "retrieved")
    cases.append(("traces", audit(world["golden"], traces, tmp / "a"), traces, 2))
    answers = two_lines("answers", world["answers"], "contexts")
    cases.append(
        (
            "answers",
            ["judge", "--answers", answers, "--judge", "lexical", "--no-cache"],
            answers,
            2,
        )  # fmt: skip
    )
    grades = two_lines("grades", world["grades"], "contexts")
    cases.append(("grades", ["calibrate", grades, *LEXICAL, "--out", tmp / "c"], grades, 2))
    whole = tmp / "list.json"  # a JSON list: the line where the nesting gets too deep
    whole.write_text('[\n{"id": "a", "query": "q", "expected": [],\n "tags": ' + DEEP + "}]")
    cases.append(("golden list", retrieval(whole, world["run"]), whole, 3))
    report = tmp / "report.json"
    report.write_text(
        world["report"].read_text().replace('"warnings": [', '"x": ' + DEEP + ',\n"warnings": [', 1)
    )
    cases.append(("results", ["gate", report, "--min", "mrr=0.1"], report, None))
    return cases


def test_deep_nesting_is_refused_at_its_line(world, tmp_path):
    for _name, args, path, line in deep_cases(world, tmp_path):
        where = f"{path}:{line}" if line else str(path)
        assert_refused(run_cli(args, "4 deep nesting"), where, "nested too deeply")


# --- 5. option values: the issue's instances (the fuzz is test_option_ranges.py) -------

ISSUE_OPTIONS = [
    ("retrieval+", ["--leak-k", "-5"], "--leak-k"),
    ("retrieval+", ["--leak-k", "0"], "--leak-k"),
    ("retrieval+", ["--depth", "0"], "--depth"),
    ("retrieval+", ["--depth", "-3"], "--depth"),
    ("retrieval+", ["-m", ""], "--metrics"),
    ("retrieval+", ["--k", ""], "--k"),
    ("retrieval+", ["--repeat", "0"], "--repeat"),
    ("audit", ["--limit", "-1"], "--limit"),
    ("audit", ["--limit", "0"], "--limit"),
    ("audit", ["--context-k", "-1"], "--context-k"),
    ("audit", ["--concurrency", "0"], "--concurrency"),
    ("audit", ["--timeout", "nan"], "--timeout"),
    ("audit", ["--judge", "bogus@embedded"], "--judge"),
    ("judge", ["--concurrency", "-1"], "--concurrency"),
    ("judge", ["--threads", "0"], "--threads"),
    ("compare", ["--resamples", "0"], "--resamples"),
    ("compare", ["--seed", "-1"], "--seed"),
    ("calibrate", ["--seed", "-1"], "--seed"),
    ("golden split", ["--fraction", "0"], "--fraction"),
]


def issue_base(command: str, world, tmp: Path) -> list:
    return {
        "retrieval+": ["retrieval", "--golden", world["golden"], "--retriever", "bm25"],
        "audit": audit(world["golden"], world["traces"], tmp / "out"),
        "judge": ["judge", "--answers", world["answers"], "--judge", "lexical", "--no-cache"],
        "compare": ["compare", world["report"], world["report"]],
        "calibrate": ["calibrate", world["grades"], *LEXICAL, "--out", tmp / "c"],
        "golden split": ["golden", "split", "--golden", world["golden"], "--out", tmp / "s.jsonl"],
    }[command]


@pytest.mark.parametrize(("command", "extra", "option"), ISSUE_OPTIONS)
def test_nonsense_option_values_are_refused_before_any_work(world, tmp_path, command, extra,
                                                           option):  # fmt: skip
    outcome = run_cli([*issue_base(command, world, tmp_path), *extra], "5 options")
    assert_refused(outcome, option)
    assert not any(tmp_path.iterdir())  # nothing written, not even a cache


@pytest.mark.parametrize("text", ["a\nb", "x\r\ny", "\x1b[2J\x1b[31mred", "p\u2028q", "\x85"])
def test_an_error_quoting_hostile_text_stays_one_line(world, tmp_path, text):
    """Control characters and line breaks in a quoted value are escaped in the message."""
    args = ["golden", "add", "--from", world["results"], "--to", tmp_path, "--case", text]
    line = assert_refused(run_cli(args, "5 options"), "case")
    assert "\x1b" not in line
    gated = run_cli(["gate", world["report"], "--min", f"{text}=1"], "5 options")
    assert_refused(gated, "--min" if text.strip() == "" else "unknown metric")


def test_an_audit_of_one_case_has_no_corrected_rate(world, tmp_path):
    """``--limit 1`` is valid: one scored answer gives no PPI estimate (it needs two), so
    the corrected rate is null instead of a traceback."""
    out = tmp_path / "out"
    assert_ran(run_cli(audit(world["golden"], world["traces"], out, "--limit", "1"), "5 options"))
    results = json.loads((out / "results.json").read_text())
    assert len(results["cases"]) == 1
    assert results["generation"]["corrected_faithful_rate"] is None


# --- 6. duplicate detection is sub-quadratic and exact ---------------------------------


def brute_force(queries: list[str], threshold: float = 0.8) -> set[tuple[int, int, str]]:
    """The definition: each case with its earliest exact copy, else earliest near one."""
    texts = [normalise(q) for q in queries]
    sets = [frozenset(t.split()) for t in texts]
    out = set()
    for j in range(len(texts)):
        exact = [i for i in range(j) if texts[i] == texts[j]]
        if exact:
            out.add((exact[0], j, "exact"))
            continue
        firsts = [i for i in range(j) if texts[i] not in texts[:i]]  # one per distinct text
        near = [i for i in firsts if jaccard(sets[i], sets[j]) >= threshold]
        if near:
            out.add((near[0], j, "near"))
    return out


WORDS = st.sampled_from(["how", "do", "i", "reset", "my", "password", "now", "the", "fan", "a"])
QUERY = st.lists(WORDS, min_size=0, max_size=7).map(" ".join).map(lambda q: q or "?")


@settings(max_examples=200, deadline=None)
@given(st.lists(QUERY, min_size=1, max_size=25))
def test_duplicates_equal_the_quadratic_definition(queries):
    FIGURES["6 quadratic work"] += 1
    golden = GoldenSet(cases=[GoldenCase(id=f"c{i}", query=q) for i, q in enumerate(queries)])
    got = {(int(p.first[1:]), int(p.second[1:]), p.kind) for p in duplicate_queries(golden)}
    assert got == brute_force(queries)


def test_golden_check_on_thousands_of_copies_finishes(tmp_path):
    """3,000 identical queries (killed at 60 s and 6.6 GB before) and 10,000 distinct short
    ones (51 s before); the benchmark measures the time, this only guards against a hang."""
    rng = random.Random(0)
    words = [f"w{i}" for i in range(3000)]
    same = write_jsonl(
        tmp_path / "same.jsonl",
        [{"id": f"c{i}", "query": "reset my password", "expected": ["d"]} for i in range(3000)],
    )
    out = run_cli(["golden", "check", "--golden", same, "-o", tmp_path / "s.json", "--quiet"],
                  "6 quadratic work", timeout=60)  # fmt: skip
    assert_ran(out, codes=(1,))
    assert len(json.loads((tmp_path / "s.json").read_text())["duplicates"]) == 2999
    distinct = write_jsonl(
        tmp_path / "distinct.jsonl",
        [
            {"id": f"c{i}", "query": " ".join(rng.choices(words, k=4)), "expected": ["d"]}
            for i in range(10_000)
        ],
    )
    out = run_cli(["golden", "check", "--golden", distinct, "--quiet"], "6 quadratic work",
                  timeout=60)  # fmt: skip
    assert_ran(out, codes=(0, 1))


# --- 7. output paths -------------------------------------------------------------------


def output_cases(world) -> dict[str, list]:
    """Every command's output option, pointing at ``{target}`` (filled in per case)."""
    judge = ["judge", "--answers", world["answers"], "--judge", "lexical", "--no-cache"]
    compare = ["compare", world["report"], world["report"]]
    return {
        "retrieval -o": retrieval(world["golden"], world["run"], "-o", "{target}"),
        "judge -o": [*judge, "-o", "{target}"],
        "compare -o": [*compare, "-o", "{target}"],
        "compare --markdown": [*compare, "--markdown", "{target}"],
        "golden check -o": ["golden", "check", "--golden", world["golden"], "-o", "{target}"],
        "golden split --out": ["golden", "split", "--golden", world["golden"], "--out", "{target}"],
        "calibrate --out": ["calibrate", world["grades"], *LEXICAL, "--out", "{target}"],
        "audit -o": audit(world["golden"], world["traces"], Path("{target}")),
    }


def test_unusable_output_paths_are_refused_before_any_work(world, tmp_path):
    """An output under a file, a file output that is a directory, a directory output that
    is a file: exit 2 naming the path, and nothing written anywhere."""
    a_file = tmp_path / "file.txt"
    a_file.write_text("keep me")
    a_dir = tmp_path / "adir.json"  # a suffix: a file name to ``golden split --out`` too
    a_dir.mkdir()
    directories = ("calibrate --out", "audit -o")
    for name, args in output_cases(world).items():
        second = a_file if name in directories else a_dir
        for target in (a_file / "x.json", second):
            filled = [str(a).replace("{target}", str(target)) for a in args]
            assert_refused(run_cli(filled, "7 output paths"), str(target))
    assert a_file.read_text() == "keep me" and not any(a_dir.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir.json", "file.txt"]


def test_audit_outputs_are_all_or_nothing(world, tmp_path):
    out = tmp_path / "out"
    assert_ran(run_cli(audit(world["golden"], world["traces"], out), "7 output paths"))
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    (out / "report.html").unlink()
    (out / "report.html").mkdir()  # the last file of the set cannot be written
    refused = run_cli(audit(world["golden"], world["traces"], out), "7 output paths")
    assert_refused(refused, "report.html")
    for name in ("results.json", "report.md"):
        assert (out / name).read_bytes() == before[name]
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary left


def test_a_directory_where_a_calibration_plot_goes(world, tmp_path):
    out = tmp_path / "out"
    (out / "calibration" / "confusion.png").mkdir(parents=True)
    refused = run_cli(audit(world["golden"], world["traces"], out), "7 output paths")
    assert_refused(refused, "confusion.png", "--out")
    assert not (out / "results.json").exists()


# --- 8. out-of-range and wrong-type values ---------------------------------------------

HUGE = int("9" * 30)


def test_huge_grades_are_refused_where_they_stand(world, tmp_path):
    golden = write_jsonl(
        tmp_path / "g.jsonl",
        [GOLDEN[0], {"id": "b", "query": "q", "relevance_grades": {"d1": HUGE}}],
    )
    out = run_cli(retrieval(golden, world["run"]), "8 values")
    assert_refused(out, f"{golden}:2", "relevance_grades.d1", "out of range")
    beir = tmp_path / "beir"
    shutil.copytree(world["beir"], beir)
    (beir / "qrels" / "test.tsv").write_text(f"query-id\tcorpus-id\tscore\nq1\tfan\t{HUGE}\n")
    out = run_cli(["retrieval", "--golden", beir, "--run", world["run"]], "8 values")
    assert_refused(out, "test.tsv:2", "score")
    for grade in (HUGE * 10**400, "1e400", "nan", "inf"):
        rows = [json.loads(line) for line in world["grades"].open()]
        rows[1]["grade"] = grade
        grades = write_jsonl(tmp_path / "gr" / "set" / "grades.jsonl", rows)
        out = run_cli(["calibrate", grades, *LEXICAL, "--out", tmp_path / "c"], "8 values")
        assert_refused(out, f"{grades}:2", "grade")


def test_beir_qrels_with_only_a_header(world, tmp_path):
    beir = tmp_path / "beir"
    shutil.copytree(world["beir"], beir)
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n")
    out = run_cli(["retrieval", "--golden", beir, "--run", world["run"]], "8 values")
    assert_refused(out, "test.tsv", "no judgements")


@pytest.mark.parametrize(
    "per_query",
    [
        "abc",
        [1, 2],
        {"q1": "abc"},
        {"q1": {"mrr": "abc"}},
        {"q1": {"mrr": None}},
        {"q1": {"mrr": 1.0}, "q2": {"ndcg": 1.0}},
        {"q1": {"mrr": True}},
    ],  # fmt: skip
)
def test_results_files_with_a_bad_per_query_table(world, tmp_path, per_query):
    for source in (world["report"], world["results"]):
        data = json.loads(source.read_text())
        table = data if "per_query" in data else data["retrieval"]
        table["per_query"] = per_query
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(data))
        assert_refused(
            run_cli(["gate", bad, "--min", "mrr=0.1"], "8 values"), "bad.json", "per_query"
        )
        out = run_cli(["compare", source, bad, "--quiet"], "8 values")
        assert_refused(out, "bad.json", "per_query")


def test_a_200_kb_csv_cell_is_valid_input(world, tmp_path):
    rows = [json.loads(line) for line in world["grades"].open()]
    rows[0]["contexts"] = ["x" * 200_000]
    grades = tmp_path / "gr" / "set" / "grades.csv"
    grades.parent.mkdir(parents=True)
    lines = ["id,label,question,contexts,answer"]
    for r in rows:
        cells = [r["id"], str(r["label"]).lower(), r["question"], r["contexts"][0], r["answer"]]
        lines.append(",".join('"' + c.replace('"', '""') + '"' for c in cells))
    grades.write_text("\n".join(lines) + "\n")
    out = run_cli(
        ["calibrate", grades, *LEXICAL, "--out", tmp_path / "c", "--no-plots"], "8 values"
    )
    assert_ran(out)
    # an unterminated quote is blamed on the line where the record starts
    grades.write_text("\n".join([*lines[:3], 'g9,true,"never closed', *lines[3:]]) + "\n")
    out = run_cli(["calibrate", grades, *LEXICAL, "--out", tmp_path / "c"], "8 values")
    assert_refused(out, f"{grades}:4", "CSV")


SURROGATE = "\\ud800"


def surrogate_cases(world, tmp: Path) -> list[tuple[list, Path, str]]:
    """A lone surrogate escape in an id or an answer of every JSON input."""

    def edit(source: Path, old: str, new: str, name: str) -> Path:
        text = source.read_text()
        assert old in text, (source, old)
        path = tmp / name / source.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace(old, new, 1))
        return path

    golden_dir = tmp / "gd"
    shutil.copytree(world["golden"], golden_dir)
    golden = edit(world["golden"] / "golden.jsonl", '"id": "q1"', f'"id": "q1{SURROGATE}"', "g")
    golden = Path(shutil.copy(golden, golden_dir / "golden.jsonl"))
    run = edit(world["run"], '"query_id": "q1"', f'"query_id": "q1{SURROGATE}"', "run")
    traces = edit(world["traces"], '"answer": "', f'"answer": "{SURROGATE}', "traces")
    answers = edit(world["answers"], '"answer": "a"', f'"answer": "a{SURROGATE}"', "answers")
    grades = edit(world["grades"], '"id": "g0"', f'"id": "g0{SURROGATE}"', "grades")
    report = edit(world["report"], '"q1"', f'"q1{SURROGATE}"', "report")
    return [
        (retrieval(golden_dir, world["run"]), golden, ":1: field 'id'"),
        (retrieval(world["golden"], run), run, ":1: field 'query_id'"),
        (audit(world["golden"], traces, tmp / "a"), traces, ":1: field 'answer'"),
        (
            ["judge", "--answers", answers, "--judge", "lexical", "--no-cache"],
            answers,
            ":1: field 'answer'",
        ),  # fmt: skip
        (["calibrate", grades, *LEXICAL, "--out", tmp / "c"], grades, ":1: field 'id'"),
        (["gate", report, "--min", "mrr=0.1"], report, "U+D800"),
    ]


def test_lone_surrogates_are_refused_at_their_line(world, tmp_path):
    """Decided: refused on reading (UTF-8 cannot hold them, so no report could); the JSON
    writer also escapes any that reach it from Python callers (docs/reliability.md)."""
    for args, path, where in surrogate_cases(world, tmp_path):
        line = assert_refused(run_cli(args, "8 values"), str(path), where)
        assert "surrogate" in line


def test_the_json_writer_escapes_a_surrogate_from_python(tmp_path):
    path = write_json(tmp_path / "x.json", {"id": "a\ud800b", "name": "é"})
    assert json.loads(path.read_text(encoding="utf-8")) == {"id": "a\ud800b", "name": "é"}
