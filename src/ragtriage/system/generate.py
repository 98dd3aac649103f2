"""Generators the audit can run itself: the embedded local model, an extractive baseline,
and user callables ``module:function`` taking ``(query, chunks)`` and returning the answer.

The local generator goes through the judge layer's :class:`Caller`, so its answers are
cached like judge calls: re-running an audit regenerates nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ragtriage.judge.items import fence_contexts
from ragtriage.judge.lexical import content_words, split_sentences
from ragtriage.judge.prompts import load_prompt
from ragtriage.judge.types import ContextChunk, Usage
from ragtriage.llm.base import ModelRequest
from ragtriage.llm.calls import Caller, Unscorable
from ragtriage.llm.local import require_llama
from ragtriage.llm.recorded import Recording
from ragtriage.retrieval.retrievers import Hit, load_callable

__all__ = [
    "ABSTAIN",
    "EMBEDDED",
    "GENERATOR_ALIASES",
    "GENERATION_PROMPT",
    "GenerationFailed",
    "LocalGenerator",
    "MAX_ANSWER_TOKENS",
    "MIN_OVERLAP",
    "canonical_generator",
    "extractive_answer",
    "sync_generator",
]

EMBEDDED = "embedded"  # the embedded model, spelled as the judge's (--judge embedded)
# ``local`` was its name before; still accepted (scripts use it) and recorded as embedded
GENERATOR_ALIASES = {"local": EMBEDDED}
ABSTAIN = "The context does not contain the answer."
GENERATION_PROMPT = "generate.answer.v1.md"
MAX_ANSWER_TOKENS = 96
MIN_OVERLAP = 0.4


class GenerationFailed(Exception):
    """No answer could be generated (the model call failed for good): the case is
    ``unscored`` with this reason, as an error message is not an answer to judge. Internal
    control flow: ``system.run`` catches it for every case, so it never reaches the user."""


def extractive_answer(query: str, chunks: Sequence[Hit]) -> str:
    """The context sentence sharing most content words with the query, or an abstention: a
    deterministic, model-free floor for comparison and a fast way to exercise the audit."""
    wanted = set(content_words(query))
    best, best_share = "", 0.0
    for chunk in chunks:
        for sentence in split_sentences(chunk.text):
            words = set(content_words(sentence))
            share = len(wanted & words) / len(wanted) if wanted else 0.0
            if share > best_share:
                best, best_share = sentence, share
    return best if best_share >= MIN_OVERLAP else ABSTAIN


class LocalGenerator:
    """Greedy answers from a chat model through the cached, retrying caller; a recording
    serves those it holds for exactly these requests (``served`` counts them)."""

    def __init__(self, caller: Caller, recorded: Recording | None = None) -> None:
        self.caller = caller
        self.recorded = recorded
        self.served = 0
        self.prompt = load_prompt(GENERATION_PROMPT)
        self.usage = Usage()

    def request(self, query: str, chunks: Sequence[Hit]) -> ModelRequest:
        """The model request for one answer (its cache key is the recording's key)."""
        context = fence_contexts(ContextChunk(id=c.id, text=c.passage) for c in chunks)
        return ModelRequest(
            messages=self.prompt.render(context=context, question=query),
            prompt_sha256=self.prompt.sha256,
            mode="text",
            max_tokens=MAX_ANSWER_TOKENS,
        )

    async def __call__(self, query: str, chunks: Sequence[Hit]) -> str:
        request = self.request(query, chunks)
        if self.recorded is not None:
            if (answer := self.recorded.answer(request)) is not None:
                self.served += 1
                return answer.text.strip()
            require_llama()  # a request not recorded (another corpus, another prompt)
        try:
            response = await self.caller.raw(request, self.usage)
        except Unscorable as exc:
            raise GenerationFailed(str(exc)) from exc
        return response.text.strip()


def canonical_generator(name: str) -> str:
    """``embedded`` for either of its spellings; any other name as given."""
    return GENERATOR_ALIASES.get(name, name)


def sync_generator(spec: str) -> Callable[[str, Sequence[Hit]], str]:
    """``extractive`` or a user ``module:function``."""
    if spec == "extractive":
        return extractive_answer
    fn = load_callable(spec, field="generator")

    def call(query: str, chunks: Sequence[Hit]) -> str:
        """The user's answer; what it raised or a non-string it returned is this case's
        generation error (an explicit outcome), not a crash that loses the others."""
        try:
            answer = fn(query, list(chunks))
        except Exception as exc:  # the user's code: any failure is that case's outcome
            raise GenerationFailed(f"generator {spec} raised {type(exc).__name__}: {exc}") from exc
        if not isinstance(answer, str):
            raise GenerationFailed(f"generator {spec} returned {type(answer).__name__}, not str")
        return answer

    return call
