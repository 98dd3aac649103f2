"""Small golden sets and runs written per test, so each figure can be checked by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def run_rows(ranked: dict[str, list[str]]) -> list[dict]:
    """JSONL run rows, scores descending in the given order."""
    return [
        {"query_id": q, "retrieved": [{"id": d, "score": 10.0 - i} for i, d in enumerate(ids)]}
        for q, ids in ranked.items()
    ]


@pytest.fixture
def tenant_set(tmp_path: Path) -> Path:
    """Two tenants (acme, globex), one public chunk, one admin page listed as forbidden."""
    d = tmp_path / "tenants"
    write_jsonl(
        d / "corpus.jsonl",
        [
            {"id": "pub", "text": "public help"},
            {"id": "acme-1", "text": "acme invoice", "tenant": "acme"},
            {"id": "globex-1", "text": "globex invoice", "tenant": "globex"},
            {"id": "admin", "text": "admin page"},
        ],
    )
    write_jsonl(
        d / "golden.jsonl",
        [
            {
                "id": "a",
                "query": "acme invoice",
                "expected": ["acme-1"],
                "tags": ["t"],
                "tenant": "acme",
            },
            {
                "id": "g",
                "query": "globex invoice",
                "expected": ["globex-1"],
                "tags": ["t"],
                "acl": ["globex"],
                "forbidden": ["admin"],
            },
            {"id": "open", "query": "help", "expected": ["pub"], "tags": ["t"]},
        ],
    )
    return d
