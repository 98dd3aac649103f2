"""One writer per output file: every action saved at once, nothing lost, nothing mixed.

The session (``<output>.session.json``) holds the sample, its seed and every mark; the
output is rendered from it. Each save writes both with ``atomic.write_atomic_set``, so a
killed server leaves the previous save or this one, never half of either. Two tabs on one
server: saves are serialised by a lock and carry the version of the item the tab last
read, so a save on an older version is refused rather than overwrite the other tab's
marks. Two servers on one output: the first holds an exclusive ``flock`` on
``<output>.lock`` for its life, and a second is refused at start; temporaries a killed
server left are swept under that lock (only its holder writes them). A save is atomic in
memory too: the new session becomes current only once written, so a save that cannot be
written (a lone surrogate, a full disk) changes nothing and the next one still works.
"""

from __future__ import annotations

import fcntl
import math
import os
import re
import statistics
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from ragtriage.annotate import fields
from ragtriage.atomic import TEMP_SUFFIX, write_atomic_set
from ragtriage.data.containers import read_text
from ragtriage.errors import InputError, RagtriageError

__all__ = ["Conflict", "NotSaved", "SessionStore", "StoredTask", "jsonl", "pace", "session_path"]

Render = Callable[[dict[str, Any]], str]  # the session -> the output file's text


def jsonl(rows: Iterable[dict[str, Any]]) -> str:
    """The output file's text (what a ``Render`` returns): one JSON object a line."""
    return "".join(orjson.dumps(row).decode() + "\n" for row in rows)


def pace(done: list[dict[str, Any]], left: int) -> dict[str, float | None]:
    """The coverage panel's pace: the median time of the ``done`` records that carry one,
    and that median times the ``left`` items to go (both None before any timed record)."""
    seconds = [float(r["seconds"]) for r in done if r.get("seconds")]
    median = statistics.median(seconds) if seconds else None
    return {"median_seconds": median, "seconds_left": median * left if median is not None else None}


class Conflict(RagtriageError):
    """A save based on an item version another tab has already replaced."""

    def __init__(self, current: dict[str, Any], version: int) -> None:
        super().__init__("the item changed in another tab")
        self.current = current
        self.version = version


class NotSaved(RagtriageError):
    """A save that could not be written (the disk, the file system): nothing changed."""


def session_path(output: Path) -> Path:
    return output.with_name(output.name + ".session.json")


class SessionStore:
    """The session of one output file, held by one process."""

    def __init__(self, output: Path, render: Render) -> None:
        self.output = output
        self.path = session_path(output)
        self._render = render
        self._lock = threading.Lock()
        self._file_lock = _hold_lock(output.with_name(output.name + ".lock"))
        self.data: dict[str, Any] = {}
        self.swept = _sweep(output, self.path)  # temporary files a killed server left

    def load(self) -> dict[str, Any] | None:
        """The saved session, or None when there is none yet."""
        if not self.path.exists():
            return None
        try:
            data = orjson.loads(read_text(self.path))
        except orjson.JSONDecodeError as exc:
            raise InputError(f"the session file is not valid JSON: {exc}", path=self.path) from None
        if not isinstance(data, dict) or not isinstance(data.get("records"), dict):
            raise InputError("not a ragtriage annotate session", path=self.path, field="records")
        return data

    def start(self, data: dict[str, Any]) -> None:
        """Take ``data`` as the session and write it (and the output) at once."""
        data.setdefault("records", {})
        data.setdefault("versions", {})
        with self._lock:
            self._write(data)
            self.data = data

    def record(self, item_id: str) -> tuple[dict[str, Any], int]:
        with self._lock:
            return dict(self.data["records"].get(item_id, {})), self._version(item_id)

    def save(
        self, item_id: str, record: dict[str, Any], version: int, position: int | None = None
    ) -> int:
        """Replace an item's record if the caller saw its current ``version``; the new
        version. Raises :class:`Conflict` with the current record otherwise; an
        :class:`InputError` (a value no file can hold) or :class:`NotSaved` (the write
        failed) leaves the session as it was."""
        _storable(record, "record")
        with self._lock:
            current = self._version(item_id)
            if version != current:
                raise Conflict(dict(self.data["records"].get(item_id, {})), current)
            data = {
                **self.data,
                "records": {**self.data["records"], item_id: record},
                "versions": {**self.data["versions"], item_id: current + 1},
            }
            if position is not None:
                data["position"] = position
            self._write(data)
            self.data = data  # only once it is on disk
            return current + 1

    def move(self, position: int) -> None:
        """Where the person is, so a restart reopens there."""
        with self._lock:
            if self.data.get("position") != position:
                data = {**self.data, "position": position}
                self._write(data)
                self.data = data

    def records(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {k: dict(v) for k, v in self.data["records"].items()}

    def _version(self, item_id: str) -> int:
        return int(self.data["versions"].get(item_id, 0))

    def _write(self, data: dict[str, Any]) -> None:
        try:
            session = orjson.dumps(data, option=orjson.OPT_INDENT_2)
        except orjson.JSONEncodeError as exc:  # a guard: the checks above let nothing through
            raise InputError(f"the mark cannot be saved: {exc}", field="record") from None
        try:
            write_atomic_set({self.output: self._render(data), self.path: session})
        except InputError as exc:
            raise NotSaved(str(exc)) from None

    def close(self) -> None:
        os.close(self._file_lock)


class StoredTask:
    """What both pages' tasks (``annotate.app.Task``) share: the session's store, the
    command to run once done, the state the page opens on, moving, and the time spent."""

    kind: str
    total: int
    coverage_of: Callable[[dict[str, Any]], dict[str, Any]]  # the page's coverage panel

    def __init__(self, store: SessionStore, command: str) -> None:
        self.store = store
        self.command = command

    def extra_state(self) -> dict[str, Any]:
        return {}

    def state(self) -> dict[str, Any]:
        data = self.store.data
        return {
            "kind": self.kind,
            "total": self.total,
            "position": data.get("position", 0),
            "options": data["options"],
            "coverage": self.coverage_of(data),
            **self.extra_state(),
            "output": str(self.store.output),
            "command": self.command,
        }

    def move(self, index: int) -> None:
        self.store.move(index)

    def _stored(
        self, item_id: str, record: dict[str, Any], body: dict[str, Any], index: int
    ) -> int:
        """``record`` (checked) saved with the item's time so far plus the time this save
        reports, on the version the page last read; the item's new version."""
        old, _ = self.store.record(item_id)
        spent = fields.stored_seconds(old.get("seconds")) + fields.seconds(body.get("seconds"))
        record["seconds"] = spent
        return self.store.save(item_id, record, fields.version(body.get("version")), index)


def _storable(value: Any, field: str, depth: int = 0) -> None:
    """Every text of ``value`` encodable and every number finite: what no file can hold
    is refused before it reaches the session (orjson would write NaN as null)."""
    if depth > 8:
        raise InputError("nested too deep", field=field)
    if isinstance(value, str):
        fields.encodable(value, field)
    elif isinstance(value, float) and not math.isfinite(value):
        raise InputError("expected a finite number", field=field)
    elif isinstance(value, dict):
        for key, item in value.items():
            fields.encodable(str(key), field)
            _storable(item, f"{field}.{key}", depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _storable(item, f"{field}.{i}", depth + 1)


def _sweep(*paths: Path) -> int:
    """Remove the temporaries ``atomic.write_atomic_set`` names
    ``.<name>.<8 chars>.ragtriage-tmp`` beside each of ``paths`` (a kill -9 before the
    rename leaves them), only those (docs/reliability.md's table); the count removed."""
    removed = 0
    for path in paths:
        marker = re.escape(TEMP_SUFFIX)
        pattern = re.compile(rf"\.{re.escape(path.name)}\.[a-z0-9_]{{8}}{marker}")
        if not path.parent.is_dir():
            continue
        for entry in path.parent.iterdir():
            if pattern.fullmatch(entry.name) and entry.is_file() and not entry.is_symlink():
                entry.unlink(missing_ok=True)
                removed += 1
    return removed


def _hold_lock(path: Path) -> int:
    """An exclusive lock held until the process ends (or :meth:`SessionStore.close`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise InputError(
            "another ragtriage annotate is writing this file (its lock is held); use that "
            "one's page, or stop it first",
            path=path,
        ) from None
    return fd
