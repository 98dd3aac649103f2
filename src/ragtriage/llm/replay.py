"""The replay double: serves recorded responses keyed exactly like the cache.

A recording is JSONL: a header ``{"model", "params", "note"}`` naming the real model run
it came from, then one ``{"key", "response"}`` per call. Taking the recorded model's name
and params, the double computes the keys the real run stored, so tests and CI replay a
judge without a model or a network. An unrecorded request is a permanent error (the item
ends ``unscored``), never a made-up answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragtriage.data.containers import parse_json, split_lines
from ragtriage.errors import InputError
from ragtriage.llm.base import (
    ModelRequest,
    ModelResponse,
    PermanentModelError,
    cache_key,
)
from ragtriage.llm.cache import ResponseCache

__all__ = ["ReplayModel", "read_rows", "seed_cache", "write_recording"]


class ReplayModel:
    local = True  # replay costs nothing

    def __init__(self, name: str, params: dict[str, Any], responses: dict[str, ModelResponse]):
        self.name = name
        self.params = params
        self.responses = responses
        self.calls = 0

    @classmethod
    def load(cls, path: Path) -> ReplayModel:
        header, rows = read_rows(path)
        responses = {key: response for key, response, _ in rows}
        return cls(header["model"], header.get("params", {}), responses)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        key = cache_key(self, request)
        if key not in self.responses:
            raise PermanentModelError(f"no recorded response for request {key[:12]}")
        return self.responses[key]


def write_recording(
    cache: ResponseCache,
    model: str,
    params: dict[str, Any],
    path: Path,
    note: str,
    keys: set[str] | None = None,
) -> int:
    """Export a model's cached responses (optionally only ``keys``) as a recording."""
    rows = [(k, r) for k, r in cache.items(model) if keys is None or k in keys]
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"model": model, "params": params, "note": note}) + "\n")
        for key, response in rows:
            body = response.model_dump(mode="json", exclude_defaults=True)
            out.write(json.dumps({"key": key, "response": body}, separators=(",", ":")) + "\n")
    return len(rows)


def seed_cache(path: Path, cache: ResponseCache) -> int:
    """Copy a recording's responses into a cache, so the real model re-runs for free.

    The keys already are cache keys, so a run of the recorded model over the recorded
    items afterwards makes zero calls (and a changed item pays only for itself).
    """
    header, rows = read_rows(path)
    for key, response, _ in rows:
        cache.put(key, header["model"], response)
    return len(rows)


def read_rows(
    path: Path, what: str = "response", *also: str
) -> tuple[dict[str, Any], list[tuple[str, ModelResponse, tuple[str, ...]]]]:
    """Header and ``(key, response, the row's fields named in also, as text)`` rows; any
    fault is an InputError naming the line (``what``: the row, as the message says it)."""
    lines = split_lines(path.read_text(encoding="utf-8"))
    if not lines:
        raise InputError("empty recording: expected a header line", path=path, line=1)
    header = parse_json(lines[0], path, 1)
    if not isinstance(header, dict) or not isinstance(header.get("model"), str):
        raise InputError("header must be an object with a 'model' string", path=path, line=1)
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if line.strip():
            row = parse_json(line, path, number)
            try:
                response = ModelResponse.model_validate(row["response"])
                rows.append((str(row["key"]), response, tuple(str(row[f]) for f in also)))
            except (KeyError, TypeError, ValueError) as exc:
                raise InputError(f"not a recorded {what}: {exc}", path=path, line=number) from None
    return header, rows
