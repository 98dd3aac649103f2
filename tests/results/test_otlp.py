"""An audit's verdicts back on its traces (issue 51 item 3): ``ragtriage export`` writes
``gen_ai.evaluation.result`` events as OTLP/JSON, parsed here by the OpenTelemetry
protobuf classes (``opentelemetry-proto``, the test extra), each on the root span of the
trace its answer came from, and the Phoenix span-annotations body for the same spans.

Without opentelemetry-proto the parse test is skipped; ``RAGTRIAGE_REQUIRE_OTLP=1`` (CI
sets it) turns that skip into a failure."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from ragtriage.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
FORMATS = ROOT / "tests" / "fixtures" / "formats"
GOLDEN = FORMATS / "ragas_ids.jsonl"


def _proto():
    try:
        from google.protobuf import json_format
        from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
    except ImportError:
        if os.environ.get("RAGTRIAGE_REQUIRE_OTLP") == "1":
            raise
        pytest.skip("opentelemetry-proto is not installed (pip install -e '.[test]')")
    return json_format, logs_service_pb2


def _spans(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _roots(path: Path) -> dict[str, str]:
    """trace id -> root span id, hex without 0x, from the SDK's span.to_json() lines."""
    return {
        s["context"]["trace_id"][2:]: s["context"]["span_id"][2:]
        for s in _spans(path)
        if s["parent_id"] is None
    }


@pytest.fixture(scope="module", params=["genai_spans.jsonl", "openinference_spans.jsonl"])
def exported(request, tmp_path_factory):
    spans = FORMATS / request.param
    out = tmp_path_factory.mktemp("audit")
    code = main(["audit", "--golden", str(GOLDEN), "--traces", str(spans), "--judge", "lexical",
                 "--out", str(out / "a")])  # fmt: skip
    assert code == 0
    code = main(["export", str(out / "a" / "results.json"), "--traces", str(spans),
                 "--otlp-out", str(out / "verdicts.json"),
                 "--phoenix-out", str(out / "annotations.json")])  # fmt: skip
    assert code == 0
    results = json.loads((out / "a" / "results.json").read_text())
    return spans, results, out / "verdicts.json", out / "annotations.json"


def _otlp_ids_as_protobuf_json(data: dict) -> dict:
    """OTLP/JSON writes trace and span ids as hex; protobuf's JSON mapping reads bytes as
    base64 (the one difference the OTLP specification names): convert before parsing."""
    for resource in data["resourceLogs"]:
        for scope in resource["scopeLogs"]:
            for record in scope["logRecords"]:
                for key in ("traceId", "spanId"):
                    record[key] = base64.b64encode(bytes.fromhex(record[key])).decode()
    return data


def test_otlp_output_parses_with_the_opentelemetry_proto_classes(exported):
    json_format, logs_service_pb2 = _proto()
    spans, results, verdicts, _ = exported
    data = _otlp_ids_as_protobuf_json(json.loads(verdicts.read_text()))
    request = json_format.Parse(json.dumps(data), logs_service_pb2.ExportLogsServiceRequest())
    (resource,) = request.resource_logs
    (scope,) = resource.scope_logs
    assert scope.scope.name == "ragtriage"
    records = list(scope.log_records)
    cases = {c["case_id"]: c for c in results["cases"]}
    assert len(records) == len(cases) == 4
    roots = _roots(spans)
    for record in records:
        attrs = {a.key: a.value for a in record.attributes}
        case = cases[attrs["ragtriage.case_id"].string_value]
        assert record.event_name == "gen_ai.evaluation.result"
        assert len(record.trace_id) == 16 and len(record.span_id) == 8
        assert roots[record.trace_id.hex()] == record.span_id.hex()  # the answer's root span
        assert attrs["gen_ai.evaluation.name"].string_value == "faithfulness"
        label = attrs["gen_ai.evaluation.score.label"].string_value
        if case["faithful"] is not None:
            assert label == ("faithful" if case["faithful"] else "unfaithful")
        else:  # why there is no verdict: here the judge's outcome (an abstention)
            assert label == case["judge"]["outcome"] != "scored"
        if case["judge"] and case["judge"]["score"] is not None:
            assert attrs["gen_ai.evaluation.score.value"].double_value == case["judge"]["score"]
        assert attrs["ragtriage.triage.label"].string_value == case["label"]
        assert attrs["gen_ai.evaluation.explanation"].string_value == case["reason"]


def test_each_verdict_is_on_the_span_of_its_own_query(exported):
    spans, results, verdicts, annotations = exported
    queries = {}
    by_id = {s["context"]["span_id"][2:]: s for s in _spans(spans)}
    for span in by_id.values():
        attrs = span["attributes"]
        query = attrs.get("input.value") or attrs.get("gen_ai.retrieval.query.text")
        if query:
            queries.setdefault(span["context"]["trace_id"][2:], query)
    roots = _roots(spans)
    body = json.loads(annotations.read_text())["data"]
    cases = {c["case_id"]: c for c in results["cases"]}
    assert {a["name"] for a in body} == {"ragtriage.faithfulness", "ragtriage.triage"}
    for annotation in body:
        case = cases[annotation["metadata"]["case_id"]]
        trace = next(t for t, s in roots.items() if s == annotation["span_id"])
        assert queries[trace] == case["query"]
        if annotation["name"] == "ragtriage.triage":
            assert annotation["result"]["label"] == case["label"]


def test_cases_without_a_trace_are_named_not_dropped(tmp_path, capsys, exported):
    spans, _, _, _ = exported
    lines = spans.read_text().splitlines()
    first_trace = json.loads(lines[0])["context"]["trace_id"]
    fewer = tmp_path / "fewer.jsonl"
    fewer.write_text("\n".join(x for x in lines if first_trace not in x) + "\n")
    results = exported[1]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results))
    code = main(["export", str(path), "--traces", str(fewer), "--otlp-out",
                 str(tmp_path / "v.json")])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "3 verdicts linked" in out and "1 cases have no trace" in out


def test_export_without_an_output_is_refused(tmp_path, capsys, exported):
    code = main(["export", str(tmp_path / "results.json"), "--traces", str(exported[0])])
    assert code == 2
    assert "nothing to write" in capsys.readouterr().err
