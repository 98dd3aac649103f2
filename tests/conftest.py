"""Shared test helpers: the repository root, so tests run from any directory; and a check,
at the end of every module, that no event loop is left running in the main thread.

tests/ mirrors src/ragtriage/ (a change to src/ragtriage/X finds its tests in tests/X;
``tests/test_layout.py`` checks it); helpers and fixtures several packages share live in
``tests/support/`` and are registered here as plugins."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest_plugins = ["tests.support.hardening", "tests.support.lifecycle"]

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def root() -> Path:
    return ROOT


def assert_no_running_loop(where: str) -> None:
    """No event loop runs in this thread, and ``asyncio.run`` works: the audits of every
    later test call it (a session-long Playwright once left its loop running, and 230
    later tests failed with "asyncio.run() cannot be called from a running event loop")."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise AssertionError(f"an event loop is still running after {where}")
    assert asyncio.run(asyncio.sleep(0, result=1)) == 1


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """Once a module's last test is torn down (its module fixtures with it), whatever the
    order and selection (``-k``): the next module, or the end of the run, must find no
    loop running. A failure is an error at the teardown of that module's last test."""
    result = yield
    if nextitem is None or getattr(nextitem, "module", None) is not getattr(item, "module", None):
        assert_no_running_loop(f"the tests of {item.nodeid.split('::')[0]}")
    return result
