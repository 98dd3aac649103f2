"""After the browser tests, this thread runs no event loop: the audits every later test
runs call asyncio.run (a session-long Playwright left its loop running and 230 later
tests failed). Named to run after the page tests of this package."""

from __future__ import annotations

import asyncio

import pytest


def test_no_event_loop_is_left_running_after_the_page_tests():
    with pytest.raises(RuntimeError, match="no running event loop"):
        asyncio.get_running_loop()
    assert asyncio.run(asyncio.sleep(0, result=1)) == 1
