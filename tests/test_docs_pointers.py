"""Pointers from the source to the manual land: src names docs pages (``docs/ci-gate.md``)
and their sections (``docs/calibration.md, 'Vetoed answers'``) where a docstring leaves the
user-facing detail to the manual, and results files where it leaves a figure to its
measurement. A renamed page or section left such a pointer aiming at nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

SRC = sorted((ROOT / "src" / "ragtriage").rglob("*.py"))
# docs/X.md, then within a few characters an opening "(" or ",", then a quoted section
POINTER = re.compile(
    r"docs/([\w/-]+\.md)(?:[^\"'\n]{0,12}?[,(]\s*(?:[\"']|``)([^\"'`]{3,80})(?:[\"']|``))?"
)
RESULTS = re.compile(r"benchmarks/(?:results/)?[\w./-]+\.(?:txt|py|sh|json)")


def _flat(path: Path) -> str:
    """The file with line breaks (and a comment's ``#``) folded, so a pointer split across
    lines reads as one."""
    return re.sub(r"\s*\n\s*(?:#\s*)?", " ", path.read_text(encoding="utf-8"))


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", text).lower()


def _pointers() -> list[tuple[str, str, str | None]]:
    found = []
    for path in SRC:
        for match in POINTER.finditer(_flat(path)):
            section = match.group(2).strip().rstrip(",") if match.group(2) else None
            found.append((str(path.relative_to(ROOT)), match.group(1), section))
    return found


def test_src_points_to_the_manual():
    assert len(_pointers()) > 50  # the regular expression still finds them


@pytest.mark.parametrize(("where", "page", "section"), _pointers())
def test_each_pointer_lands(where, page, section):
    path = ROOT / "docs" / page
    assert path.is_file(), f"{where} points to docs/{page}, which does not exist"
    if section is not None:
        assert _plain(section) in _plain(path.read_text(encoding="utf-8")), (
            f"{where} points to docs/{page}, {section!r}: no such text on the page"
        )


def test_each_results_pointer_exists():
    missing = {
        (str(path.relative_to(ROOT)), name)
        for path in SRC
        for name in RESULTS.findall(path.read_text(encoding="utf-8"))
        if not (ROOT / name).exists()
    }
    assert not missing
