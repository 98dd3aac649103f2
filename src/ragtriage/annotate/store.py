"""One writer per output file: every action saved at once, nothing lost, nothing mixed.

The session (the sample and its seed, what was read, every item's marks) lives in a
file beside the output, ``<output>.session.json``; the output (the golden set, the
grades) is rendered from it. Each save writes both with ``atomic.write_atomic_set``
(temporary files, fsync, rename), so a killed server leaves the previous save or this
one, never half of either, and restarting on the same output resumes where the person
stopped.

Two tabs on one server share this store: saves are serialised by a lock, and each
carries the version of the item the tab last read; a save on an older version is
refused (the tab reloads the item) instead of overwriting marks made in the other tab.
Two servers on one output cannot both write: the first holds an exclusive ``flock`` on
``<output>.lock`` for its life, and a second is refused at start.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ragtriage.atomic import write_atomic_set
from ragtriage.data.readers import read_text
from ragtriage.errors import InputError, RagtriageError

__all__ = ["Conflict", "SessionStore", "session_path"]

Render = Callable[[dict[str, Any]], str]  # the session -> the output file's text


class Conflict(RagtriageError):
    """A save based on an item version another tab has already replaced."""

    def __init__(self, current: dict[str, Any], version: int) -> None:
        super().__init__("the item changed in another tab")
        self.current = current
        self.version = version


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
            self.data = data
            self._write()

    def record(self, item_id: str) -> tuple[dict[str, Any], int]:
        with self._lock:
            return dict(self.data["records"].get(item_id, {})), self._version(item_id)

    def save(
        self, item_id: str, record: dict[str, Any], version: int, position: int | None = None
    ) -> int:
        """Replace an item's record if the caller saw its current ``version``; the new
        version. Raises :class:`Conflict` with the current record otherwise."""
        with self._lock:
            current = self._version(item_id)
            if version != current:
                raise Conflict(dict(self.data["records"].get(item_id, {})), current)
            self.data["records"][item_id] = record
            self.data["versions"][item_id] = current + 1
            if position is not None:
                self.data["position"] = position
            self._write()
            return current + 1

    def move(self, position: int) -> None:
        """Where the person is, so a restart reopens there."""
        with self._lock:
            if self.data.get("position") != position:
                self.data["position"] = position
                self._write()

    def records(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {k: dict(v) for k, v in self.data["records"].items()}

    def _version(self, item_id: str) -> int:
        return int(self.data["versions"].get(item_id, 0))

    def _write(self) -> None:
        session = orjson.dumps(self.data, option=orjson.OPT_INDENT_2).decode()
        write_atomic_set({self.output: self._render(self.data), self.path: session})

    def close(self) -> None:
        os.close(self._file_lock)


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
