"""Answers the embedded model wrote, shipped beside a golden set with their provenance.

The shipped judging rule reads no model signal, so the embedded model was on the way to
the handbook demo's first report only to write its answers (issue 53; timings in
benchmarks/results/demo_audit.txt). They ship as a recording in ``llm/replay.py``'s
format, keyed exactly like the response cache, whose header says which model, weights,
prompt and command wrote them and when. A recorded request is answered from the file;
any other needs the live model.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragtriage.errors import InputError
from ragtriage.llm.base import ModelRequest, ModelResponse, request_key
from ragtriage.llm.replay import read_rows

__all__ = ["RECORDED_ANSWERS", "Recording", "find_recording", "read_recording"]

# beside golden.jsonl: what the embedded generator wrote for this set
RECORDED_ANSWERS = "embedded_answers.jsonl"
# what a header must say for the report to name where the answers came from
PROVENANCE = ("model", "weights_sha256", "prompt", "prompt_sha256", "written", "command")


@dataclass(frozen=True)
class Recording:
    path: Path
    model: str  # the fingerprint name, e.g. local/qwen2.5-coder-1.5b-instruct-q4_k_m
    params: dict[str, Any]
    provenance: dict[str, str]
    responses: dict[str, ModelResponse]
    query_ids: frozenset[str]

    def answer(self, request: ModelRequest) -> ModelResponse | None:
        """The recorded response to exactly this request by the recorded model, or None."""
        return self.responses.get(request_key(self.model, self.params, request))


def find_recording(golden: Path) -> Path | None:
    """The recording shipped beside a golden set (its folder, or the file's folder)."""
    folder = golden if golden.is_dir() else golden.parent
    path = folder / RECORDED_ANSWERS
    return path if path.is_file() else None


def read_recording(path: Path) -> Recording:
    """The header and rows; a fault (or a header without provenance) names the line."""
    header, rows = read_rows(path, "answer", "query_id")
    provenance = header.get("provenance")
    if not isinstance(provenance, dict) or any(k not in provenance for k in PROVENANCE):
        raise InputError(
            f"header must say where the answers came from: provenance with {', '.join(PROVENANCE)}",
            path=path,
            line=1,
        )
    return Recording(
        path=path,
        model=header["model"],
        params=header.get("params", {}),
        provenance={k: str(v) for k, v in provenance.items()},
        responses={key: response for key, response, _ in rows},
        query_ids=frozenset(query_id for _, _, (query_id,) in rows),
    )
