"""Property-based fuzzing of every loader: a correct result or one InputError, nothing else.

Each test generates files from records with wrong types, missing fields, duplicate ids,
NaN/inf, BOMs, CRLF, blank and huge lines, truncated JSON and non-UTF-8 bytes, and feeds
them to a loader. The loader must either return, and then what it loaded must equal an
oracle's plain-Python reading of the same bytes (``json.loads`` per line, ``str.split``
per TREC line) field by field: never a silently wrong value; or raise
:class:`InputError` whose message is one line naming the file (and the line when the
problem is on one).
Each test must also have driven its loader: at least half its examples reached it, at
least one load was compared with the oracle and at least one refused (checked after the
test by :func:`_drove_its_loader`, whatever ran before, ``-k`` included), so a loader
that refuses everything, or a strategy that never builds a loadable file, fails.
``FUZZ_COUNTS`` and ``LOADED`` (tests/support/harness.py) count the cases for
docs/reliability.md; the terminal summary prints them.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtriage.calibration.grades import load_grades
from ragtriage.data.golden import load_golden
from ragtriage.data.runs import load_run
from ragtriage.data.traces import load_traces
from ragtriage.data.trec import read_trec_qrels
from ragtriage.errors import InputError
from ragtriage.judge.items import load_answers
from tests.support.collection_ids import ANY_ID
from tests.support.harness import FUZZ_COUNTS, LOADED

EXAMPLES = int(__import__("os").environ.get("FUZZ_EXAMPLES", "150"))
SETTINGS = settings(
    max_examples=EXAMPLES,
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


@pytest.fixture(autouse=True)
def _drove_its_loader():
    """After each test: the one loader it fuzzed saw at least half its examples (the JSONL
    run test hands non-JSON files to the TREC test), loaded some, refused some."""
    ran, loaded = Counter(FUZZ_COUNTS), Counter(LOADED)
    yield
    ran, loaded = FUZZ_COUNTS - ran, LOADED - loaded
    assert len(ran) == 1, f"expected one loader fuzzed, got {dict(ran)}"
    ((name, cases),) = ran.items()
    assert cases >= EXAMPLES // 2, f"{name}: only {cases} of {EXAMPLES} examples reached it"
    assert loaded[name] >= 1, f"{name}: none of {cases} cases loaded; the oracle never ran"
    assert cases - loaded[name] >= 1, f"{name}: all {cases} cases loaded; none was refused"


def records(
    fields: dict[str, st.SearchStrategy], required: tuple[str, ...] = ()
) -> st.SearchStrategy[dict]:
    """Objects whose fields are sometimes right, sometimes wrong-typed, sometimes absent;
    and as often well-formed ones (``required`` fields present, the rest optional), so
    that loads succeed often enough for the oracle comparison to bite."""
    junk = st.fixed_dictionaries({}, optional={k: st.one_of(v, VALUES) for k, v in fields.items()})
    valid = st.fixed_dictionaries(
        {k: fields[k] for k in required},
        optional={k: v for k, v in fields.items() if k not in required},
    )
    return st.one_of(junk, valid)


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
        loaded = load(path)
        LOADED[name] += 1  # compared with the oracle by the caller
        return loaded
    except InputError as exc:
        message = str(exc)
        assert exc.path is not None and str(path) in message
        assert "\n" not in message and "\r" not in message, f"not one line: {message!r}"
        assert exc.exit_code == 2
        return None


def records_of(data: bytes) -> list[Any]:
    """The oracle's reading of a JSON/JSONL file that loaded: a JSON list, or one JSON
    value per non-blank ``\\n``-separated line (a BOM and ``\\r`` are JSON whitespace
    once the BOM is dropped)."""
    text = data.decode("utf-8-sig")
    if text.lstrip().startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def trec_rows(data: bytes) -> list[list[str]]:
    """The oracle's reading of a TREC file, as trec_eval reads one: lines end at ``\\n``,
    fields are split on spaces and tabs, blank and ``#`` lines are skipped (bytes that
    are not UTF-8 only matter in the columns read, where they make the load fail)."""
    rows = []
    for line in data.decode("utf-8", "surrogateescape").removeprefix("\ufeff").split("\n"):
        line = line.strip(" \t\r")
        if line and not line.startswith("#"):
            rows.append(re.split(r"[ \t]+", line))
    return rows


GOLDEN_FIELDS = {
    "id": st.one_of(st.text(min_size=1, max_size=4), st.integers(0, 3)),
    "query": st.text(min_size=1, max_size=20),
    "expected": st.lists(st.sampled_from(["d1", "d2", "d3"]), max_size=3),
    "relevance_grades": st.dictionaries(st.sampled_from(["d1", "d2"]), st.integers(-1, 3)),
    "tags": st.lists(st.text(max_size=5), max_size=2),
    "reference_answer": st.text(max_size=10),
}


@SETTINGS
@given(st.lists(records(GOLDEN_FIELDS, ("query", "expected")), min_size=0, max_size=5), CORRUPTIONS)
def test_golden_loader(tmp_path_factory, rows, corruption):
    path = tmp_path_factory.mktemp("g") / "golden.jsonl"
    path.write_bytes(build([dump(r) for r in rows], corruption))
    golden = outcome(load_golden, path, "golden")
    if golden is None:
        return
    loaded = [(c.id, c.query, c.relevance, c.tags, c.reference_answer) for c in golden.cases]
    assert loaded == [golden_oracle(r) for r in records_of(path.read_bytes())]


def golden_oracle(record: dict) -> tuple:
    """A golden record as docs/golden-sets.md describes it, read with dict lookups."""
    query = record.get("query", record.get("question"))
    case_id = record.get("id", record.get("query_id"))
    if case_id is None:
        case_id = "q-" + hashlib.sha1(query.encode()).hexdigest()[:10]
    relevance = {str(d): 1 for d in record.get("expected", record.get("relevant_doc_ids", []))}
    relevance.update({str(d): g for d, g in record.get("relevance_grades", {}).items()})
    tags = record.get("tags", [])
    tags = (tags,) if isinstance(tags, str) else tuple(dict.fromkeys(tags))
    return str(case_id), query, relevance, tags, record.get("reference_answer")


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
        "0x10",
        "+1",
        "1_0",
        "Infinity",
        "d#1",
    ]
)


# well-formed lines with ids shaped like real collections' (several 8-byte words each),
# scores and labels of every accepted spelling, extra run columns, tabs and runs of spaces
SEPARATORS = st.sampled_from([" ", "\t", "  ", " \t"])
SCORE_TEXT = st.one_of(
    st.floats(allow_nan=False, allow_infinity=True).map(repr),
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from(["inf", "-Infinity", "1e39", ".5", "+2", "-0"]),
)
RUN_LINES = st.tuples(
    ANY_ID.filter(lambda t: not t.startswith("#")),
    ANY_ID,
    st.integers(0, 999),
    SCORE_TEXT,
    st.lists(st.sampled_from(["tag", "x", "7"]), min_size=1, max_size=3),
    SEPARATORS,
).map(lambda t: t[5].join([t[0], "Q0", t[1], str(t[2]), t[3], *t[4]]))
QRELS_LINES = st.tuples(
    ANY_ID.filter(lambda t: not t.startswith("#")),
    ANY_ID,
    st.integers(-2, 4) | st.integers(-(2**63), 2**63 - 1),
    SEPARATORS,
).map(lambda t: t[3].join([t[0], "0", t[1], str(t[2])]))


@SETTINGS
@given(
    st.lists(st.lists(TOKENS, min_size=0, max_size=7).map(" ".join) | RUN_LINES, max_size=6),
    CORRUPTIONS,
)
def test_trec_run_loader(tmp_path_factory, lines, corruption):
    path = tmp_path_factory.mktemp("r") / "run.trec"
    data = build(lines, "none" if corruption in ("list", "huge") else corruption)
    path.write_bytes(data)
    run = outcome(load_run, path, "trec_run")
    if run is None:
        return
    assert not any(math.isnan(s) for s in run.score)  # inf is read, as trec_eval reads it
    expected = [(p[0], p[2], float(p[4])) for p in trec_rows(data)]
    assert run_rows(run) == expected


def run_rows(run) -> list[tuple[str, str, float]]:
    """``(query, doc, score)`` per row, in file order, as the loader holds them."""
    docs = run.doc_strings(list(range(len(run))))
    queries = run.query_ids[run.query].tolist()
    return list(zip(queries, docs, run.score.tolist(), strict=True))


@SETTINGS
@given(
    st.lists(st.lists(TOKENS, min_size=0, max_size=5).map(" ".join) | QRELS_LINES, max_size=6),
    CORRUPTIONS,
)
def test_trec_qrels_loader(tmp_path_factory, lines, corruption):
    path = tmp_path_factory.mktemp("q") / "qrels.txt"
    path.write_bytes(build(lines, "none" if corruption in ("list", "huge") else corruption))
    qrels = outcome(read_trec_qrels, path, "trec_qrels")
    if qrels is None:
        return
    rows = trec_rows(path.read_bytes())
    assert qrels.label.dtype.kind == "i"
    assert qrels.query_ids.tolist() == list(dict.fromkeys(p[0] for p in rows))
    loaded = zip(qrels.query_ids[qrels.query], qrels.doc.to_pylist(), qrels.label, strict=True)
    assert [(q, d, int(lab)) for q, d, lab in loaded] == [(p[0], p[2], int(p[3])) for p in rows]


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
@given(st.lists(records(RUN_FIELDS, ("query_id", "retrieved")), max_size=4), CORRUPTIONS)
def test_jsonl_run_loader(tmp_path_factory, rows, corruption):
    path = tmp_path_factory.mktemp("j") / "run.jsonl"
    data = build([dump(r) for r in rows], corruption)
    if not data.lstrip(b"\xef\xbb\xbf \r\n").startswith((b"{", b"[")):
        return  # not a JSON run (the TREC reader is fuzzed above)
    path.write_bytes(data)
    run = outcome(load_run, path, "jsonl_run")
    if run is None:
        return
    assert all(math.isfinite(s) for s in run.score)
    expected = []
    for record in records_of(data):
        for rank, item in enumerate(record["retrieved"]):
            if isinstance(item, dict):
                score = item.get("score")
                expected.append((str(record["query_id"]), str(item["id"]), score))
            else:
                expected.append((str(record["query_id"]), str(item), None))
            if expected[-1][2] is None:  # no scores: rank order is the score
                expected[-1] = (*expected[-1][:2], float(-rank))
    assert run_rows(run) == expected


TRACE_FIELDS = RUN_FIELDS | {
    "answer": st.text(max_size=10),
    "context_ids": st.lists(st.sampled_from(["d1", "d2"]), max_size=2),
    "context_k": st.integers(-2, 3),
}


@SETTINGS
@given(
    st.lists(records(TRACE_FIELDS, ("query_id", "retrieved", "answer")), max_size=4), CORRUPTIONS
)
def test_trace_loader(tmp_path_factory, rows, corruption):
    path = tmp_path_factory.mktemp("t") / "traces.jsonl"
    path.write_bytes(build([dump(r) for r in rows], corruption))
    traces = outcome(lambda p: load_traces(p, 3), path, "traces")
    if traces is None:
        return
    loaded = {
        q: ([(c.id, c.score, c.text) for c in t.retrieved], t.context_ids, t.answer)
        for q, t in traces.items()
    }
    assert loaded == dict(trace_oracle(r) for r in records_of(path.read_bytes()))


def trace_oracle(record: dict) -> tuple[str, tuple]:
    """A trace record as data/traces.py documents it (default context_k 3)."""
    retrieved = []
    for item in record["retrieved"]:
        if isinstance(item, dict):
            score = item.get("score")
            retrieved.append(
                (str(item["id"]), None if score is None else float(score), item.get("text") or "")
            )
        else:
            retrieved.append((str(item), None, ""))
    if "context_ids" in record:
        context = [str(c) for c in record["context_ids"]]
    else:
        context = [c[0] for c in retrieved[: record.get("context_k", 3)]]
    return str(record["query_id"]), (retrieved, context, record["answer"])


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
@given(
    st.lists(records(ANSWER_FIELDS, ("id", "question", "contexts", "answer")), max_size=4),
    CORRUPTIONS,
)
def test_answers_loader(tmp_path_factory, rows, corruption):
    path = tmp_path_factory.mktemp("a") / "answers.jsonl"
    path.write_bytes(build([dump(r) for r in rows], corruption))
    items = outcome(load_answers, path, "answers")
    if items is None:
        return
    loaded = [(i.id, i.question, [(c.id, c.text) for c in i.contexts], i.answer) for i in items]
    expected = []
    for record in records_of(path.read_bytes()):
        contexts = [
            (str(c["id"]), c["text"]) if isinstance(c, dict) else (f"c{n}", c)
            for n, c in enumerate(record["contexts"])
        ]
        expected.append((str(record["id"]), record["question"], contexts, record["answer"]))
    assert loaded == expected


GRADE_FIELDS = {
    "id": st.sampled_from(["a1", "a2"]),
    "answer": st.text(max_size=10),
    "label": st.one_of(st.booleans(), st.integers(0, 3), st.sampled_from(["true", "no", "2"])),
    "grader": st.sampled_from(["g1", "g2"]),
    "question": st.text(max_size=5),
    "contexts": st.lists(st.text(max_size=5), max_size=2),
}


@SETTINGS
@given(st.lists(records(GRADE_FIELDS, ("id", "label")), max_size=4), CORRUPTIONS)
def test_human_grades_loader(tmp_path_factory, rows, corruption):
    path = tmp_path_factory.mktemp("h") / "grades.jsonl"
    path.write_bytes(build([dump(r) for r in rows], corruption))
    items = outcome(load_grades, path, "human_grades")
    if items is None:
        return
    loaded = [(i.id, i.dataset, i.label, i.answer, i.question, i.contexts) for i in items]
    assert loaded == grades_oracle(records_of(path.read_bytes()), path.parent.name)


def grades_oracle(records: list[dict], dataset: str) -> list[tuple]:
    """Rows grouped by id in first-seen order: majority label (None on a tie), the first
    answer given, the first row's question and contexts."""
    words = {"true": True, "t": True, "yes": True, "y": True, "1": True}
    words |= {"false": False, "f": False, "no": False, "n": False, "0": False}
    groups: dict[str, list[dict]] = {}
    for record in records:
        groups.setdefault(str(record["id"]), []).append(record)
    out = []
    for item_id, rows in groups.items():
        labels = [
            words[r["label"].strip().lower()] if isinstance(r["label"], str) else bool(r["label"])
            for r in rows
        ]
        yes = sum(labels)
        label = None if 2 * yes == len(labels) else 2 * yes > len(labels)
        answer = next((r["answer"] for r in rows if r.get("answer") is not None), None)
        first = rows[0]
        given = first.get("contexts") or []  # null or absent: no contexts
        if isinstance(given, str):  # one passage, or a JSON list in one (CSV) cell
            given = json.loads(given) if given.lstrip().startswith("[") else [given]
        contexts = tuple(c if isinstance(c, str) else c.get("text", "") for c in given)
        out.append((item_id, dataset, label, answer, first.get("question") or "", contexts))
    return out
