"""Writing results: atomically, so a crash never leaves a half-written file."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def write_atomic(path: str | Path, text: str | bytes) -> Path:
    """Write to a temporary file in the same directory, fsync, then rename over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_json(path: str | Path, payload: BaseModel | dict[str, Any]) -> Path:
    data = payload.model_dump(mode="json") if isinstance(payload, BaseModel) else payload
    return write_atomic(
        path, json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    )
