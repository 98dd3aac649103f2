"""Strategy ``lexical``: content-word overlap, no model at all (the baseline to beat)."""

from __future__ import annotations

from ragtriage.judge.lexical import sentence_support
from ragtriage.judge.strategies.common import lexical_signals
from ragtriage.judge.types import Claim, JudgeFingerprint, JudgeItem, JudgeResult, Outcome, Usage


class LexicalStrategy:
    name = "lexical"
    params: dict = {}
    prompt_sha256: dict = {}

    async def judge(self, item: JudgeItem, caller, fingerprint: JudgeFingerprint) -> JudgeResult:
        signals = lexical_signals(item)
        texts = [c.text for c in item.contexts]
        claims = [
            Claim(text=s, probability=p)
            for s, p in sentence_support(item.answer, texts)
            if p is not None
        ]
        if "lexical" not in signals:
            return JudgeResult(
                item_id=item.id,
                outcome=Outcome.NO_CLAIMS,
                signals=signals,
                reason="the answer has no content words",
                fingerprint=fingerprint,
                usage=Usage(),
            )
        return JudgeResult(
            item_id=item.id,
            outcome=Outcome.SCORED,
            score=signals["lexical"],
            signals=signals,
            claims=claims,
            fingerprint=fingerprint,
            usage=Usage(),
        )
