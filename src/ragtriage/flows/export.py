"""``ragtriage export``: an audit's verdicts back onto the traces it read.

Each case of ``results.json`` is linked to its trace in the span export (``--traces``) by
the ``trace:<id>`` case id an unmatched trace gets, else by its query text
(``data/formats/links.py``); the files are built in ``results/otlp.py``, the outputs are
docs/verdicts-in-tracing.md's.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from ragtriage.atomic import output_file
from ragtriage.data.formats.links import query_form, trace_links
from ragtriage.errors import InputError
from ragtriage.flows.config import Setting, paths_from_text
from ragtriage.results.files import write_json
from ragtriage.results.load import load_audit
from ragtriage.results.otlp import Export, Linked, otlp_logs, phoenix_annotations

__all__ = ["ExportConfig", "run", "send_annotations"]


@dataclass
class ExportConfig:
    results: Annotated[Path, Setting("An audit's results.json.", argument=True)] = Path(
        "results.json"
    )
    traces: Annotated[
        Path | None,
        Setting("The span export the audit read (OpenInference or GenAI-convention spans)."),
    ] = None
    otlp_out: Annotated[
        Path | None,
        Setting("Write the verdicts as OTLP/JSON gen_ai.evaluation.result events here."),
    ] = None
    phoenix_out: Annotated[
        Path | None,
        Setting("Write the verdicts as a Phoenix span-annotations request body here."),
    ] = None
    phoenix_url: Annotated[
        str | None,
        Setting("Send the annotations to this Phoenix server (e.g. http://127.0.0.1:6006).",
                metavar="URL"),
    ] = None  # fmt: skip

    def __post_init__(self) -> None:
        paths_from_text(self)  # a path given as text from Python


def link(config: ExportConfig) -> tuple[Linked, list[str]]:
    """Each case of the audit with its trace and span ids; the ids of cases without one."""
    if config.traces is None:
        raise InputError("give the span export the audit read", field="--traces")
    if not config.traces.is_file():
        raise InputError("no such span export", path=config.traces, field="--traces")
    result = load_audit(config.results)
    by_trace, by_query = trace_links(config.traces)
    linked: Linked = []
    unlinked: list[str] = []
    for case in result.cases:
        trace = case.case_id.removeprefix("trace:") if case.case_id.startswith("trace:") else None
        found = by_trace.get(trace) if trace else None
        found = found or by_query.get(query_form(case.query))
        if found is None:
            unlinked.append(case.case_id)
        else:
            linked.append((case, found.trace_id, found.span_id))
    return linked, unlinked


def send_annotations(url: str, body: dict[str, Any], timeout: float = 30.0) -> int:
    """POST the annotations to Phoenix (``/v1/span_annotations?sync=true``); how many it
    accepted. An unreachable server or a refusal is an input error naming the URL."""
    request = urllib.request.Request(
        url.rstrip("/") + "/v1/span_annotations?sync=true",
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            reply = json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:300].decode("utf-8", "replace")
        raise InputError(f"Phoenix refused the annotations ({exc.code}): {detail}",
                         field="--phoenix-url") from None  # fmt: skip
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise InputError(f"cannot reach Phoenix at {url}: {exc}", field="--phoenix-url") from None
    return len(reply.get("data") or [])


def run(config: ExportConfig) -> Export:
    if not (config.otlp_out or config.phoenix_out or config.phoenix_url):
        raise InputError(
            "nothing to write: give --otlp-out, --phoenix-out or --phoenix-url", field="--otlp-out"
        )
    url = config.phoenix_url
    if url is not None and not url.startswith(("http://", "https://")):
        raise InputError(f"not an http(s) URL: {url[:80]!r}", field="--phoenix-url")
    output_file(config.otlp_out, "--otlp-out")  # before any work, as every command does
    output_file(config.phoenix_out, "--phoenix-out")
    linked, unlinked = link(config)
    done = Export(linked=len(linked), unlinked=unlinked)
    if config.otlp_out:
        done.written.append(write_json(config.otlp_out, otlp_logs(linked)))
    annotations = phoenix_annotations(linked)
    if config.phoenix_out:
        done.written.append(write_json(config.phoenix_out, annotations))
    if config.phoenix_url:
        done.sent = send_annotations(config.phoenix_url, annotations)
    return done
