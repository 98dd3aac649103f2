"""Foreign formats read into our golden cases, traces, runs and grades (issue 17).

The ragas and span files under tests/fixtures/formats were written by the real tools
(see the README there); CSV, Parquet and odd shapes are written here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ragtriage.calibration.grades import read_grades
from ragtriage.data.containers import read_table
from ragtriage.data.formats.columns import parse_columns
from ragtriage.data.formats.text import text_id
from ragtriage.data.golden import load_golden
from ragtriage.data.runs import load_run
from ragtriage.data.traces import read_traces
from ragtriage.errors import InputError
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "formats"
CHUNKS = {
    "c1": "Employees accrue 25 days of paid annual leave per year.",
    "c2": "The office is closed on public holidays.",
    "c3": "Expense reports must be filed within 30 days of purchase.",
    "c4": "Laptops are replaced every three years.",
    "c5": "Parking permits are issued by the facilities team.",
}
EXPECTED = [["c1"], ["c3"], ["c4"], []]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["ragas_ids.jsonl", "ragas_ids.csv", "ragas_ids.parquet"])
def test_ragas_files_with_ids_read_as_a_golden_set(name):
    golden = load_golden(FIXTURES / name)
    assert golden.format == "ragas-" + name.rsplit(".", 1)[1]
    assert [c.expected() for c in golden.cases] == EXPECTED
    assert golden.cases[0].reference_answer == "25 days per year."
    assert golden.cases[3].reference_answer is None
    assert golden.notes == []


@pytest.mark.parametrize("name", ["ragas_texts.jsonl", "ragas_texts.csv"])
def test_ragas_texts_only_get_hashed_ids_and_a_note(name):
    golden = load_golden(FIXTURES / name)
    assert [c.expected() for c in golden.cases] == [
        [text_id(CHUNKS[i]) for i in ids] for ids in EXPECTED
    ]
    assert "3 of 4 golden rows" in golden.notes[0]
    traces = read_traces(FIXTURES / name, 3, golden).traces
    first = traces[golden.cases[0].id]
    assert [c.id for c in first.retrieved] == [text_id(CHUNKS["c1"]), text_id(CHUNKS["c2"])]


def test_text_ids_ignore_case_and_spacing():
    assert text_id("Laptops  are replaced\nevery three years. ") == text_id(CHUNKS["c4"].upper())


@pytest.mark.parametrize("name", ["ragas_ids.jsonl", "ragas_ids.csv", "ragas_ids.parquet"])
def test_ragas_rows_as_traces_match_golden_queries(name):
    golden = load_golden(FIXTURES / name)
    read = read_traces(FIXTURES / name, 1, golden)
    assert read.format.startswith("ragas-")
    assert set(read.traces) == {c.id for c in golden.cases}
    trace = read.traces[golden.cases[0].id]
    assert [c.id for c in trace.retrieved] == ["c1", "c2"]
    assert trace.context_ids == ["c1", "c2"]  # ragas: the retrieved contexts are the context
    assert trace.retrieved[0].text == CHUNKS["c1"]
    assert trace.answer.startswith("Employees accrue")


def test_old_ragas_column_names(tmp_path):
    rows = [
        {
            "question": "How often are laptops replaced?",
            "contexts": [CHUNKS["c4"]],
            "answer": "Every three years.",
            "ground_truth": "Every three years.",
            "reference_contexts": [CHUNKS["c4"]],
        }
    ]
    path = _write_jsonl(tmp_path / "old.jsonl", rows)
    golden = load_golden(path)
    assert golden.format == "ragas-jsonl"
    assert golden.cases[0].expected() == [text_id(CHUNKS["c4"])]
    assert golden.cases[0].reference_answer == "Every three years."
    trace = read_traces(path, 3, golden).traces[golden.cases[0].id]
    assert trace.answer == "Every three years."


def test_ragas_golden_row_without_reference_contexts_names_row_and_field(tmp_path):
    path = _write_jsonl(
        tmp_path / "g.jsonl",
        [
            {"user_input": "a?", "reference_contexts": []},
            {"user_input": "b?", "response": "x"},
        ],
    )
    with pytest.raises(InputError, match=r"g\.jsonl:2: field 'reference_context_ids'"):
        load_golden(path)


def test_ragas_ids_and_texts_of_different_lengths_are_an_error(tmp_path):
    path = _write_jsonl(
        tmp_path / "t.jsonl",
        [{"user_input": "a?", "retrieved_contexts": ["x"], "retrieved_context_ids": ["1", "2"]}],
    )
    with pytest.raises(InputError, match="retrieved_context_ids"):
        read_traces(path, 3)


def test_our_golden_set_as_csv_and_parquet_equals_the_jsonl(tmp_path):
    rows = [
        {"id": "a", "query": "first?", "expected": ["c1", "c2"], "tags": ["x"]},
        {"id": "b", "query": "second?", "expected": []},
    ]
    jsonl = load_golden(_write_jsonl(tmp_path / "g.jsonl", rows))
    csv_path = tmp_path / "g.csv"
    pd.DataFrame(
        [{**r, "expected": json.dumps(r["expected"]), "tags": json.dumps(r.get("tags", []))}
         for r in rows]
    ).to_csv(csv_path, index=False)  # fmt: skip
    parquet_path = tmp_path / "g.parquet"
    pd.DataFrame(rows).to_parquet(parquet_path, index=False)
    for path, kind in ((csv_path, "ragtriage-csv"), (parquet_path, "ragtriage-parquet")):
        golden = load_golden(path)
        assert golden.format == kind
        assert golden.content_hash() == jsonl.content_hash()


def test_column_mapping_reads_other_names(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text('prompt,gold_ids\nfirst?,"[""c1""]"\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"g\.csv:2: field 'query'.*no known golden-set shape"):
        load_golden(path)
    golden = load_golden(path, columns="query=prompt,expected=gold_ids")
    assert golden.cases[0].query == "first?"
    assert golden.cases[0].expected() == ["c1"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [("query", "OURS=THEIRS"), ("querry=q", "not a field"), ("query=a,query=b", "twice")],
)
def test_bad_column_mappings_name_the_option(spec, message):
    with pytest.raises(InputError, match=message) as caught:
        parse_columns(spec)
    assert caught.value.field == "--columns"


def test_unknown_trace_shape_names_file_row_and_field(tmp_path):
    path = _write_jsonl(tmp_path / "t.jsonl", [{"qid": "a", "docs": ["x"], "answer": "y"}])
    with pytest.raises(InputError, match=r"t\.jsonl:1: field 'query_id'.*no known trace shape"):
        read_traces(path, 3)


def test_csv_list_cells_as_json_or_python_literals(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(
        "query_id,retrieved,answer\n"
        'a,"[""c1"", ""c2""]",[1] An answer starting with a bracket\n'
        "b,\"['c3']\",plain\n",
        encoding="utf-8",
    )
    read = read_traces(path, 1)
    assert read.format == "ragtriage-csv"
    assert [c.id for c in read.traces["a"].retrieved] == ["c1", "c2"]
    assert read.traces["a"].answer == "[1] An answer starting with a bracket"
    assert read.traces["b"].context_ids == ["c3"]


def test_format_is_detected_by_content_not_suffix(tmp_path):
    parquet = tmp_path / "traces.txt"
    pd.DataFrame([{"query_id": "a", "retrieved": ["c1"], "answer": "x"}]).to_parquet(parquet)
    assert read_table(parquet).container == "parquet"
    assert read_traces(parquet, 1).format == "ragtriage-parquet"


# --- OpenInference ------------------------------------------------------------------

SPANS = FIXTURES / "openinference_spans.jsonl"


def _golden(tmp_path: Path) -> Path:
    rows = [
        {"id": f"row{n}", "query": c["user_input"], "expected": c["reference_context_ids"]}
        for n, c in enumerate(
            json.loads(line) for line in (FIXTURES / "ragas_ids.jsonl").read_text().splitlines()
        )
    ]
    return _write_jsonl(tmp_path / "golden.jsonl", rows)


def test_openinference_span_export_reads_as_traces(tmp_path):
    golden = load_golden(_golden(tmp_path))
    read = read_traces(SPANS, 1, golden)
    assert read.format == "openinference-jsonl"
    matched = {k: v for k, v in read.traces.items() if not k.startswith("trace:")}
    assert set(matched) == {"row0", "row1", "row2", "row3"}
    unmatched = [k for k in read.traces if k.startswith("trace:")]
    assert len(unmatched) == 1  # the question no golden case asks
    first = read.traces["row0"]
    assert [(c.id, c.score) for c in first.retrieved] == [("c1", 1.0), ("c2", 0.9)]
    assert first.retrieved[1].text == CHUNKS["c2"]
    assert first.context_ids == ["c1"]  # the top --context-k
    assert first.answer.startswith("Employees accrue")
    assert any("1 traces skipped (no RETRIEVER span)" in n for n in read.notes)
    assert any("4 traces matched" in n and "1 matched none" in n for n in read.notes)


def test_openinference_match_by_metadata_id(tmp_path):
    rows = [{"id": "row0", "query": "a question worded differently", "expected": ["c1"]}]
    golden = load_golden(_write_jsonl(tmp_path / "g.jsonl", rows))
    read = read_traces(SPANS, 3, golden, columns="query_id=case")
    assert [c.id for c in read.traces["row0"].retrieved] == ["c1", "c2"]


@pytest.mark.parametrize("flattened", [False, True])
def test_openinference_document_ids_in_metadata_as_langchain_writes_them(tmp_path, flattened):
    # LangChain's instrumentor writes no document.id/score, only document.metadata (a JSON
    # string): the ids were text hashes that matched no corpus id, and recall read 0
    moved = []
    for line in SPANS.read_text().splitlines():
        span = json.loads(line)
        attrs = span["attributes"]
        for key in [k for k in attrs if k.endswith(".document.id")]:
            stem = key.removesuffix(".id")
            meta = {"id": attrs.pop(key), "score": attrs.pop(f"{stem}.score"), "src": "wiki"}
            if flattened:
                attrs.update({f"{stem}.metadata.{k}": v for k, v in meta.items()})
            else:
                attrs[f"{stem}.metadata"] = json.dumps(meta)
        moved.append(span)
    spans = _write_jsonl(tmp_path / "spans.jsonl", moved)
    read = read_traces(spans, 1, load_golden(_golden(tmp_path)))
    assert [(c.id, c.score) for c in read.traces["row0"].retrieved] == [("c1", 1.0), ("c2", 0.9)]
    assert not any("hashes" in n for n in read.notes)


def _phoenix_frame() -> pd.DataFrame:
    """The spans in the layout of Phoenix's ``get_spans_dataframe()``: one row per span,
    indexed by ``context.span_id``, attributes as ``attributes.*`` columns, documents and
    messages as lists of ``{"document.id": ...}`` objects, metadata as an object."""
    rows = []
    for line in SPANS.read_text().splitlines():
        span = json.loads(line)
        attrs = span["attributes"]
        row = {
            "context.span_id": span["context"]["span_id"],
            "context.trace_id": span["context"]["trace_id"],
            "name": span["name"],
            "span_kind": attrs["openinference.span.kind"],
            "parent_id": span["parent_id"],
            "start_time": pd.Timestamp(span["start_time"]),
            "status_code": "OK",
            "attributes.openinference.span.kind": attrs["openinference.span.kind"],
            "attributes.input.value": attrs.get("input.value"),
            "attributes.output.value": attrs.get("output.value"),
        }
        docs = {}
        for key, value in attrs.items():
            if key.startswith("retrieval.documents."):
                n, _, field = key.removeprefix("retrieval.documents.").partition(".")
                docs.setdefault(int(n), {})[field] = value
        if docs:
            row["attributes.retrieval.documents"] = [docs[n] for n in sorted(docs)]
        if "metadata" in attrs:
            row["attributes.metadata"] = json.loads(attrs["metadata"])
        rows.append(row)
    return pd.DataFrame(rows).set_index("context.span_id")


def test_phoenix_spans_dataframe_as_parquet(tmp_path):
    path = tmp_path / "spans.parquet"
    _phoenix_frame().to_parquet(path)
    golden = load_golden(_golden(tmp_path))
    read = read_traces(path, 1, golden)
    assert read.format == "openinference-parquet"
    assert [(c.id, c.score) for c in read.traces["row0"].retrieved] == [("c1", 1.0), ("c2", 0.9)]
    assert read.traces["row2"].answer.startswith("Laptops are replaced every month")
    by_metadata = read_traces(path, 1, golden, columns="query_id=case")
    assert set(by_metadata.traces) == {"row0", "row1", "row2", "row3", "row4"}


def test_otlp_json_layout(tmp_path):
    """The collector's file exporter: one ExportTraceServiceRequest per line."""

    def attr(key, value):
        kind = "doubleValue" if isinstance(value, float) else "stringValue"
        return {"key": key, "value": {kind: value}}

    spans = [
        {
            "traceId": "t1",
            "spanId": "s1",
            "attributes": [
                attr("openinference.span.kind", "CHAIN"),
                attr("input.value", "first?"),
                attr("output.value", "the answer"),
            ],
        },
        {
            "traceId": "t1",
            "spanId": "s2",
            "parentSpanId": "s1",
            "attributes": [
                attr("openinference.span.kind", "RETRIEVER"),
                attr("retrieval.documents.0.document.id", "c9"),
                attr("retrieval.documents.0.document.score", 0.5),
            ],
        },
    ]
    request = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    path = _write_jsonl(tmp_path / "otlp.jsonl", [request])
    golden = load_golden(
        _write_jsonl(tmp_path / "g.jsonl", [{"id": "a", "query": "First?", "expected": ["c9"]}])
    )
    trace = read_traces(path, 3, golden).traces["a"]
    assert [(c.id, c.score) for c in trace.retrieved] == [("c9", 0.5)]
    assert trace.answer == "the answer"


def test_a_span_export_given_as_golden_set_is_refused():
    with pytest.raises(InputError, match="span export"):
        load_golden(SPANS)


# --- runs and grades ------------------------------------------------------------------


def test_runs_as_csv_and_parquet(tmp_path):
    jsonl = _write_jsonl(
        tmp_path / "run.jsonl",
        [{"query_id": "a", "retrieved": [{"id": "c1", "score": 2.0}, {"id": "c2", "score": 1.0}]}],
    )
    long_csv = tmp_path / "run.csv"
    long_csv.write_text("query_id,doc_id,score\na,c2,1.0\na,c1,2\n", encoding="utf-8")
    wide_parquet = tmp_path / "run.parquet"
    pd.DataFrame(
        [{"query_id": "a", "retrieved": [{"id": "c1", "score": 2.0}, {"id": "c2", "score": 1.0}]}]
    ).to_parquet(wide_parquet)
    ranked = tmp_path / "rank.parquet"
    pd.DataFrame({"query_id": ["a", "a"], "doc_id": ["c1", "c2"], "rank": [1, 2]}).to_parquet(
        ranked
    )
    want = load_run(jsonl)
    for path in (long_csv, wide_parquet, ranked):
        run = load_run(path)
        order = run.doc_strings(run.score.argsort()[::-1])
        assert order == want.doc_strings(want.score.argsort()[::-1]) == ["c1", "c2"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "query_id,doc_id,score,rank\na,c2,0.5,\na,c1,,1\n",
            "run.csv:3: field 'score': missing, though line 2 has one: every row of a run has "
            "a score, or every row a rank",
        ),
        (
            "query_id,doc_id,score,rank\na,c1,,1\na,c2,0.5,\n",
            "run.csv:3: field 'rank': missing, though line 2 has one",
        ),
        (
            "query_id,doc_id,rank\na,c1,1\na,c2,0\n",
            "run.csv:3: field 'rank': must be an integer >= 1, got 0",
        ),
        (
            "query_id,doc_id,rank\na,c1,-1\n",
            "run.csv:2: field 'rank': must be an integer >= 1, got -1",
        ),
        (
            "query_id,doc_id,rank\na,c1,1.5\n",
            "run.csv:2: field 'rank': must be an integer >= 1, got 1.5",
        ),
        (
            "query_id,doc_id,rank\na,c1,1\nb,c1,1\na,c2,1\n",
            "run.csv:4: field 'rank': rank 1 of query 'a' already given on line 2",
        ),
    ],
)
def test_a_chunk_row_run_mixing_scores_and_ranks_or_with_bad_ranks_is_refused(
    body, expected, tmp_path
):
    """A score and ``-rank`` on one scale put the rank-1 chunk (-1) below a 0.5 score;
    rank 0, -1 and 1.5 rank nothing, and two rank-1 chunks leave the order to chance."""
    path = tmp_path / "run.csv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_run(path)
    assert str(info.value).startswith(str(tmp_path / expected.split(":")[0]))
    assert expected.split("run.csv")[1] in str(info.value)


def test_a_whole_number_rank_written_as_a_float_ranks(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("query_id,doc_id,rank\na,c2,2.0\na,c1,1\n", encoding="utf-8")
    run = load_run(path)
    assert run.doc_strings(run.score.argsort()[::-1]) == ["c1", "c2"]
    assert not run.scored


def test_grades_as_parquet(tmp_path):
    rows = [
        {"id": "a", "label": True, "contexts": ["x", "y"], "answer": "z"},
        {"id": "b", "label": False},
    ]
    path = tmp_path / "grades.parquet"
    pd.DataFrame(rows).to_parquet(path)
    grades = read_grades(path, "d")
    assert [(g.id, g.label, g.contexts) for g in grades] == [
        ("a", True, ("x", "y")),
        ("b", False, ()),
    ]


def test_ragas_texts_take_the_corpus_ids_of_the_same_text(tmp_path):
    # a ragas dataset of texts only, against a golden set with a corpus: the passages'
    # hash ids matched no corpus id and every retrieval metric read 0
    folder = tmp_path / "set"
    folder.mkdir()
    _write_jsonl(folder / "corpus.jsonl", [{"id": k, "text": v} for k, v in CHUNKS.items()])
    question = "How many days of annual leave do employees get?"
    _write_jsonl(folder / "golden.jsonl", [{"id": "q1", "query": question, "expected": ["c1"]}])
    row = {
        "user_input": question,
        "retrieved_contexts": [CHUNKS["c2"], "  " + CHUNKS["c1"].upper(), "not in the corpus"],
        "response": "25 days.",
    }
    traces = _write_jsonl(tmp_path / "ragas.jsonl", [row])
    read = read_traces(traces, 3, load_golden(folder))
    trace = read.traces["q1"]
    assert [c.id for c in trace.retrieved][:2] == ["c2", "c1"]  # normalised text matched
    assert trace.retrieved[2].id == text_id("not in the corpus")
    assert trace.context_ids[:2] == ["c2", "c1"]
    assert "2 retrieved passages without a corpus id" in read.assumptions["ids_by_text"]


def test_a_query_matches_with_or_without_its_question_mark():
    from ragtriage.data.formats.text import QueryIndex

    index = QueryIndex([("a", "who trained the army at valley forge"), ("b", "What is X?")])
    assert index.find("Who trained the army at Valley Forge?") == "a"
    assert index.find("what is x") == "b"
    assert index.find("what is y?") is None
