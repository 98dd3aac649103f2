"""Run ``ragtriage`` in-process against hostile input and judge the outcome.

The contract (docs/reliability.md): every input ends in exit 0/1 with a correct result, or
exit 2 with exactly one line on stderr that names the file (and line and field) or the
option at fault. Never a traceback, never a hang. :func:`run_cli` calls the real entry
point (:func:`ragtriage.cli.main.main`) with stdout and stderr captured and an alarm as a
hang guard; an exception escaping ``main`` is a traceback a user would have seen.
``FIGURES`` counts the inputs tried per class for docs/reliability.md; ``FUZZ_COUNTS`` and
``LOADED`` the cases each loader saw in test_fuzz_loaders.py, and those it loaded.
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ragtriage.cli.main import main

FIGURES: Counter[str] = Counter()
FUZZ_COUNTS: Counter[str] = Counter()
LOADED: Counter[str] = Counter()
HANG_SECONDS = 60


class Hang(Exception):
    """The command ran past its alarm."""


@dataclass
class Outcome:
    args: list[str]
    code: int
    out: str
    err: str

    def __str__(self) -> str:
        return (
            f"ragtriage {' '.join(self.args)[:300]}\nexit {self.code}\nstderr: {self.err[-2000:]}"
        )


def _alarm(signum, frame):  # pragma: no cover - only on a hang
    raise Hang(f"no answer within {HANG_SECONDS} s")


def run_cli(args: list[str], kind: str = "", timeout: int = HANG_SECONDS) -> Outcome:
    """``main(args)`` with captured output; a traceback or a hang becomes exit code -1."""
    if kind:
        FIGURES[kind] += 1
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(a) for a in args])
    except BaseException:  # whatever escapes main is the failure we look for
        code = -1
        err.write("Traceback (escaped main):\n" + traceback.format_exc())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return Outcome([str(a) for a in args], code, out.getvalue(), err.getvalue())


def error_line(outcome: Outcome) -> str:
    """The one stderr line of a clean refusal (exit 2), checked."""
    assert "Traceback" not in outcome.err, str(outcome)
    assert outcome.code == 2, str(outcome)
    lines = [line for line in outcome.err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("ragtriage: error: "), str(outcome)
    return lines[0]


def assert_refused(outcome: Outcome, *names: str) -> str:
    """Exit 2 with one line that names every one of ``names`` (file, line, field, option)."""
    line = error_line(outcome)
    for name in names:
        assert str(name) in line, f"{name!r} not named in: {line}"
    return line


def assert_ran(outcome: Outcome, codes: tuple[int, ...] = (0,)) -> Outcome:
    """A result, not an error: the exit code is one of ``codes`` and nothing escaped."""
    assert "Traceback" not in outcome.err, str(outcome)
    assert outcome.code in codes, str(outcome)
    return outcome


def assert_clean(outcome: Outcome) -> Outcome:
    """Either a result (0 or 1) or a clean one-line refusal (2): never anything else."""
    assert "Traceback" not in outcome.err, str(outcome)
    assert outcome.code in (0, 1, 2), str(outcome)
    if outcome.code == 2:
        error_line(outcome)
    return outcome


def write_jsonl(path: Path, rows: list[dict], ensure_ascii: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=ensure_ascii) + "\n" for r in rows)
    path.write_text(text, encoding="utf-8")
    return path
