"""ragas' metric through our model layer: its failures become ``unscored``, never NaN."""

from __future__ import annotations

import pytest

from ragtriage.judge.types import ContextChunk, JudgeItem
from ragtriage.llm.base import ModelResponse
from tests.support.fakes import ScriptedModel

pytest.importorskip("ragas", reason="optional extra: pip install '.[ragas]'")

ITEM = JudgeItem(
    id="a",
    question="When?",
    answer="The tower was completed in 1889.",
    contexts=(ContextChunk(id="c0", text="The tower was completed in 1889."),),
)


def test_unparseable_judge_output_is_unscored_with_reason_and_counted():
    from ragtriage.judge.ragas_compare import ragas_faithfulness

    model = ScriptedModel(lambda r, n: ModelResponse(text="no json here", prompt_tokens=10))
    [row] = ragas_faithfulness([ITEM], model)
    assert row.outcome == "unscored" and row.score is None and row.reason
    assert row.calls >= 1 and row.prompt_tokens == 10 * row.calls


def test_valid_outputs_are_scored():
    from ragtriage.judge.ragas_compare import ragas_faithfulness

    def script(request, n):  # ragas: 1) split into statements, 2) verdict per statement
        if n == 1:
            return ModelResponse(text='{"statements": ["The tower was completed in 1889."]}')
        return ModelResponse(
            text='{"statements": [{"statement": '
            '"The tower was completed in 1889.", "reason": "stated", '
            '"verdict": 1}]}'
        )

    [row] = ragas_faithfulness([ITEM], ScriptedModel(script))
    assert row.calls == 2
    assert row.outcome == "scored" and row.score == 1.0
