"""The check tests/conftest.py runs after every module (no event loop left running in the
main thread, so the audits of later tests can call asyncio.run) can fail: inside a
running loop it raises."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import assert_no_running_loop


def test_the_module_end_check_fails_inside_a_running_loop():
    async def inside() -> None:
        with pytest.raises(AssertionError, match="still running after here"):
            assert_no_running_loop("here")

    asyncio.run(inside())


def test_the_module_end_check_passes_outside_one():
    assert_no_running_loop("this test")
