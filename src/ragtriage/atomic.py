"""Atomic file writes (a crash or a kill never leaves a half-written file) and file hashes.

Every output ragtriage writes goes through :func:`write_atomic`, or :func:`write_atomic_set`
for outputs that belong together; it lives at the package's root because every stage
writes files and none should import another stage to do it. An unwritable path is an
:class:`InputError` naming it. :func:`file_sha256` is the one file hash, but for run files:
:func:`file_blake3` (a run can be gigabytes, BLAKE3 takes a fraction of SHA-256's time,
and ``b3sum`` prints the same digest).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragtriage.errors import InputError

__all__ = [
    "RUN_DIGEST",
    "TEMP_SUFFIX",
    "bytes_blake3",
    "file_blake3",
    "file_sha256",
    "output_dir",
    "output_file",
    "write_atomic",
    "write_atomic_set",
]

RUN_DIGEST = "blake3"  # the name of a run file's digest in every report that records one


def write_atomic(path: str | Path, text: str | bytes) -> Path:
    """Write to a temporary file in the same directory, fsync, then rename over ``path``."""
    return write_atomic_set({Path(path): text})[0]


def write_atomic_set(files: Mapping[Path, str | bytes]) -> list[Path]:
    """Write several files all or none: each to a temporary file beside its target first,
    then, once every one is on disk, rename them all into place, so a failure while writing
    leaves every existing file as it was. The renames are not one transaction, but each is
    atomic and they run only after every target was checked."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, text in files.items():
            staged.append((_stage(Path(path), text), Path(path)))
        for _, path in staged:
            if path.is_dir():
                raise IsADirectoryError(21, "Is a directory", str(path))
        for tmp, path in staged:
            os.replace(tmp, path)
    except OSError as exc:
        _discard(staged)
        where = exc.filename or next(iter(files), None)
        raise InputError(f"cannot write: {exc.strerror or exc}", path=where) from None
    except BaseException:
        _discard(staged)
        raise
    return [path for _, path in staged]


def file_sha256(path: Path, block: int = 1 << 22) -> str:
    """Hex SHA-256 of a file's bytes, read in blocks (model weights are over a GiB). A
    folder (an HF ``save_to_disk`` dataset) hashes its files' names and hashes, sorted."""
    digest = hashlib.sha256()
    if Path(path).is_dir():
        for item in sorted(p for p in Path(path).rglob("*") if p.is_file()):
            digest.update(f"{item.relative_to(path).as_posix()}\0{file_sha256(item)}\n".encode())
        return digest.hexdigest()
    with Path(path).open("rb") as handle:
        while chunk := handle.read(block):
            digest.update(chunk)
    return digest.hexdigest()


def file_blake3(path: Path, block: int = 1 << 22) -> str:
    """Hex BLAKE3 of a file's bytes (what ``b3sum`` prints), on every core: the run file's
    digest when its reader did not take it on the way through (``data/_trec_fast.py``)."""
    digest = _blake3()
    with Path(path).open("rb") as handle:
        while chunk := handle.read(block):
            digest.update(chunk)
    return digest.hexdigest()


def bytes_blake3(data: bytes) -> str:
    """:func:`file_blake3` of bytes already read (the TREC line parser's)."""
    digest = _blake3()
    digest.update(data)
    return digest.hexdigest()


def _blake3() -> Any:
    import blake3  # a run's digest only: the other commands never load it

    return blake3.blake3(max_threads=blake3.blake3.AUTO)


# what names our temporary files (``.<name>.<8 chars>.ragtriage-tmp``) apart from a user's
# own files that merely look like them (``.golden.jsonl.20261204``)
TEMP_SUFFIX = ".ragtriage-tmp"


def _stage(path: Path, text: str | bytes) -> str:
    """``text`` in a synced temporary file beside ``path``; returns the temporary name."""
    try:
        data = text.encode("utf-8") if isinstance(text, str) else text
    except UnicodeEncodeError:
        raise InputError(
            "the output holds text UTF-8 cannot encode (an unpaired surrogate, e.g. from an "
            "undecodable command-line byte)",
            path=path,
        ) from None
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; results are meant to be shared
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def _discard(staged: list[tuple[str, Path]]) -> None:
    for tmp, _ in staged:
        Path(tmp).unlink(missing_ok=True)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def output_file(path: Path | None, option: str) -> None:
    """Refuse, before any work, an output file that cannot be written: an existing
    directory, or a path under an existing file."""
    if path is None:
        return
    if path.is_dir():
        raise InputError("is a directory; give a file name", path=path, field=option)
    _writable_parent(path, option)


def output_dir(path: Path, option: str, files: Sequence[str] = ()) -> None:
    """Refuse, before any work, an output directory that is a file or sits under one, or
    holds a directory where one of ``files`` must be written."""
    if path.exists() and not path.is_dir():
        raise InputError("is a file; give a directory", path=path, field=option)
    _writable_parent(path, option)
    for name in files:
        if (path / name).is_dir():
            raise InputError(
                f"{name} would be written here but is a directory", path=path / name, field=option
            )


def _writable_parent(path: Path, option: str) -> None:
    """The nearest existing ancestor must be a directory we may write into."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"{parent} is not a directory", path=path, field=option)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"cannot write into {parent}", path=path, field=option)
