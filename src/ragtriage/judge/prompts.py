"""Versioned prompt files with strict variable substitution.

A prompt is a file in ``prompts/`` named ``<task>.<strategy>.v<N>.md``. Its sha256 is
recorded in every result and in the cache key, so editing a prompt invalidates both the
cache and any calibration fitted on it. Sections start with ``=== system ===`` or
``=== user ===``; variables are ``{{name}}``. Rendering fails on a missing *or* an unused
variable, so a typo can never silently send a prompt with a hole in it.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ragtriage.errors import EXIT_INPUT, RagtriageError
from ragtriage.llm.base import Message

__all__ = ["Prompt", "PromptError", "load_prompt", "prompts_dir"]

_VAR = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}")
_SECTION = re.compile(r"^=== (system|user) ===\s*$", re.MULTILINE)


class PromptError(RagtriageError, ValueError):  # ValueError: what callers caught before
    """A prompt file that is malformed or rendered with the wrong variables."""

    exit_code = EXIT_INPUT


def prompts_dir() -> Path:
    """``$RAGTRIAGE_PROMPTS``, else the package's ``prompts`` (in a source tree a link to the
    repository's top-level ``prompts/``, copied into wheels as package data)."""
    env = os.environ.get("RAGTRIAGE_PROMPTS")
    return Path(env) if env else Path(__file__).parents[1] / "prompts"


@dataclass(frozen=True)
class Prompt:
    name: str
    sha256: str
    sections: tuple[tuple[str, str], ...]  # (role, template)

    @property
    def variables(self) -> frozenset[str]:
        return frozenset(v for _, t in self.sections for v in _VAR.findall(t))

    def render(self, **values: str) -> tuple[Message, ...]:
        """Messages with every ``{{var}}`` replaced; missing or extra values are errors."""
        missing = self.variables - values.keys()
        extra = values.keys() - self.variables
        if missing or extra:
            raise PromptError(
                f"prompt {self.name}: missing {sorted(missing)}, unexpected {sorted(extra)}"
            )
        return tuple(
            Message(role=role, content=_VAR.sub(lambda m: values[m.group(1)], text))  # type: ignore[arg-type]
            for role, text in self.sections
        )


@cache
def load_prompt(name: str, directory: Path | None = None) -> Prompt:
    path = (directory or prompts_dir()) / name
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise PromptError(f"cannot read prompt {path}: {exc.strerror}") from None
    text = raw.decode("utf-8")
    parts = _SECTION.split(text)
    if len(parts) < 3:
        raise PromptError(f"prompt {path} has no '=== system ===' / '=== user ===' sections")
    sections = tuple((parts[i], parts[i + 1].strip("\n")) for i in range(1, len(parts), 2))
    return Prompt(name=name, sha256=hashlib.sha256(raw).hexdigest(), sections=sections)
