"""Strategy ``sentences``: P(supported) per sentence against its own evidence, for small
local models (docs/judges.md, 'Strategies').

Sentences are split deterministically (no model call, no claim-extraction errors) and
each is scored against its own best windows (:mod:`ragtriage.judge.alignment`), so a long
web page is read where the sentence's facts are: the probability of ``true`` after
``{"supported":``, weakest-aligned sentences first within ``budget_chars``, at most
``max_sentences`` (0 = no limit). The instructions and examples are a fixed prefix the
model keeps cached. ``context_chars``, ``budget_chars`` and ``max_sentences`` are in the
fingerprint, so a calibration knows what it was fitted on.

``score`` is ``(min_sentence_prob + min_sentence_alignment) / 2`` beside the model-free
signals; the calibration's rule decides. A confident rejection (``P(supported) < 0.1``,
``rejected_sentences``) is what a small model is good at (a one-fact swap whose every
word is in the context, "is not a ballad"); it adds to ``fact_check`` in
``model_fact_check`` only, so ``fact_check`` stays model-free: a model-free rule is the
same rule on any judge's results, and an audit whose rule uses no model signal need not
call the model (``calibration.decision.uses_model``).
"""

from __future__ import annotations

import math
from typing import Any

from ragtriage.judge.alignment import SentenceEvidence, align_answer, evidence_for
from ragtriage.judge.facts import VERSION as FACTS_VERSION
from ragtriage.judge.items import fence_contexts
from ragtriage.judge.lexical import WORDS_VERSION, claim_sentences
from ragtriage.judge.prompts import load_prompt
from ragtriage.judge.strategies.base import register
from ragtriage.judge.strategies.common import lexical_signals, make_result, unscored
from ragtriage.judge.types import (
    Claim,
    ContextChunk,
    JudgeFingerprint,
    JudgeItem,
    JudgeResult,
    Outcome,
    Usage,
)
from ragtriage.llm.base import ModelRequest, ModelResponse
from ragtriage.llm.calls import Caller, Unscorable

__all__ = ["PROMPT", "REJECT", "SCHEMA", "SentenceStrategy", "probability"]

PROMPT = "faithfulness.sentence.v1.md"
# A sentence the model is at least 90 % sure is unsupported counts as a failed fact check
# (a round confidence fixed in advance, not fitted; see the module doc).
REJECT = 0.1
SCHEMA = {
    "type": "object",
    "properties": {"supported": {"type": "boolean"}},
    "required": ["supported"],
}


def probability(response: ModelResponse) -> float:
    """P(supported) from the choice log-probabilities, or the hard verdict without them."""
    lp = response.choice_logprobs
    if "true" in lp and "false" in lp:
        top = max(lp["true"], lp["false"])
        t, f = math.exp(lp["true"] - top), math.exp(lp["false"] - top)
        return t / (t + f)
    text = response.text.strip().lower()
    if text in ("true", "false"):
        return 1.0 if text == "true" else 0.0
    raise ValueError(f'expected {{"supported": true|false}}, got {response.text[:200]!r}')


@register
class SentenceStrategy:
    name = "sentences"
    needs_model = True

    def __init__(
        self, context_chars: int = 360, max_sentences: int = 0, budget_chars: int = 1000
    ) -> None:
        self.context_chars = context_chars
        self.max_sentences = max_sentences
        self.budget_chars = budget_chars
        self.prompt = load_prompt(PROMPT)
        self.params = {
            "context_chars": context_chars,
            "max_sentences": max_sentences,
            "budget_chars": budget_chars,
            "evidence": "per-sentence BM25 windows of cited passages v2",
            "score": "(min_sentence_prob + min_sentence_alignment) / 2",
            "facts": FACTS_VERSION,
            "words": WORDS_VERSION,
            "fact_check": f"model_fact_check: + sentences with P(supported) < {REJECT}",
        }
        self.prompt_sha256 = {PROMPT: self.prompt.sha256}

    @classmethod
    def from_options(cls, **options: Any) -> SentenceStrategy:
        """The options it knows, when given (``None``: its default); the rest ignored."""
        known = ("context_chars", "max_sentences", "budget_chars")
        return cls(**{k: options[k] for k in known if options.get(k) is not None})

    def planned_requests(self, item: JudgeItem) -> list[ModelRequest]:
        return self.requests(item)[1]

    def completion_tokens(self, item: JudgeItem, local: bool) -> int:
        return 0 if local else 8  # the local judge reads logits and generates nothing

    def requests(
        self, item: JudgeItem
    ) -> tuple[list[SentenceEvidence], list[ModelRequest], list[SentenceEvidence]]:
        """The sentences scored (answer order), one request each, and all aligned sentences."""
        aligned = align_answer(claim_sentences(item.answer), item.contexts)
        chosen = self._within_budget(aligned)
        requests = [
            ModelRequest(
                messages=self.prompt.render(context=self._evidence(ev, item), sentence=ev.sentence),
                prompt_sha256=self.prompt.sha256,
                schema_name="sentence_support",
                json_schema=SCHEMA,
                mode="choice",
                choices=("true", "false"),
                choice_prefix='{"supported":',
                max_tokens=8,
            )
            for ev in chosen
        ]
        return chosen, requests, aligned

    def _evidence(self, ev: SentenceEvidence, item: JudgeItem) -> str:
        """The sentence's evidence windows fenced under the id of the passage(s) searched."""
        ids = [item.contexts[i].id for i in ev.cited] or ["context"]
        text = evidence_for(ev, self.context_chars) if self.context_chars else ev.pool
        return fence_contexts([ContextChunk(id=",".join(ids), text=text)])

    def _within_budget(self, aligned: list[SentenceEvidence]) -> list[SentenceEvidence]:
        """Weakest-aligned sentences first, until ``budget_chars`` of evidence and sentence
        are used (at least one), at most ``max_sentences``; back in answer order. The
        answer's verdict is its weakest sentence, so those are worth the model's time."""
        order = sorted(range(len(aligned)), key=lambda i: (aligned[i].alignment, i))
        if self.max_sentences:
            order = order[: self.max_sentences]
        keep: list[int] = []
        used = 0
        for i in order:
            cost = len(aligned[i].sentence) + min(self.context_chars or 10**9, len(aligned[i].pool))
            if keep and self.budget_chars and used + cost > self.budget_chars:
                break
            keep.append(i)
            used += cost
        return [aligned[i] for i in sorted(keep)]

    async def judge(
        self, item: JudgeItem, caller: Caller, fingerprint: JudgeFingerprint
    ) -> JudgeResult:
        usage = Usage()
        chosen, requests, aligned = self.requests(item)
        if not aligned:
            return make_result(
                item,
                fingerprint,
                usage,
                outcome=Outcome.NO_CLAIMS,
                reason="no sentence with content words",
            )
        probs: list[float] = []
        try:
            for request in requests:  # in order: the shared prefix stays in the KV cache
                probs.append(await caller.parsed(request, probability, usage))
        except Unscorable as exc:
            return unscored(item, str(exc), fingerprint, usage)
        signals = lexical_signals(item, aligned)
        rejected = float(sum(p < REJECT for p in probs))
        signals.update(
            min_sentence_prob=min(probs),
            mean_sentence_prob=sum(probs) / len(probs),
            n_sentences=float(len(aligned)),
            n_sentences_scored=float(len(probs)),
            rejected_sentences=rejected,
            model_fact_check=signals.get("fact_check", 0.0) + rejected,
        )
        score = (signals["min_sentence_prob"] + signals["min_sentence_alignment"]) / 2
        return make_result(
            item,
            fingerprint,
            usage,
            score=score,
            signals=signals,
            claims=[
                Claim(text=ev.sentence, probability=p) for ev, p in zip(chosen, probs, strict=True)
            ],
        )
