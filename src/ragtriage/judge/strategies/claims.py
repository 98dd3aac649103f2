"""Strategy ``claims``: one call per answer splits it into atomic claims and judges each.

A capable model splits and judges in one structured call, so an answer costs one call
(other tools' call counts are in the README, stage 2). Score = supported claims / claims.
An answer the model finds without claims is ``no_claims`` (never a perfect 1.0), an
abstention is ``abstained``.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from ragtriage.judge.items import fence_answer, fence_contexts, fit_contexts
from ragtriage.judge.lexical import split_sentences
from ragtriage.judge.prompts import load_prompt
from ragtriage.judge.strategies.base import register
from ragtriage.judge.strategies.common import lexical_signals, make_result, unscored
from ragtriage.judge.types import (
    Claim,
    JudgeFingerprint,
    JudgeItem,
    JudgeResult,
    Outcome,
    Usage,
    Verdict,
)
from ragtriage.llm.base import ModelRequest, ModelResponse
from ragtriage.llm.calls import Caller, Unscorable

__all__ = ["ClaimStrategy", "ClaimVerdict", "ClaimsOutput", "PROMPT", "parse_claims"]

PROMPT = "faithfulness.claims.v1.md"
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$")


class ClaimVerdict(BaseModel):
    claim: str = Field(min_length=1)
    verdict: Verdict
    chunk_ids: list[str] = Field(default_factory=list)
    reason: str = ""


class ClaimsOutput(BaseModel):
    kind: Literal["claims", "abstention", "no_claims"]
    claims: list[ClaimVerdict] = Field(default_factory=list)


def parse_claims(response: ModelResponse) -> ClaimsOutput:
    """Validate the model's JSON (tolerating a Markdown code fence around it)."""
    return ClaimsOutput.model_validate_json(_FENCE.sub("", response.text))


@register
class ClaimStrategy:
    name = "claims"
    needs_model = True

    def __init__(self, context_chars: int = 0) -> None:
        self.context_chars = context_chars
        self.prompt = load_prompt(PROMPT)
        self.params = {"context_chars": context_chars}
        self.prompt_sha256 = {PROMPT: self.prompt.sha256}

    @classmethod
    def from_options(cls, context_chars: int | None = None, **_options: Any) -> ClaimStrategy:
        return cls(context_chars=context_chars or 0)

    def planned_requests(self, item: JudgeItem) -> list[ModelRequest]:
        return [self.request(item)]

    def completion_tokens(self, item: JudgeItem, local: bool) -> int:
        return 30 + 45 * len(split_sentences(item.answer))  # ~1.5 claims per sentence, JSON

    def request(self, item: JudgeItem) -> ModelRequest:
        chunks, _ = fit_contexts(item.contexts, self.context_chars)
        messages = self.prompt.render(
            context=fence_contexts(chunks),
            question=item.question,
            answer=fence_answer(item.answer),
        )
        return ModelRequest(
            messages=messages,
            prompt_sha256=self.prompt.sha256,
            schema_name="claims_output",
            json_schema=ClaimsOutput.model_json_schema(),
            mode="json",
            max_tokens=2048,
        )

    async def judge(
        self, item: JudgeItem, caller: Caller, fingerprint: JudgeFingerprint
    ) -> JudgeResult:
        usage = Usage()
        try:
            out = await caller.parsed(self.request(item), parse_claims, usage)
        except Unscorable as exc:
            return unscored(item, str(exc), fingerprint, usage)
        signals = lexical_signals(item)
        if out.kind == "abstention":
            outcome, reason = Outcome.ABSTAINED, "the judge found the answer abstains"
        elif out.kind == "no_claims" or not out.claims:
            outcome, reason = Outcome.NO_CLAIMS, "the judge found no claims in the answer"
        else:
            return self._scored(item, out, signals, fingerprint, usage)
        return make_result(
            item, fingerprint, usage, outcome=outcome, reason=reason, signals=signals
        )

    def _scored(self, item, out: ClaimsOutput, signals, fingerprint, usage) -> JudgeResult:
        known = {c.id for c in item.contexts}
        claims = [
            Claim(
                text=c.claim,
                verdict=c.verdict,
                reason=c.reason,
                chunk_ids=[i for i in c.chunk_ids if i in known],  # drop invented ids
            )
            for c in out.claims
        ]
        n = len(claims)
        counts = {v: sum(c.verdict == v for c in claims) for v in Verdict}
        signals.update(
            n_claims=float(n),
            supported_fraction=counts[Verdict.SUPPORTED] / n,
            contradicted_fraction=counts[Verdict.CONTRADICTED] / n,
        )
        return make_result(
            item,
            fingerprint,
            usage,
            score=counts[Verdict.SUPPORTED] / n,
            signals=signals,
            claims=claims,
        )
