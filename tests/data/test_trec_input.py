"""TREC and JSONL run/qrels readings that match trec_eval 10.0, and ids every loader
refuses: control characters (``"d1\\x00"`` compared equal to ``"d1"``), ids over 1 KB
(memory grows as rows x longest id), numbers out of range (OverflowError tracebacks)."""

from __future__ import annotations

import json

import blake3
import numpy as np
import pytest

from ragtriage.data import _trec_fast as trec_fast
from ragtriage.data import trec
from ragtriage.data.ids import MAX_ID_BYTES
from ragtriage.data.runs import load_run
from ragtriage.data.trec import read_trec_qrels, read_trec_run
from ragtriage.errors import InputError
from ragtriage.retrieval.evaluate import evaluate_retrieval

COMMENT = "# forces the line parser\n"


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def both_paths(tmp_path, name: str, body: str):
    """The same run read by the streaming reader and by the line parser."""
    return [
        read_trec_run(write(tmp_path, f"fast-{name}", body)),
        read_trec_run(write(tmp_path, f"slow-{name}", COMMENT + body)),
    ]


def error(load, path) -> InputError:
    with pytest.raises(InputError) as info:
        load(path)
    return info.value


# ---- scores: inf is read, NaN and overflowing literals are not --------------------------


def test_infinite_scores_are_read_and_ranked_as_trec_eval_does(tmp_path):
    body = "q1 Q0 a 1 inf t\nq1 Q0 b 2 -inf t\nq1 Q0 c 3 Infinity t\nq1 Q0 d 4 0.5 t\n"
    qrels = read_trec_qrels(write(tmp_path, "q", "q1 0 a 1\nq1 0 b 0\nq1 0 c 0\nq1 0 d 0\n"))
    for run in both_paths(tmp_path, "r", body):
        assert sorted(run.score.tolist()) == [-np.inf, 0.5, np.inf, np.inf]
        report = evaluate_retrieval(qrels, run, ["mrr"], resamples=10)
        # inf ties inf, broken by doc id descending: c, a, then d (0.5), then b (-inf)
        assert report.per_query.loc["q1", "mrr"] == 0.5


@pytest.mark.parametrize(
    ("score", "message"),
    [
        ("nan", "NaN"),
        ("-NaN", "NaN"),
        ("1e400", "out of range"),
        ("-1e400", "out of range"),
        ("1" * 400, "out of range"),
        ("1_000", "not a number"),  # Python's float() reads 1000, trec_eval's atof 1
        ("١٢", "not a number"),  # Arabic-Indic digits: Python reads 12
        ("0x10", "not a number"),
    ],
)
def test_bad_scores_name_line_and_field_on_both_paths(tmp_path, score, message):
    body = f"q1 Q0 a 1 1.0 t\nq1 Q0 b 2 {score} t\n"
    fast = error(read_trec_run, write(tmp_path, "fast", body))
    slow = error(read_trec_run, write(tmp_path, "slow", COMMENT + body))
    assert message in fast.message and message in slow.message
    assert (fast.line, fast.field) == (2, "score") and (slow.line, slow.field) == (3, "score")


# ---- columns: a run's extra columns are ignored, once said ------------------------------


def test_run_lines_with_extra_columns_are_read_and_counted_once(tmp_path):
    body = "q1 Q0 a 1 2.0 tag extra\nq1 Q0 b 2 1.0 tag\nq1 Q0 c 3 0.5 tag x y z\n"
    run = load_run(write(tmp_path, "r", body))
    assert run.doc_strings(np.arange(3)) == ["a", "b", "c"]
    assert run.score.tolist() == [2.0, 1.0, 0.5]
    assert len(run.warnings) == 1 and run.warnings[0].startswith("2 run lines have more than 6")
    qrels = read_trec_qrels(write(tmp_path, "q", "q1 0 a 1\n"))
    report = evaluate_retrieval(qrels, run, ["mrr"], resamples=10)
    assert sum("more than 6 columns" in w for w in report.warnings) == 1


def test_qrels_lines_with_extra_columns_stay_an_error(tmp_path):
    found = error(read_trec_qrels, write(tmp_path, "q", "q1 0 a 1\nq1 0 b 1 extra\n"))
    assert found.line == 2 and "expected 4" in found.message


def test_duplicate_judgements_stay_an_error_naming_both_lines(tmp_path):
    found = error(read_trec_qrels, write(tmp_path, "q", "q1 0 a 1\nq2 0 a 1\nq1 0 a 0\n"))
    assert (found.line, found.field) == (3, "doc") and "already judged on line 1" in found.message


# ---- labels: 64-bit integers --------------------------------------------------------------


@pytest.mark.parametrize("label", ["1" * 30, "-" + "9" * 25, str(1 << 63)])
def test_huge_qrels_labels_name_line_and_field(tmp_path, label):
    for body in (f"q1 0 a 1\nq1 0 b {label}\n", COMMENT + f"q1 0 a 1\nq1 0 b {label}\n"):
        found = error(read_trec_qrels, write(tmp_path, "q", body))
        assert found.field == "label" and "out of range" in found.message
        assert found.line == body.count("\n")


def test_largest_int64_label_is_read(tmp_path):
    qrels = read_trec_qrels(write(tmp_path, "q", f"q1 0 a {(1 << 63) - 1}\nq1 0 b -5\n"))
    assert qrels.label.tolist() == [(1 << 63) - 1, -5]


def test_huge_integer_score_in_a_jsonl_run_names_line_and_field(tmp_path):
    rows = [
        {"query_id": "q1", "retrieved": [{"id": "a", "score": 1.0}]},
        {"query_id": "q2", "retrieved": [{"id": "a", "score": 10**400}]},
    ]
    path = write(tmp_path, "r.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    found = error(load_run, path)
    assert (found.line, found.field) == (2, "retrieved[0].score")
    assert "out of range" in found.message


# ---- ids: no control characters, at most 1 KB ----------------------------------------------

CONTROL = ["\x00", "\x01", "\x1f", "\x7f", "\x85", "\x9f"]


@pytest.mark.parametrize("char", CONTROL)
def test_control_characters_in_trec_ids_name_line_and_field(tmp_path, char):
    cases = [
        (read_trec_run, f"q1 Q0 a 1 1 t\nq1 Q0 d1{char} 2 1 t\n", 2, "doc"),
        (read_trec_run, f"q1 Q0 a 1 1 t\nq{char}1 Q0 d1 2 1 t\n", 2, "query"),
        (read_trec_qrels, f"q1 0 a 1\nq1 0 d1{char} 1\n", 2, "doc"),
        (read_trec_qrels, f"q1 0 a 1\nq1{char} 0 d1 1\n", 2, "query"),
    ]
    for load, body, line, field in cases:
        for text, at in ((body, line), (COMMENT + body, line + 1)):
            found = error(load, write(tmp_path, "f", text))
            assert (found.line, found.field) == (at, field), (char, body)
            assert f"U+{ord(char):04X}" in found.message


@pytest.mark.parametrize("char", CONTROL)
def test_control_characters_in_jsonl_run_ids_name_line_and_field(tmp_path, char):
    rows = [
        {"query_id": "q1", "retrieved": ["a"]},
        {"query_id": "q2", "retrieved": ["a", f"d1{char}"]},
        {"query_id": f"q{char}", "retrieved": ["a"]},
        {"query_id": "q4", "retrieved": [{"id": f"d{char}", "score": 1}]},
    ]
    for index, field in ((1, "retrieved[1]"), (2, "query_id"), (3, "retrieved[0].id")):
        lines = [json.dumps(rows[0]), json.dumps(rows[index])]
        found = error(load_run, write(tmp_path, "r.jsonl", "\n".join(lines) + "\n"))
        assert (found.line, found.field) == (2, field)


def test_a_nul_padded_expected_id_never_matches_the_id_without_it(tmp_path):
    """The issue's case: ``expected: ["d1\\u0000"]`` scored recall@1 = 1.0 for ``d1``."""
    golden = write(tmp_path, "g.jsonl", json.dumps({"id": "a", "query": "q", "expected": ["d1\0"]}))
    run = write(tmp_path, "r.jsonl", json.dumps({"query_id": "a", "retrieved": ["d1"]}))
    with pytest.raises(InputError, match="U\\+0000") as info:
        evaluate_retrieval(golden, run, ["recall@1"], resamples=10)
    assert str(golden) in str(info.value)


def test_ids_up_to_1_kb_are_read_and_longer_ones_name_the_line(tmp_path):
    ok, long = "x" * MAX_ID_BYTES, "é" * (MAX_ID_BYTES // 2 + 1)  # 1,026 bytes, 513 chars
    run = read_trec_run(write(tmp_path, "ok", f"q1 Q0 {ok} 1 1 t\n"))
    assert run.doc_strings(np.arange(1)) == [ok]
    for load, body in (
        (read_trec_run, f"q1 Q0 a 1 1 t\nq1 Q0 {long} 2 1 t\n"),
        (read_trec_qrels, f"q1 0 a 1\nq1 0 {long} 1\n"),
        (read_trec_run, f"q1 Q0 a 1 1 t\n{long} Q0 b 2 1 t\n"),
    ):
        found = error(load, write(tmp_path, "f", body))
        assert found.line == 2 and "1,026 bytes" in found.message
    path = write(tmp_path, "r.jsonl", json.dumps({"query_id": "q", "retrieved": [long]}) + "\n")
    assert error(load_run, path).line == 1


# ---- the line parser reads lines as trec_eval does -----------------------------------------


def test_unicode_line_separators_inside_ids_are_part_of_them(tmp_path):
    """``str.splitlines`` broke lines at U+2028, U+0085...: trec_eval ends them at \\n."""
    for run in both_paths(tmp_path, "r", "q1 Q0 a\u2028b 1 1 t\nq1 Q0 c\u00a0d 2 0.5 t\n"):
        assert run.doc_strings(np.arange(2)) == ["a\u2028b", "c\u00a0d"]


def test_a_comment_line_after_the_first_4_kb_is_a_comment_on_both_paths(tmp_path):
    lines = [f"q1 Q0 d{i:04d} {i} {1000 - i} t" for i in range(300)]
    body = "\n".join([*lines, "#q1 Q0 zz 1 5 t", "q2 Q0 a 1 1 t"]) + "\n"
    fast, slow = both_paths(tmp_path, "r", body)
    for run in (fast, slow):
        assert len(run) == 301 and sorted(run.query_ids.tolist()) == ["q1", "q2"]


def test_streamed_reader_falls_back_without_error_on_inf(tmp_path, monkeypatch):
    monkeypatch.setattr(trec_fast, "STREAM_BLOCK", 4096)
    lines = [f"q{i // 50} Q0 d{i} {i} {i % 7} t" for i in range(2000)] + ["q9 Q0 x 1 -inf t"]
    run = read_trec_run(write(tmp_path, "r", "\n".join(lines) + "\n"))
    assert len(run) == 2001 and run.score[-1] == -np.inf


def test_a_nan_label_is_refused_by_the_fast_reader_too(tmp_path):
    """arrow read ``nan`` (and ``NULL``, ``N/A``) as a missing value: the label became
    whatever a NaN cast to int64 gives, with a RuntimeWarning."""
    for label in ("nan", "NULL", "N/A"):
        found = error(read_trec_qrels, write(tmp_path, "q", f"q1 0 a 1\nq1 0 b {label}\n"))
        assert (found.line, found.field) == (2, "label")


def test_tab_separated_lines_that_also_use_spaces_split_as_trec_eval_splits(tmp_path):
    """The fast reader picked the tab from the first line and kept ``"q2 "`` as an id."""
    qrels = read_trec_qrels(write(tmp_path, "q", "q1\t0\ta\t1\nq2 \t0 \tb \t0\n"))
    assert qrels.query_ids.tolist() == ["q1", "q2"] and qrels.doc.to_pylist() == ["a", "b"]
    run = read_trec_run(write(tmp_path, "r", "q1\tQ0\ta\t1\t2\tt\nq2 \tQ0\tb \t2\t1\tt\n"))
    assert run.query_ids.tolist() == ["q1", "q2"] and run.doc_strings(np.arange(2)) == ["a", "b"]


def test_bytes_that_are_not_utf8_only_matter_in_the_columns_read(tmp_path):
    path = tmp_path / "r"
    path.write_bytes(b"# c\nq1 Q0 a 1 2 t\xff\nq1 Q0 b\xff 2 1 t\n")
    found = error(read_trec_run, path)
    assert (found.line, found.field) == (3, "doc") and "not valid UTF-8" in found.message
    path.write_bytes(b"q1 Q0 a 1 2\xff t\n")
    assert (error(read_trec_run, path).line, error(read_trec_run, path).field) == (1, "score")
    path.write_bytes(b"q1 0 a 1\xff\n")
    assert (error(read_trec_qrels, path).line, error(read_trec_qrels, path).field) == (1, "label")


def test_hex_labels_are_not_integers_on_either_path(tmp_path):
    """arrow read ``0x10`` as 16; trec_eval's atol reads 0: refused, naming the line."""
    for body in ("q1 0 a 1\nq1 0 b 0x10\n", COMMENT + "q1 0 a 1\nq1 0 b 0x10\n"):
        found = error(read_trec_qrels, write(tmp_path, "q", body))
        assert (found.line, found.field) == (body.count("\n"), "label")
        assert "not an integer" in found.message


def test_msmarco_segment_ids_with_a_hash_take_the_fast_reader(tmp_path, monkeypatch):
    """A ``#`` inside an id is no comment: such runs used to go to the line parser."""
    monkeypatch.setattr(trec, "_slow_columns", lambda *a, **k: pytest.fail("line parser"))
    doc = "msmarco_v2.1_doc_51_766815931#2_1606878413"
    run = read_trec_run(write(tmp_path, "r", f"q1 Q0 {doc} 1 2.5 t\n"))
    qrels = read_trec_qrels(write(tmp_path, "q", f"q1 0 {doc} 1\n"))
    assert run.doc_strings(np.arange(1)) == [doc] and qrels.doc.to_pylist() == [doc]


def test_both_readers_take_the_digest_of_the_bytes_they_read(tmp_path):
    body = "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n"
    fast, slow = both_paths(tmp_path, "run.trec", body)
    assert fast.digest == blake3.blake3(body.encode()).hexdigest()
    assert slow.digest == blake3.blake3((COMMENT + body).encode()).hexdigest()
