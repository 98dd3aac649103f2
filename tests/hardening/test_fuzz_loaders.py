"""Property-based fuzzing of every loader: a correct result or one InputError, nothing else.

Each test generates files from records with wrong types, missing fields, duplicate ids,
NaN/inf, BOMs, CRLF, blank and huge lines, truncated JSON and non-UTF-8 bytes, and feeds
them to a loader. The loader must either return (and then the values must be the ones
written: never a silently wrong number) or raise :class:`InputError` naming the file (and
the line when the problem is on one). ``FUZZ_COUNTS`` records how many cases ran, for
docs/reliability.md.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtriage.calibration.grades import load_grades
from ragtriage.data.golden import load_golden
from ragtriage.data.runs import load_run
from ragtriage.data.trec import read_trec_qrels
from ragtriage.errors import InputError
from ragtriage.judge.items import load_answers
from ragtriage.triage.traces import load_traces

FUZZ_COUNTS: Counter[str] = Counter()
SETTINGS = settings(
    max_examples=int(__import__("os").environ.get("FUZZ_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

ATOMS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["d1", "d2", "q1", "", " ", "\u2028", "<script>"]),
)
VALUES = st.recursive(
    ATOMS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["id", "text", "score", "x"]), inner, max_size=3),
    ),
    max_leaves=6,
)


def records(fields: dict[str, st.SearchStrategy]) -> st.SearchStrategy[dict]:
    """Objects whose fields are sometimes right, sometimes wrong-typed, sometimes absent."""
    return st.fixed_dictionaries({}, optional={k: st.one_of(v, VALUES) for k, v in fields.items()})


def dump(record: dict) -> str:
    return json.dumps(record, allow_nan=True)  # NaN/Infinity tokens are part of the fuzz


CORRUPTIONS = st.sampled_from(
    ["none", "bom", "crlf", "blank", "truncate", "bytes", "huge", "list", "empty"]
)


def build(lines: list[str], corruption: str) -> bytes:
    joined = ",\n".join(lines) if corruption == "list" else "\n".join(lines)
    text = "[\n" + joined + "\n]" if corruption == "list" else joined + "\n"
    if corruption == "crlf":
        text = text.replace("\n", "\r\n")
    if corruption == "blank":
        text = "\n\n" + text.replace("\n", "\n\n")
    if corruption == "truncate" and text.strip():
        text = text[: max(1, len(text) // 2)]
    if corruption == "huge":
        text += json.dumps({"query": "x" * 200_000, "expected": []}) + "\n"
    if corruption == "empty":
        text = ""
    data = text.encode("utf-8")
    if corruption == "bom":
        data = b"\xef\xbb\xbf" + data
    if corruption == "bytes":
        data = data[: len(data) // 2] + b"\xff\xfe" + data[len(data) // 2 :]
    return data


def outcome(load, path: Path, name: str):
    """The loader's result, or None after checking the error is a located InputError."""
    FUZZ_COUNTS[name] += 1
    try:
        return load(path)
    except InputError as exc:
        assert exc.path is not None and str(path) in str(exc)
        assert exc.exit_code == 2
        return None


GOLDEN_FIELDS = {
    "id": st.one_of(st.text(min_size=1, max_size=4), st.integers(0, 3)),
    "query": st.text(min_size=1, max_size=20),
    "expected": st.lists(st.sampled_from(["d1", "d2", "d3"]), max_size=3),
    "relevance_grades": st.dictionaries(st.sampled_from(["d1", "d2"]), st.integers(-1, 3)),
    "tags": st.lists(st.text(max_size=5), max_size=2),
    "reference_answer": st.text(max_size=10),
}


@SETTINGS
@given(st.lists(records(GOLDEN_FIELDS), min_size=0, max_size=5), CORRUPTIONS)
def test_golden_loader(tmp_path_factory, rows, corruption):
    path = tmp_path_factory.mktemp("g") / "golden.jsonl"
    path.write_bytes(build([dump(r) for r in rows], corruption))
    golden = outcome(load_golden, path, "golden")
    if golden is None:
        return
    for case in golden.cases:  # what was loaded is what was written
        assert isinstance(case.query, str) and case.query.strip()
        assert all(isinstance(g, int) for g in case.relevance.values())
    assert len({c.id for c in golden.cases}) == len(golden.cases)


TOKENS = st.sampled_from(
    [
        "q1",
        "q2",
        "Q0",
        "d1",
        "d2",
        "0",
        "1",
        "2",
        "-1",
        "1.5",
        "nan",
        "inf",
        "-0",
        "1e400",
        "x",
        "#",
        "\t",
        "3.0",
    ]
)


@SETTINGS
@given(st.lists(st.lists(TOKENS, min_size=0, max_size=7).map(" ".join), max_size=6), CORRUPTIONS)
def test_trec_run_loader(tmp_path_factory, lines, corruption):
    path = tmp_path_factory.mktemp("r") / "run.trec"
    data = build(lines, "none" if corruption in ("list", "huge") else corruption)
    path.write_bytes(data)
    run = outcome(load_run, path, "trec_run")
    if run is None:
        return
    assert all(math.isfinite(s) for s in run.score)
    expected = [
        ln.split()
        for ln in data.decode("utf-8-sig").splitlines()
        if ln.strip() and not ln.strip().startswith("#")
    ]
    assert len(run) == len(expected)
    assert sorted(run.score.tolist()) == sorted(float(p[4]) for p in expected)


@SETTINGS
@given(st.lists(st.lists(TOKENS, min_size=0, max_size=5).map(" ".join), max_size=6), CORRUPTIONS)
def test_trec_qrels_loader(tmp_path_factory, lines, corruption):
    path = tmp_path_factory.mktemp("q") / "qrels.txt"
    path.write_bytes(build(lines, "none" if corruption in ("list", "huge") else corruption))
    qrels = outcome(read_trec_qrels, path, "trec_qrels")
    if qrels is not None:
        assert qrels.label.dtype.kind == "i"


RUN_FIELDS = {
    "query_id": st.sampled_from(["q1", "q2", "q3"]),
    "retrieved": st.lists(
        st.one_of(
            st.sampled_from(["d1", "d2"]),
            st.fixed_dictionaries(
                {"id": st.sampled_from(["d1", "d2"])}, optional={"score": st.floats(allow_nan=True)}
            ),
        ),
        max_size=3,
    ),
}


@SETTINGS
@given(st.lists(records(RUN_FIELDS), max_size=4), CORRUPTIONS)
def test_jsonl_run_loader(tmp_path_factory, rows, corruption):
    path = tmp_path_factory.mktemp("j") / "run.jsonl"
    data = build([dump(r) for r in rows], corruption)
    if not data.lstrip(b"\xef\xbb\xbf \r\n").startswith((b"{", b"[")):
        return  # not a JSON run (the TREC reader is fuzzed above)
    path.write_bytes(data)
    run = outcome(load_run, path, "jsonl_run")
    if run is not None:
        assert all(math.isfinite(s) for s in run.score)


TRACE_FIELDS = RUN_FIELDS | {
    "answer": st.text(max_size=10),
    "context_ids": st.lists(st.sampled_from(["d1", "d2"]), max_size=2),
    "context_k": st.integers(-2, 3),
}


@SETTINGS
@given(st.lists(records(TRACE_FIELDS), max_size=4), CORRUPTIONS)
def test_trace_loader(tmp_path_factory, rows, corruption):
    path = tmp_path_factory.mktemp("t") / "traces.jsonl"
    path.write_bytes(build([dump(r) for r in rows], corruption))
    traces = outcome(lambda p: load_traces(p, 3), path, "traces")
    if traces is not None:
        assert all(isinstance(t.answer, str) for t in traces.values())


ANSWER_FIELDS = {
    "id": st.sampled_from(["a1", "a2", "a3"]),
    "question": st.text(max_size=10),
    "contexts": st.lists(
        st.one_of(
            st.text(max_size=10),
            st.fixed_dictionaries(
                {"id": st.sampled_from(["c1", "c2"]), "text": st.text(max_size=5)}
            ),
        ),
        max_size=2,
    ),
    "answer": st.text(max_size=10),
}


@SETTINGS
@given(st.lists(records(ANSWER_FIELDS), max_size=4), CORRUPTIONS)
def test_answers_loader(tmp_path_factory, rows, corruption):
    path = tmp_path_factory.mktemp("a") / "answers.jsonl"
    path.write_bytes(build([dump(r) for r in rows], corruption))
    items = outcome(load_answers, path, "answers")
    if items is not None:
        assert len({i.id for i in items}) == len(items)


GRADE_FIELDS = {
    "id": st.sampled_from(["a1", "a2"]),
    "answer": st.text(max_size=10),
    "label": st.one_of(st.booleans(), st.integers(0, 3), st.sampled_from(["true", "no", "2"])),
    "grader": st.sampled_from(["g1", "g2"]),
    "question": st.text(max_size=5),
    "contexts": st.lists(st.text(max_size=5), max_size=2),
}


@SETTINGS
@given(st.lists(records(GRADE_FIELDS), max_size=4), CORRUPTIONS)
def test_human_grades_loader(tmp_path_factory, rows, corruption):
    path = tmp_path_factory.mktemp("h") / "grades.jsonl"
    path.write_bytes(build([dump(r) for r in rows], corruption))
    outcome(load_grades, path, "human_grades")


def test_report_fuzz_counts(capsys):
    """Runs last in this module: prints how many generated cases each loader saw."""
    with capsys.disabled():
        print("\nfuzz cases per loader:", dict(FUZZ_COUNTS), "total", sum(FUZZ_COUNTS.values()))
