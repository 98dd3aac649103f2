"""Strategy ``sentences``: P(supported) per sentence, for small local models.

The answer is split into sentences deterministically (no model call, no claim-extraction
errors) and the model scores each sentence against the context: the probability of
``true`` after ``{"supported":``. Defaults are sized for two CPU cores, where the 1.5B
model reads about 10-20 prompt tokens a second: the context is cut to the 500 characters
of evidence most relevant to the answer (:mod:`ragtriage.judge.evidence`) and at most the
2 sentences with the least word support are scored (``context_chars``/``max_sentences``,
0 = no limit; both are in the fingerprint, so a calibration knows what it was fitted on).
A small model alone does not beat word overlap, so
the result combines signals: ``min_sentence_prob``, ``mean_sentence_prob``, ``lexical``,
``min_sentence_lexical``, ``answer_words``. The default ``score`` is the documented
combination ``(min_sentence_prob + lexical) / 2``: the weakest sentence decides as a claim
judge would, and word overlap steadies a noisy small model; calibration refits weights.
"""

from __future__ import annotations

import math
from typing import Any

from ragtriage.judge.evidence import select_evidence
from ragtriage.judge.items import fence_contexts
from ragtriage.judge.lexical import content_words
from ragtriage.judge.outcomes import checkable_sentences
from ragtriage.judge.prompts import load_prompt
from ragtriage.judge.strategies.base import register
from ragtriage.judge.strategies.common import lexical_signals, make_result, unscored
from ragtriage.judge.types import Claim, JudgeFingerprint, JudgeItem, JudgeResult, Outcome, Usage
from ragtriage.models.base import ModelRequest, ModelResponse
from ragtriage.models.calls import Caller, Unscorable

__all__ = ["PROMPT", "SCHEMA", "SentenceStrategy", "probability"]

PROMPT = "faithfulness.sentence.v1.md"
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

    def __init__(self, context_chars: int = 500, max_sentences: int = 2) -> None:
        self.context_chars = context_chars
        self.max_sentences = max_sentences
        self.prompt = load_prompt(PROMPT)
        self.params = {
            "context_chars": context_chars,
            "max_sentences": max_sentences,
            "evidence": "answer-overlap sentence selection v1",
            "score": "(min_sentence_prob + lexical) / 2",
        }
        self.prompt_sha256 = {PROMPT: self.prompt.sha256}

    @classmethod
    def from_options(
        cls, context_chars: int | None = None, max_sentences: int | None = None, **_options: Any
    ) -> SentenceStrategy:
        extra = {} if max_sentences is None else {"max_sentences": max_sentences}
        return cls(context_chars=500 if context_chars is None else context_chars, **extra)

    def planned_requests(self, item: JudgeItem) -> list[ModelRequest]:
        return self.requests(item)[1]

    def completion_tokens(self, item: JudgeItem, local: bool) -> int:
        return 0 if local else 8  # the local judge reads logits and generates nothing

    def requests(self, item: JudgeItem) -> tuple[list[str], list[ModelRequest], bool]:
        """The sentences, one request per sentence (sharing the context prefix), cut flag."""
        chunks, cut = select_evidence(item.contexts, item.answer, self.context_chars)
        context = fence_contexts(chunks)
        sentences = self._weakest(checkable_sentences(item.answer), item)
        requests = [
            ModelRequest(
                messages=self.prompt.render(context=context, sentence=sentence),
                prompt_sha256=self.prompt.sha256,
                schema_name="sentence_support",
                json_schema=SCHEMA,
                mode="choice",
                choices=("true", "false"),
                choice_prefix='{"supported":',
                max_tokens=8,
            )
            for sentence in sentences
        ]
        return sentences, requests, cut

    def _weakest(self, sentences: list[str], item: JudgeItem) -> list[str]:
        """At most ``max_sentences``: those with the least lexical support, in answer order.

        The answer's score is its weakest sentence, so the sentences word overlap finds
        least supported are the ones worth the model's time on a slow CPU.
        """
        if self.max_sentences <= 0 or len(sentences) <= self.max_sentences:
            return sentences
        vocabulary = set(content_words(" ".join(c.text for c in item.contexts)))

        def support(s: str) -> float:
            words = content_words(s)
            return sum(w in vocabulary for w in words) / len(words)

        order = sorted(range(len(sentences)), key=lambda i: (support(sentences[i]), i))
        return [sentences[i] for i in sorted(order[: self.max_sentences])]

    async def judge(
        self, item: JudgeItem, caller: Caller, fingerprint: JudgeFingerprint
    ) -> JudgeResult:
        usage = Usage()
        sentences, requests, cut = self.requests(item)
        if not sentences:
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
        signals = lexical_signals(item)
        signals.update(
            min_sentence_prob=min(probs),
            mean_sentence_prob=sum(probs) / len(probs),
            n_sentences=float(len(checkable_sentences(item.answer))),
            n_sentences_scored=float(len(probs)),
            context_truncated=float(cut),
        )
        score = (signals["min_sentence_prob"] + signals.get("lexical", 0.0)) / 2
        return make_result(
            item,
            fingerprint,
            usage,
            score=score,
            signals=signals,
            claims=[Claim(text=s, probability=p) for s, p in zip(sentences, probs, strict=True)],
        )
