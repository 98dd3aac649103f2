"""Embedded JSON text and OTLP attribute values from outside (issue 52 items 1 and 2).

Built from the mechanisms: JSON text in a span or tool-message field is decoded by one
helper (``data.jsontext``) with a depth limit, and every OTLP ``AnyValue`` by one checked
decoder (``data.formats.otlp_values``). The property tests nest any depth into any of the
fields the three readers decode (single-turn spans, conversation spans, ragas tool
messages) and generate any OTLP value tree, valid or not: each ends in a value or one
:class:`InputError` naming file, line and field, never another exception.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtriage.data.conversation_traces import read_conversation_traces
from ragtriage.data.conversations import load_conversation_golden
from ragtriage.data.formats.otlp_values import decode_any_value
from ragtriage.data.golden import load_golden
from ragtriage.data.jsontext import MAX_DEPTH, NOT_JSON, decode_json_text
from ragtriage.data.traces import read_traces
from ragtriage.errors import InputError
from tests.conftest import ROOT
from tests.support.harness import FIGURES

SCALE = float(os.environ.get("FUZZ_SCALE", "1"))
SETTINGS = settings(
    max_examples=int(25 * SCALE),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
USERS = ROOT / "tests" / "fixtures" / "users"
CONV = ROOT / "tests" / "fixtures" / "conversations"
DEPTHS = st.one_of(st.integers(1, MAX_DEPTH + 5), st.sampled_from([900, 5_000, 100_000]))


def nested(depth: int, kind: str = "list") -> str:
    """JSON text nested ``depth`` deep (lists, or objects ``{"a": ...}``)."""
    if kind == "list":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


# ---- the helper itself ----------------------------------------------------------------


@settings(SETTINGS, max_examples=int(60 * SCALE))
@given(depth=DEPTHS, kind=st.sampled_from(["list", "object"]), lenient=st.booleans())
def test_the_helper_decodes_below_the_limit_and_refuses_above_it(depth, kind, lenient):
    text = nested(depth, kind)
    if depth <= MAX_DEPTH:
        assert decode_json_text(text, path="f", line=3, field="x", lenient=lenient) == json.loads(
            text
        )
        return
    with pytest.raises(InputError, match=f"nested more than {MAX_DEPTH}") as found:
        decode_json_text(text, path="f.jsonl", line=3, field="output.value", lenient=lenient)
    assert (found.value.path, found.value.line, found.value.field) == ("f.jsonl", 3, "output.value")


def test_lenient_text_that_is_not_json_stays_text_strict_is_refused():
    assert decode_json_text("{an answer", path="f", line=1, field="x", lenient=True) is NOT_JSON
    with pytest.raises(InputError, match="not valid JSON"):
        decode_json_text("{an answer", path="f", line=1, field="document.metadata")


# ---- the three readers ----------------------------------------------------------------


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write(path: Path, rows: list[dict], index: int, spliced: str) -> int:
    """Rows as JSONL with the marker in row ``index`` replaced by raw JSON text (a
    string whose content is ``spliced``); returns the edited line."""
    lines = [json.dumps(r) for r in rows]
    lines[index] = lines[index].replace('"<MARK>"', json.dumps(spliced))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return index + 1


def _outcome(read, path: Path, line: int, field: str, deep: bool):
    """The reader's result or one InputError at the edited line (a shallow value may be
    refused for its shape); a refusal of a value past the limit names the field."""
    try:
        read(path)
    except InputError as exc:
        assert exc.path == str(path) and exc.line == line, str(exc)
        if "nested" in exc.message:
            assert deep and field in (exc.field or ""), str(exc)
        return exc
    return None


SPAN_FIELDS = ["output.value", "input.value", "metadata", "document.metadata"]


def _span_edit(row: dict, field: str) -> dict | None:
    attrs = row.get("attributes") or {}
    if field == "document.metadata":
        keys = [k for k in attrs if k.endswith(".document.metadata")]
        if not keys:
            return None
        return {**row, "attributes": {**attrs, keys[0]: "<MARK>"}}
    if field not in attrs:
        return None
    return {**row, "attributes": {**attrs, field: "<MARK>"}}


@pytest.mark.parametrize("reader", ["single-turn", "conversation"])
@settings(SETTINGS)
@given(
    index=st.integers(0, 300),
    field=st.sampled_from(SPAN_FIELDS),
    depth=DEPTHS,
    kind=st.sampled_from(["list", "object"]),
)
def test_span_readers_decode_embedded_json_with_a_depth_limit(
    tmp_path_factory, reader, index, field, depth, kind
):
    if reader == "single-turn":
        source, golden = USERS / "langchain_spans.jsonl", load_golden(USERS / "handbook")

        def read(p):
            return read_traces(p, 3, golden)
    else:
        source = CONV / "langchain_sessions.jsonl"
        conv_golden = load_conversation_golden(CONV / "conversations.jsonl")

        def read(p):
            return read_conversation_traces(p, 3, conv_golden)

    rows = _rows(source)
    candidates = [i for i, r in enumerate(rows) if _span_edit(r, field) is not None]
    if not candidates:
        return
    i = candidates[index % len(candidates)]
    rows[i] = _span_edit(rows[i], field)
    path = tmp_path_factory.mktemp("spans") / source.name
    line = _write(path, rows, i, nested(depth, kind))
    FIGURES[f"embedded JSON: {reader} spans"] += 1
    _outcome(read, path, line, field, depth > MAX_DEPTH)


def test_a_deep_root_output_value_is_refused_naming_the_field(tmp_path):
    """The issue's instance: a chain's ``output.value`` 60,000 deep."""
    rows = _rows(USERS / "langchain_spans.jsonl")
    i = next(
        i
        for i, r in enumerate(rows)
        if r.get("parent_id") is None and "output.value" in r.get("attributes", {})
    )
    rows[i]["attributes"]["output.value"] = "<MARK>"
    path = tmp_path / "spans.jsonl"
    line = _write(path, rows, i, nested(60_000, "object"))
    with pytest.raises(InputError) as found:
        read_traces(path, 3, load_golden(USERS / "handbook"))
    assert (found.value.line, found.value.field) == (line, "output.value")


@settings(SETTINGS)
@given(index=st.integers(0, 30), depth=DEPTHS, kind=st.sampled_from(["list", "object"]))
def test_ragas_tool_messages_decode_with_a_depth_limit(tmp_path_factory, index, depth, kind):
    rows = _rows(CONV / "ragas_multiturn.jsonl")
    row = index % len(rows)
    tools = [j for j, m in enumerate(rows[row]["user_input"]) if m.get("type") == "tool"]
    j = tools[index % len(tools)]
    rows[row]["user_input"][j]["content"] = "<MARK>"
    path = tmp_path_factory.mktemp("ragas") / "ragas.jsonl"
    text = nested(depth, "list") if kind == "list" else "[" + nested(depth, "object") + "]"
    line = _write(path, rows, row, text)
    FIGURES["embedded JSON: ragas tool messages"] += 1
    golden = load_conversation_golden(CONV / "conversations.jsonl")
    deep = depth + (kind == "object") > MAX_DEPTH  # the object form sits in a list
    exc = _outcome(lambda p: read_conversation_traces(p, 3, golden), path, line, "content", deep)
    if deep:
        assert exc is not None and "nested" in exc.message, exc
        assert exc.field == f"user_input[{j}].content"


# ---- OTLP values ----------------------------------------------------------------------


def _valid() -> st.SearchStrategy:
    """(AnyValue, the Python value it means), nesting arrays and kvlists."""
    leaves = st.one_of(
        st.text(max_size=5).map(lambda s: ({"stringValue": s}, s)),
        st.booleans().map(lambda b: ({"boolValue": b}, b)),
        st.integers(-(2**63), 2**63 - 1).map(lambda n: ({"intValue": str(n)}, n)),
        st.floats(allow_nan=False).map(lambda x: ({"doubleValue": x}, x)),
        st.just(({}, None)),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3).map(
                lambda items: (
                    {"arrayValue": {"values": [v for v, _ in items]}},
                    [p for _, p in items],
                )
            ),
            st.dictionaries(st.text(max_size=3), inner, max_size=3).map(
                lambda d: (
                    {
                        "kvlistValue": {
                            "values": [{"key": k, "value": v} for k, (v, _) in d.items()]
                        }
                    },
                    {k: p for k, (_, p) in d.items()},
                )
            ),
        ),
        max_leaves=8,
    )


HOSTILE_VALUES = st.sampled_from(
    [
        {"intValue": "not-a-number"},
        {"intValue": "9" * 5_000},
        {"intValue": str(2**63)},
        {"intValue": 1.5},
        {"intValue": True},
        {"intValue": None},
        {"arrayValue": [{"stringValue": "a"}]},
        {"arrayValue": {"values": {"stringValue": "a"}}},
        {"arrayValue": None},
        {"kvlistValue": [{"key": "a", "value": {"stringValue": "b"}}]},
        {"kvlistValue": {"values": [{"value": {"stringValue": "b"}}]}},
        {"bytesValue": "%%%"},
        {"bytesValue": 12},
        {"doubleValue": "many"},
        {"doubleValue": [1]},
        {"stringValue": 5},
        {"boolValue": "true"},
        {"madeUpValue": 1},
        {"stringValue": "a", "intValue": "1"},
        "a string",
        [],
        None,
    ]
)


def _deep_array(depth: int) -> dict:
    value: dict = {"stringValue": "x"}
    for _ in range(depth):
        value = {"arrayValue": {"values": [value]}}
    return value


@settings(SETTINGS, max_examples=int(150 * SCALE))
@given(pair=_valid())
def test_every_valid_otlp_value_decodes_to_what_it_means(pair):
    value, meant = pair
    assert decode_any_value(value, path="f", line=1, field="a") == meant


@settings(SETTINGS, max_examples=int(100 * SCALE))
@given(bad=HOSTILE_VALUES, wrap=st.integers(0, 3))
def test_every_hostile_otlp_value_is_one_refusal_naming_the_attribute(bad, wrap):
    value = bad
    for _ in range(wrap):
        value = {"arrayValue": {"values": [{"stringValue": "ok"}, value]}}
    with pytest.raises(InputError) as found:
        decode_any_value(value, path="spans.json", line=4, field="attributes[k]")
    assert found.value.line == 4 and found.value.field.startswith("attributes[k]")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 5_000])
def test_otlp_nesting_past_the_limit_is_refused(depth):
    with pytest.raises(InputError, match="nested more than"):
        decode_any_value(_deep_array(depth), path="f", line=1, field="a")
    assert decode_any_value(_deep_array(MAX_DEPTH - 1), path="f", line=1, field="a")


@pytest.mark.parametrize(
    "bad",
    [{"intValue": "not-a-number"}, {"intValue": "9" * 5_000}, {"arrayValue": [{"intValue": "1"}]}],
)
def test_the_issue_otlp_values_refuse_through_the_trace_reader(tmp_path, bad):
    request = json.loads((USERS / "langchain_otlp.jsonl").read_text())
    span = request["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["attributes"].append({"key": "llm.token_count.total", "value": bad})
    path = tmp_path / "otlp.jsonl"
    path.write_text(json.dumps(request) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as found:
        read_traces(path, 3, load_golden(USERS / "handbook"))
    assert found.value.line == 1
    assert found.value.field.startswith("attributes[llm.token_count.total]")


@pytest.mark.parametrize("parent", [[1], {"a": 1}, 5, True])
def test_an_otlp_parent_span_id_of_any_type_is_text(tmp_path, parent):
    """A list there was looked up in a set of span ids: a TypeError escaped."""
    request = json.loads((USERS / "langchain_otlp.jsonl").read_text())
    request["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["parentSpanId"] = parent
    path = tmp_path / "otlp.jsonl"
    path.write_text(json.dumps(request) + "\n", encoding="utf-8")
    read_traces(path, 3, load_golden(USERS / "handbook"))
