"""Strategy ``lexical``: content-word overlap, no model at all (the baseline to beat)."""

from __future__ import annotations

from typing import Any

from ragtriage.judge.facts import VERSION as FACTS_VERSION
from ragtriage.judge.lexical import WORDS_VERSION, sentence_support
from ragtriage.judge.strategies.base import register
from ragtriage.judge.strategies.common import lexical_signals, make_result
from ragtriage.judge.types import Claim, JudgeFingerprint, JudgeItem, JudgeResult, Outcome
from ragtriage.llm.base import ModelRequest

__all__ = ["LexicalStrategy"]


@register
class LexicalStrategy:
    name = "lexical"
    needs_model = False
    params: dict = {"facts": FACTS_VERSION, "words": WORDS_VERSION}
    prompt_sha256: dict = {}

    @classmethod
    def from_options(cls, **_options: Any) -> LexicalStrategy:
        return cls()

    def planned_requests(self, item: JudgeItem) -> list[ModelRequest]:
        return []

    def completion_tokens(self, item: JudgeItem, local: bool) -> int:
        return 0

    async def judge(self, item: JudgeItem, caller, fingerprint: JudgeFingerprint) -> JudgeResult:
        signals = lexical_signals(item)
        texts = [c.text for c in item.contexts]
        claims = [
            Claim(text=s, probability=p)
            for s, p in sentence_support(item.answer, texts)
            if p is not None
        ]
        if "lexical" not in signals:
            return make_result(
                item,
                fingerprint,
                outcome=Outcome.NO_CLAIMS,
                signals=signals,
                reason="the answer has no content words",
            )
        return make_result(
            item, fingerprint, score=signals["lexical"], signals=signals, claims=claims
        )
