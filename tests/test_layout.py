"""tests/ mirrors src/ragtriage/: a change to src/ragtriage/X finds its tests in tests/X.

Every test package is named after a package of the source (or is ``support``, the
helpers several share, or ``fixtures``, the files they read); top-level test modules
check the project as a whole (layers, docs, public face, setup)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
SOURCE = TESTS.parent / "src" / "ragtriage"
OWN = {"support", "fixtures", "__pycache__"}


def _packages(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.py"))}


def test_every_test_package_mirrors_a_source_package() -> None:
    dirs = {p.name for p in TESTS.iterdir() if p.is_dir()} - OWN
    assert dirs - _packages(SOURCE) == set()


def test_support_holds_no_tests() -> None:
    assert sorted(p.name for p in (TESTS / "support").glob("test_*.py")) == []
