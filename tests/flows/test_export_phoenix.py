"""``ragtriage export --phoenix-url`` against a real Phoenix server on 127.0.0.1 (issue 51
item 3): the GenAI-convention spans of tests/fixtures/formats/genai_spans.jsonl are sent
to it over OTLP (protobuf, ``opentelemetry-proto``), the audit of those traces is
exported, and Phoenix's own span-annotations API then holds each case's verdict on the
root span of its trace.

Phoenix (``arize-phoenix``, the ``phoenix`` extra) pins many packages of its own, so it
runs from an interpreter of its own: ``RAGTRIAGE_PHOENIX_PYTHON`` (``.ci/run`` makes that
venv), else this interpreter when it has Phoenix. Without one the test is skipped;
``RAGTRIAGE_REQUIRE_PHOENIX=1`` (CI sets it) turns that skip into a failure. The server
listens on 127.0.0.1 only, with telemetry off; it is stopped when the test ends.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from ragtriage.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
FORMATS = ROOT / "tests" / "fixtures" / "formats"
SPANS = FORMATS / "genai_spans.jsonl"
START_S = 240  # Phoenix migrates its database and starts in about a minute on 2 busy cores


def _phoenix_python() -> str:
    given = os.environ.get("RAGTRIAGE_PHOENIX_PYTHON")
    if given:
        return given
    if importlib.util.find_spec("phoenix") is not None:
        return sys.executable
    if os.environ.get("RAGTRIAGE_REQUIRE_PHOENIX") == "1":
        pytest.fail("RAGTRIAGE_REQUIRE_PHOENIX=1 but no Phoenix: set RAGTRIAGE_PHOENIX_PYTHON")
    pytest.skip("no Phoenix server (pip install -e '.[phoenix]', or RAGTRIAGE_PHOENIX_PYTHON)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 - 127.0.0.1
        return json.loads(response.read())


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory):
    python = _phoenix_python()
    port = _free_port()
    env = {
        **os.environ,
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(_free_port()),
        "PHOENIX_WORKING_DIR": str(tmp_path_factory.mktemp("phoenix")),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = tmp_path_factory.mktemp("phoenix_log") / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [python, "-m", "phoenix.server.main", "serve"], env=env, stdout=out, stderr=out
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_S
        while True:
            if server.poll() is not None:
                pytest.fail(f"Phoenix exited ({server.returncode}): {log.read_text()[-2000:]}")
            try:
                _get(url + "/v1/projects")
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"Phoenix did not start in {START_S} s: {log.read_text()[-2000:]}")
                time.sleep(1)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def _send_spans(url: str, path: Path) -> None:
    """The SDK's span.to_json() lines as one OTLP/protobuf request to Phoenix's collector."""
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
    from opentelemetry.proto.common.v1 import common_pb2

    def value(v):
        if isinstance(v, bool):
            return common_pb2.AnyValue(bool_value=v)
        if isinstance(v, int):
            return common_pb2.AnyValue(int_value=v)
        if isinstance(v, float):
            return common_pb2.AnyValue(double_value=v)
        return common_pb2.AnyValue(string_value=str(v))

    request = trace_service_pb2.ExportTraceServiceRequest()
    scope = request.resource_spans.add().scope_spans.add()
    for line in path.read_text().splitlines():
        data = json.loads(line)
        span = scope.spans.add()
        span.trace_id = bytes.fromhex(data["context"]["trace_id"][2:])
        span.span_id = bytes.fromhex(data["context"]["span_id"][2:])
        if data["parent_id"]:
            span.parent_span_id = bytes.fromhex(data["parent_id"][2:])
        span.name = data["name"]
        span.start_time_unix_nano = 1_700_000_000_000_000_000
        span.end_time_unix_nano = 1_700_000_001_000_000_000
        for key, raw in data["attributes"].items():
            span.attributes.add(key=key, value=value(raw))
    sent = urllib.request.Request(
        url + "/v1/traces",
        data=request.SerializeToString(),
        headers={"Content-Type": "application/x-protobuf"},
        method="POST",
    )
    with urllib.request.urlopen(sent, timeout=30):  # noqa: S310 - 127.0.0.1
        pass


def test_verdicts_appear_as_annotations_on_the_right_spans(phoenix, tmp_path, capsys):
    if os.environ.get("RAGTRIAGE_REQUIRE_OTLP") != "1":
        pytest.importorskip("opentelemetry.proto")  # the test extra; CI requires it
    _send_spans(phoenix, SPANS)
    spans = [json.loads(line) for line in SPANS.read_text().splitlines()]
    deadline = time.monotonic() + 60
    while len(_get(phoenix + "/v1/projects/default/spans?limit=100")["data"]) < len(spans):
        assert time.monotonic() < deadline, "Phoenix did not store the spans"
        time.sleep(0.5)
    out = tmp_path / "audit"
    golden = FORMATS / "ragas_ids.jsonl"
    assert main(["audit", "--golden", str(golden), "--traces", str(SPANS), "--judge", "lexical",
                 "--out", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    code = main(["export", str(out / "results.json"), "--traces", str(SPANS),
                 "--phoenix-url", phoenix])  # fmt: skip
    assert code == 0
    assert "Phoenix accepted 8 annotations" in capsys.readouterr().out
    results = json.loads((out / "results.json").read_text())
    cases = {c["query"]: c for c in results["cases"]}
    roots = {
        s["context"]["span_id"][2:]: s for s in spans if s["parent_id"] is None
    }  # the span each verdict belongs on: its trace's root
    query_of = {
        s["context"]["trace_id"]: s["attributes"]["gen_ai.retrieval.query.text"]
        for s in spans
        if "gen_ai.retrieval.query.text" in s["attributes"]
    }
    ids = "&".join(f"span_ids={i}" for i in roots)
    stored = _get(f"{phoenix}/v1/projects/default/span_annotations?{ids}&limit=100")["data"]
    assert len(stored) == 8
    for annotation in stored:
        root = roots[annotation["span_id"]]
        case = cases[query_of[root["context"]["trace_id"]]]
        assert annotation["metadata"]["case_id"] == case["case_id"]
        if annotation["name"] == "ragtriage.triage":
            assert annotation["result"]["label"] == case["label"]
        else:
            assert annotation["name"] == "ragtriage.faithfulness"
            judge = case["judge"]
            assert annotation["result"]["score"] == (judge["score"] if judge else None)
            if case["faithful"] is not None:
                want = "faithful" if case["faithful"] else "unfaithful"
                assert annotation["result"]["label"] == want
