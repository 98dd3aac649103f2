"""A content-addressed SQLite cache of model responses.

The key is :func:`~ragtriage.llm.base.cache_key` (model, output-changing
parameters, prompt sha256, inputs), so an interrupted run resumes where it stopped and an
unchanged re-run makes zero calls. Each response is committed as soon as it arrives:
killing the process loses at most the calls in flight. Only responses are stored; API keys
never reach the request, so they never reach the cache.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ragtriage.errors import InputError
from ragtriage.llm.base import ModelResponse

__all__ = ["CacheStats", "DEFAULT_CACHE", "ResponseCache", "default_cache_path"]

DEFAULT_CACHE = Path(".ragtriage") / "cache.sqlite"


def default_cache_path() -> Path:
    """``$RAGTRIAGE_CACHE`` or ``.ragtriage/cache.sqlite`` under the current directory."""
    return in_folder(Path(os.environ.get("RAGTRIAGE_CACHE") or DEFAULT_CACHE))


def in_folder(path: Path) -> Path:
    """``cache.sqlite`` inside ``path`` when it is a folder: ``*_CACHE`` variables of other
    tools (``PIP_CACHE_DIR``, ``HF_HOME``) name folders, and a folder given to SQLite
    failed with "unable to open database file"."""
    return path / DEFAULT_CACHE.name if path.is_dir() else path


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    writes: int = 0


class ResponseCache:
    """key -> response JSON. ``path=None`` keeps it in memory (tests, ``--no-cache``)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path = None if path is None else in_folder(path)
        try:
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path) if path else ":memory:", check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, body TEXT)"
            )
            self._db.commit()
        except (OSError, sqlite3.Error) as exc:  # a directory, a path under a file, not a DB
            raise InputError(
                f"cannot open the response cache: {exc}", path=path, field="--cache"
            ) from None
        self.stats = CacheStats()

    def get(self, key: str) -> ModelResponse | None:
        row = self._db.execute("SELECT body FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.stats.misses += 1
            return None
        self.stats.hits += 1
        return ModelResponse.model_validate_json(row[0])

    def contains(self, key: str) -> bool:
        """Whether ``key`` is stored (not counted in :attr:`stats`)."""
        row = self._db.execute("SELECT 1 FROM responses WHERE key = ?", (key,)).fetchone()
        return row is not None

    def put(self, key: str, model: str, response: ModelResponse) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO responses (key, model, body) VALUES (?, ?, ?)",
            (key, model, response.model_dump_json()),
        )
        self._db.commit()
        self.stats.writes += 1

    def items(self, model: str | None = None) -> list[tuple[str, ModelResponse]]:
        """Every stored ``(key, response)``, optionally for one model (replay export)."""
        sql = "SELECT key, body FROM responses"
        args: tuple[str, ...] = ()
        if model is not None:
            sql, args = sql + " WHERE model = ?", (model,)
        rows = self._db.execute(sql + " ORDER BY key", args).fetchall()
        return [(k, ModelResponse.model_validate_json(b)) for k, b in rows]

    def __len__(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        self._db.close()
