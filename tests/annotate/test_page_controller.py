"""Both pages run on the one page controller of common.js (moving, resuming, saving and
retrying a mark, the shared keys): neither page script holds its own copy."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ragtriage.annotate

STATIC = Path(ragtriage.annotate.__file__).parent / "static"
SHARED = ("loadState", "show", "save", "onKey", "start")


def _functions(text: str) -> set[str]:
    return set(re.findall(r"^(?:async )?function (\w+)\(", text, flags=re.MULTILINE))


@pytest.mark.parametrize("script", ["golden.js", "grades.js"])
def test_a_page_gives_hooks_to_the_shared_controller(script):
    text = (STATIC / script).read_text(encoding="utf-8")
    assert "new Page({" in text and "page.start();" in text
    assert not _functions(text) & set(SHARED), f"{script} copies the controller"
    assert "saver.run(" not in text and "/api/item/" not in text


def test_the_controller_holds_the_save_and_its_retry():
    text = (STATIC / "common.js").read_text(encoding="utf-8")
    body = text[text.index("class Page {") :]
    for method in SHARED:
        assert re.search(rf"^  (?:async )?{method}\(", body, flags=re.MULTILINE), method
    assert "this.saver.run(" in body and "answer.conflict" in body
