"""Spans under the OpenTelemetry GenAI semantic conventions, written by the OpenTelemetry
SDK (tests/fixtures/formats/make_genai_span_fixtures.py), read beside OpenInference
(issue 51 item 3): the ``gen_ai.retrieval`` span's documents and query, the ``chat``
span's answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtriage.data.formats.detect import trace_rows
from ragtriage.errors import InputError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
SPANS = FIXTURES / "genai_spans.jsonl"


def test_genai_retrieval_spans_are_traces():
    adapted = trace_rows(SPANS)
    assert adapted.format == "openinference-jsonl"
    records = [r for _, r in adapted.records]
    assert [r["query"] for r in records][:2] == [
        "How many days of annual leave do employees get?",
        "When must expense reports be filed?",
    ]
    first = records[0]
    assert [(d["id"], d["score"]) for d in first["retrieved"]] == [("c1", 0.9), ("c2", 0.8)]
    assert first["retrieved"][0]["text"].startswith("Employees accrue 25 days")
    assert first["answer"] == "Employees accrue 25 days of paid annual leave per year."


def test_documents_as_a_structured_list_read_as_the_json_string(tmp_path):
    lines = []
    for line in SPANS.read_text().splitlines():
        span = json.loads(line)
        docs = span["attributes"].get("gen_ai.retrieval.documents")
        if docs:  # the structured form the conventions prefer (flattened by the reader)
            span["attributes"]["gen_ai.retrieval.documents"] = json.loads(docs)
        lines.append(json.dumps(span))
    path = tmp_path / "structured.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert trace_rows(path).records == trace_rows(SPANS).records


def test_documents_that_are_not_json_name_line_and_field(tmp_path):
    lines = SPANS.read_text().splitlines()
    span = json.loads(lines[0])
    assert "gen_ai.retrieval.documents" in span["attributes"]
    span["attributes"]["gen_ai.retrieval.documents"] = "[{not json"
    lines[0] = json.dumps(span)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        trace_rows(path)
    assert str(err.value).startswith(f"{path}:1: field 'gen_ai.retrieval.documents'")
