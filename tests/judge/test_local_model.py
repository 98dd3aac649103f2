"""The real embedded model on two items (slow; CI runs it after installing [local])."""

from __future__ import annotations

import os

import pytest

from ragtriage.judge.types import Outcome

pytestmark = pytest.mark.slow


def _available() -> bool:
    try:
        import llama_cpp  # noqa: F401

        from ragtriage.judge.models.weights import part_paths

        part_paths()
    except Exception:
        return False
    return True


@pytest.fixture(scope="module")
def model():
    if not _available():
        if os.environ.get("CI"):
            pytest.fail("CI must install the embedded judge: see docs/install-local-model.md")
        pytest.skip("embedded judge not installed (pip install '.[local]')")
    from ragtriage.judge.models.local import LocalModel

    return LocalModel(n_threads=int(os.environ.get("RAGTRIAGE_THREADS", "2")), n_ctx=2048)


def test_embedded_judge_separates_supported_from_unsupported(model, tmp_path):
    from ragtriage.judge.api import judge_faithfulness

    context = ["The Eiffel Tower in Paris was completed in 1889 and is 330 metres tall."]
    items = [
        {
            "id": "good",
            "question": "When?",
            "contexts": context,
            "answer": "The Eiffel Tower was completed in 1889.",
        },
        {
            "id": "bad",
            "question": "When?",
            "contexts": context,
            "answer": "The Eiffel Tower was built in Rome by Julius Caesar.",
        },
    ]
    good, bad = judge_faithfulness(items, model=model, cache=tmp_path / "c.sqlite")
    assert good.outcome == bad.outcome == Outcome.SCORED
    assert good.signals["min_sentence_prob"] > bad.signals["min_sentence_prob"]
    assert good.usage.calls == 1 and good.fingerprint.model.startswith("local/")


def test_generate_returns_text(model):
    text = model.generate("Reply with the single word: yes", max_tokens=4)
    assert isinstance(text, str) and text.strip()
