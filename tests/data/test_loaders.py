"""Loaders accept the shapes people write and reject everything else with file, line, field."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragtriage.data.golden import load_golden
from ragtriage.data.runs import load_run
from ragtriage.data.trec import read_trec_qrels, read_trec_run
from ragtriage.errors import InputError
from tests.conftest import ROOT


def write(tmp_path, name, text, mode="w"):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_golden_both_shapes_jsonl_and_json_list(tmp_path):
    rows = [
        {"id": "a", "query": "q1", "expected": ["d1"], "tags": ["x"], "reference_answer": "r"},
        {"query": "q2", "relevant_doc_ids": ["d2", "d3"], "relevance_grades": {"d2": 2, "d3": 1}},
        {"id": 7, "query": "q3", "expected": []},
    ]
    jsonl = write(tmp_path, "g.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    listed = write(tmp_path, "g.json", json.dumps(rows, indent=2))
    for path in (jsonl, listed):
        golden = load_golden(path)
        a, b, c = golden.cases
        assert a.expected() == ["d1"] and a.tags == ("x",) and a.reference_answer == "r"
        assert b.relevance == {"d2": 2, "d3": 1} and b.id.startswith("q-")
        assert c.id == "7" and not c.answerable()


def test_golden_bom_crlf_and_blank_lines(tmp_path):
    path = write(tmp_path, "g.jsonl", b'\xef\xbb\xbf{"query": "q", "expected": ["d"]}\r\n\r\n')
    assert load_golden(path).cases[0].expected() == ["d"]


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ('{"expected": ["d"]}', "query", "missing"),
        ('{"query": 3, "expected": ["d"]}', "query", "expected str"),
        ('{"query": "q"}', "expected", "missing"),
        ('{"query": "q", "expected": "d1"}', "expected", "expected list"),
        ('{"query": "q", "expected": [null]}', "expected[0]", "expected str"),
        (
            '{"query": "q", "expected": [], "relevance_grades": {"d": "high"}}',
            "relevance_grades.d",
            "expected int",
        ),
        ('{"query": "q", "expected": [], "tags": [1]}', "tags[0]", "expected str"),
        ('{"query": "  ", "expected": []}', "query", "empty"),
        ('{"query": "q", "expected": ["d"], "relevant_doc_ids": ["d"]}', "expected", "either"),
    ],
)
def test_golden_field_errors_name_file_line_field(tmp_path, line, field, message):
    path = write(tmp_path, "g.jsonl", '{"query": "ok", "expected": []}\n' + line + "\n")
    with pytest.raises(InputError) as info:
        load_golden(path)
    err = info.value
    assert (err.path, err.line, err.field) == (str(path), 2, field)
    assert message in err.message
    assert str(err).startswith(f"{path}:2: field '{field}':")


def test_golden_invalid_json_duplicate_ids_empty_and_non_utf8(tmp_path):
    bad = write(tmp_path, "a.jsonl", '{"query": "q", "expected": []}\n{"query": \n')
    with pytest.raises(InputError, match="invalid JSON") as info:
        load_golden(bad)
    assert info.value.line == 2
    dup = write(tmp_path, "b.jsonl", '{"id": "x", "query": "q", "expected": []}\n' * 2)
    with pytest.raises(InputError, match="duplicate case id 'x' \\(first on line 1\\)"):
        load_golden(dup)
    with pytest.raises(InputError, match="empty"):
        load_golden(write(tmp_path, "c.jsonl", "\n"))
    with pytest.raises(InputError, match="not valid UTF-8") as info:
        load_golden(
            write(tmp_path, "d.jsonl", b'{"query": "q", "expected": []}\n{"query": "\xff"}')
        )
    assert info.value.line == 2
    with pytest.raises(InputError, match="NaN is not a valid JSON number"):
        load_golden(write(tmp_path, "e.jsonl", '{"query": "q", "expected": [], "x": NaN}'))
    with pytest.raises(InputError, match="file not found"):
        load_golden(tmp_path / "missing.jsonl")


def test_golden_directory_with_corpus_and_beir_layout(tmp_path):
    (tmp_path / "g").mkdir()
    write(tmp_path / "g", "golden.jsonl", '{"query": "q", "expected": ["d1"]}\n')
    write(tmp_path / "g", "corpus.jsonl", '{"id": "d1", "text": "hello", "title": "T"}\n')
    golden = load_golden(tmp_path / "g")
    assert golden.corpus["d1"].title == "T"
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    write(beir, "corpus.jsonl", '{"_id": "d1", "title": "", "text": "t"}\n')
    write(beir, "queries.jsonl", '{"_id": "1", "text": "what"}\n{"_id": "2", "text": "who"}\n')
    write(beir / "qrels", "test.tsv", "query-id\tcorpus-id\tscore\n1\td1\t2\n")
    golden = load_golden(beir)
    assert [c.id for c in golden.cases] == ["1"] and golden.cases[0].relevance == {"d1": 2}
    write(beir / "qrels", "dev.tsv", "query-id\tcorpus-id\tscore\n9\td1\t1\n")
    with pytest.raises(InputError, match="not in queries.jsonl") as info:
        load_golden(beir, split="dev")
    assert info.value.line == 2 and info.value.field == "query-id"
    with pytest.raises(InputError, match="no golden set here"):
        load_golden(tmp_path)


def test_trec_run_and_qrels_fast_and_slow_paths_agree(tmp_path):
    body = "q1 Q0 d1 1 2.5 run\nq1 Q0 d2 2 1.5 run\nq2 Q0 d1 1 0.5 run\n"
    fast = read_trec_run(write(tmp_path, "fast.run", body))
    slow = read_trec_run(write(tmp_path, "slow.run", "# comment\n" + body.replace(" ", "\t\t")))
    for run in (fast, slow):
        assert list(run.query_ids) == ["q1", "q2"] and list(run.doc_ids) == ["d1", "d2"]
        assert run.score.tolist() == [2.5, 1.5, 0.5]
    qrels = read_trec_qrels(write(tmp_path, "q.txt", "q1 0 d1 1\nq2 0 d9 0\n"))
    assert list(qrels.query_ids) == ["q1", "q2"] and qrels.label.tolist() == [1, 0]


@pytest.mark.parametrize(
    ("body", "line", "field", "message"),
    [
        ("q1 Q0 d1 1 2.5 run\nq1 Q0 d2 2 run\n", 2, None, "expected 6"),
        ("q1 Q0 d1 1 2.5 run\nq1 Q0 d2 2 abc run\n", 2, "score", "not a number"),
        ("q1 Q0 d1 1 nan run\n", 1, "score", "NaN"),
        ("q1 Q0 d1 1 1e400 run\n", 1, "score", "out of range"),
    ],
)
def test_trec_run_errors(tmp_path, body, line, field, message):
    with pytest.raises(InputError, match=message) as info:
        read_trec_run(write(tmp_path, "r.run", body))
    assert (info.value.line, info.value.field) == (line, field)


def test_trec_qrels_errors(tmp_path):
    with pytest.raises(InputError, match="not an integer") as info:
        read_trec_qrels(write(tmp_path, "a", "q1 0 d1 1\nq1 0 d2 x\n"))
    assert (info.value.line, info.value.field) == (2, "label")
    with pytest.raises(InputError, match="duplicate judgement") as info:
        read_trec_qrels(write(tmp_path, "b", "q1 0 d1 1\nq1 0 d1 0\n"))
    assert info.value.line == 2


def test_jsonl_run_with_and_without_scores(tmp_path):
    path = write(
        tmp_path,
        "run.jsonl",
        '{"query_id": "q1", "retrieved": [{"id": "a", "score": 0.2}, {"id": "b", "score": 0.9}]}\n'
        '{"query_id": "q2", "retrieved": ["x", "y"]}\n',
    )
    run = load_run(path)
    pairs = {
        (run.query_ids[q], run.doc_ids[d]): s
        for q, d, s in zip(run.query, run.doc, run.score, strict=False)
    }
    assert pairs[("q1", "b")] == 0.9 and pairs[("q2", "x")] > pairs[("q2", "y")]


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ('{"retrieved": []}', "query_id", "missing"),
        ('{"query_id": "q", "retrieved": [{"score": 1}]}', "retrieved[0].id", "missing"),
        (
            '{"query_id": "q", "retrieved": [{"id": "a", "score": "hi"}]}',
            "retrieved[0].score",
            "expected int or float",
        ),
        (
            '{"query_id": "q", "retrieved": [{"id": "a", "score": 1}, {"id": "b"}]}',
            "retrieved[1].score",
            "every retrieved item",
        ),
        ('{"query_id": "q", "retrieved": [{"id": "a", "score": Infinity}]}', None, "invalid JSON"),
    ],
)
def test_jsonl_run_errors(tmp_path, line, field, message):
    with pytest.raises(InputError, match=message) as info:
        load_run(write(tmp_path, "run.jsonl", line + "\n"))
    assert info.value.field == field and info.value.line == 1


def test_shipped_golden_sets_load():
    clapnq = load_golden(ROOT / "golden_sets/clapnq")
    assert len(clapnq.cases) == 360 and len(clapnq.corpus) == 597
    assert sum(c.answerable() for c in clapnq.cases) == 180
    handbook = load_golden(ROOT / "golden_sets/handbook")
    assert {"paraphrase", "product-code", "multi-section", "unanswerable", "graded"} <= {
        t for c in handbook.cases for t in c.tags
    }


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(["d", "é", "x" * 20, "d2"])),
        min_size=1,
        max_size=12,
    )
)
def test_qrels_duplicate_check_equals_a_set(tmp_path_factory, pairs):
    path = tmp_path_factory.mktemp("q") / "qrels"
    path.write_text("".join(f"{q} 0 {d} 1\n" for q, d in pairs), encoding="utf-8")
    if len(set(pairs)) < len(pairs):
        with pytest.raises(InputError, match="duplicate judgement"):
            read_trec_qrels(path)
    else:
        assert read_trec_qrels(path).doc.to_pylist() == [d for _, d in pairs]


def test_shipped_golden_sets_load_by_name_from_anywhere(tmp_path, monkeypatch):
    from ragtriage.cli.main import main
    from ragtriage.data.golden import shipped_sets

    monkeypatch.chdir(tmp_path)  # no golden_sets/ here: the names resolve inside the package
    assert {"handbook", "clapnq"} <= set(shipped_sets())
    handbook = load_golden("handbook")
    assert len(handbook.cases) == 16 and handbook.corpus is not None
    assert handbook.content_hash() == load_golden(ROOT / "golden_sets/handbook").content_hash()
    out = tmp_path / "r.json"
    assert (
        main(
            ["retrieval", "--golden", "handbook", "--retriever", "bm25", "--quiet", "-o", str(out)]
        )
        == 0
    )
    # the README's clone path works outside a clone too (a wheel install)
    assert load_golden("golden_sets/handbook").content_hash() == handbook.content_hash()
    with pytest.raises(
        InputError, match="file not found \\(nor a shipped golden set: clapnq, handbook;"
    ):
        load_golden("no-such-set")
    with pytest.raises(InputError, match="file not found"):
        load_golden("elsewhere/handbook")  # another folder's path is not a shipped name


def test_a_local_folder_wins_over_a_shipped_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "handbook").mkdir()
    (tmp_path / "handbook" / "golden.jsonl").write_text(
        '{"id": "x", "query": "q", "expected": []}\n'
    )
    assert [c.id for c in load_golden("handbook").cases] == ["x"]


@pytest.mark.parametrize(
    ("kind", "row", "where"),
    [
        ("golden", {"id": "a\x1b[2J", "query": "q", "expected": ["d"]}, ":1: field 'id'"),
        (
            "golden",
            {"id": "a", "query": "q", "expected": ["d", "x" * 1100]},
            ":1: field 'expected[1]'",
        ),
        (
            "golden",
            {"id": "a", "query": "q", "relevance_grades": {"d\x07": 1}},
            ":1: field 'relevance_grades'",
        ),
        ("corpus", {"id": "d\x1b", "text": "t"}, ":1: field 'id'"),
        ("corpus", {"_id": "d" * 1100, "text": "t"}, ":1: field '_id'"),
    ],
)
def test_bad_ids_are_refused_at_their_file_line_and_field(tmp_path, kind, row, where):
    from ragtriage.data.beir import load_chunks
    from ragtriage.data.golden import load_golden

    path = tmp_path / f"{kind}.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(InputError) as info:
        load_golden(path) if kind == "golden" else load_chunks(path)
    assert f"{path}{where}" in str(info.value)


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"query_id": "q\x1b[2J", "retrieved": ["d"], "answer": "a"}, "query_id"),
        ({"query_id": "q", "retrieved": ["d", "e\x1b"], "answer": "a"}, "retrieved[1]"),
        ({"query_id": "q", "retrieved": [{"id": "e" * 1100}], "answer": "a"}, "retrieved[0].id"),
    ],
)
def test_bad_trace_ids_are_refused_at_their_line(tmp_path, row, field):
    from ragtriage.data.traces import load_traces

    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(InputError) as info:
        load_traces(path, 3)
    assert f"{path}:1: field '{field}'" in str(info.value)


def test_a_run_files_digest_is_blake3_whatever_its_format(tmp_path, capsys):
    """The digest recorded for ``--run`` is the file's BLAKE3 (``b3sum`` prints the same),
    under that name, for a JSONL run and for a TREC run read by parts in parallel."""
    import blake3

    from ragtriage.cli.main import main

    trec_lines = "".join(f"q{q} Q0 d{d} {d + 1} {10 - d} t\n" for q in range(3) for d in range(5))
    files = {
        "run.jsonl": '{"query_id": "q1", "retrieved": ["d1", "d2"]}\n',
        "run.trec": trec_lines,
    }
    qrels = write(tmp_path, "qrels.txt", "q1 0 d1 1\n")
    for name, text in files.items():
        path = write(tmp_path, name, text)
        expected = blake3.blake3(path.read_bytes()).hexdigest()
        assert load_run(path).digest == expected
        out = tmp_path / f"{name}.json"
        args = ["retrieval", "--qrels", str(qrels), "--run", str(path), "-o", str(out), "--quiet"]
        assert main(args) == 0
        run = json.loads(out.read_text(encoding="utf-8"))["run"]
        assert run["blake3"] == expected and "sha256" not in run
