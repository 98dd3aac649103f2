"""The embedded model's engine: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) through llama.cpp.

Runs inside the model worker process (:mod:`.worker`) by default: a native crash in
llama.cpp must not take the run down with it. A ``choice`` request is one forward pass, then
the choices' next-token probabilities read from the logits: a small model's *probability*
separates faithful from unfaithful sentences far better than its sampled verdict (nearly
always "supported"). A ``json`` request is generated under a GBNF grammar compiled from the
schema. Above temperature 0 (``--samples`` with ``--temperature``) the seed comes from the
request (its sample index included), so a sample is the same on every run and each index a
different draw. The KV cache's longest common prefix with the previous prompt is reused, so
with instructions first and the context before the sentence each further sentence of an
answer costs only its own tokens. A model is not thread-safe: a lock serialises calls.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import threading
from collections import OrderedDict
from typing import Any

from ragtriage.llm.base import (
    Message,
    ModelRequest,
    ModelResponse,
    PermanentModelError,
)
from ragtriage.llm.weights import ModelUnavailable, model_path

_READ_MEMORY = 64  # prompts: more than the sentences of any answer a judge scores

__all__ = [
    "LlamaEngine",
    "chatml",
    "default_threads",
    "request_seed",
    "sampled_choice",
    "system_info",
]


def request_seed(request: ModelRequest) -> int:
    """A 32-bit seed from the whole request (its sample index and temperature included)."""
    blob = request.model_dump_json().encode("utf-8")
    return int.from_bytes(hashlib.sha256(blob).digest()[:4], "big")


def sampled_choice(logprobs: dict[str, float], temperature: float, seed: int) -> str:
    """One choice drawn with probability proportional to ``exp(logprob / temperature)``."""
    names = sorted(logprobs)
    top = max(logprobs.values())
    weights = [math.exp((logprobs[n] - top) / temperature) for n in names]
    return random.Random(seed).choices(names, weights=weights)[0]


def chatml(messages: tuple[Message, ...]) -> str:
    """Qwen2.5's chat template (ChatML), ending with an open assistant turn."""
    text = "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages)
    return text + "<|im_start|>assistant\n"


def default_threads() -> int:
    """``$RAGTRIAGE_THREADS`` or the CPU count: a busy core slows every thread, so set it."""
    env = os.environ.get("RAGTRIAGE_THREADS")
    return int(env) if env else max(1, os.cpu_count() or 1)


def system_info() -> str:
    """llama.cpp's own account of its build: compiled CPU features, backends."""
    import llama_cpp

    return llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip()


class LlamaEngine:
    """The embedded GGUF file answering :class:`ModelRequest` values, in this process."""

    def __init__(self, *, n_threads: int, n_ctx: int) -> None:
        self.n_threads = n_threads
        self.n_ctx = n_ctx
        self._llm: Any = None
        self._lock = threading.Lock()
        # choice log-probabilities of the last prompts read: repeated samples of an answer
        # (``--samples``) send the same prompts again, and a forward pass is deterministic,
        # so each further sample only draws anew from them
        self._read: OrderedDict[tuple[tuple[int, ...], tuple[str, ...]], dict[str, float]] = (
            OrderedDict()
        )

    def _load(self) -> Any:
        if self._llm is None:
            try:
                from llama_cpp import Llama
            except ImportError:
                raise ModelUnavailable(
                    "llama-cpp-python is not installed; pip install 'ragtriage[local]' "
                    "(see docs/install-local-model.md) or name another judge with --judge"
                ) from None
            self._llm = Llama(
                model_path=str(model_path()),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                n_batch=512,
                seed=0,
                verbose=False,
            )
        return self._llm

    def system_info(self) -> str:
        """The build this engine runs on (the worker's hello reports it)."""
        return system_info()

    def load(self) -> None:
        """Load the weights now (a benchmark's load time is not judging time)."""
        self._load()

    def _tokens(self, text: str) -> list[int]:
        llm = self._load()
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        if len(tokens) >= self.n_ctx - 8:
            raise PermanentModelError(f"prompt of {len(tokens)} tokens exceeds n_ctx={self.n_ctx}")
        return tokens

    def _eval_reusing_prefix(self, tokens: list[int]) -> None:
        """Evaluate ``tokens`` reusing the cached common prefix."""
        llm = self._llm
        common = 0
        for a, b in zip(llm._input_ids.tolist(), tokens, strict=False):
            if a != b:
                break
            common += 1
        common = min(common, len(tokens) - 1)  # always decode one token for fresh logits
        llm.n_tokens = common
        llm.eval(tokens[common:])

    def _choice_ids(self, choice: str) -> list[int]:
        """Single-token spellings of a choice (``true``, `` true``, ``True``...)."""
        ids = set()
        for variant in {choice, " " + choice, choice.capitalize(), " " + choice.capitalize()}:
            toks = self._llm.tokenize(variant.encode("utf-8"), add_bos=False, special=False)
            if len(toks) == 1:
                ids.add(toks[0])
        return sorted(ids)

    def _choice(self, request: ModelRequest) -> ModelResponse:
        tokens = self._tokens(chatml(request.messages) + request.choice_prefix)
        key = (tuple(tokens), request.choices)
        if key in self._read:
            logprobs = self._read[key]
            self._read.move_to_end(key)
        else:
            logprobs = self._read_choices(tokens, request.choices)
            self._read[key] = logprobs
            if len(self._read) > _READ_MEMORY:
                self._read.popitem(last=False)
        best = max(logprobs, key=logprobs.__getitem__)
        if request.temperature > 0:  # a sampled verdict: the choice drawn, no probability
            drawn = sampled_choice(logprobs, request.temperature, request_seed(request))
            return ModelResponse(text=drawn, prompt_tokens=len(tokens), completion_tokens=0)
        return ModelResponse(
            text=best, choice_logprobs=logprobs, prompt_tokens=len(tokens), completion_tokens=0
        )

    def _read_choices(self, tokens: list[int], choices: tuple[str, ...]) -> dict[str, float]:
        """One forward pass; the choices' log-probabilities from the last logits."""
        import numpy as np

        self._eval_reusing_prefix(tokens)
        llm = self._llm
        logits = np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(llm.n_vocab(),))
        logits = logits.astype(np.float64)
        top = logits.max()
        log_z = top + math.log(float(np.exp(logits - top).sum()))
        logprobs = {}
        for choice in choices:
            vals = logits[self._choice_ids(choice)]
            logprobs[choice] = float(top + math.log(float(np.exp(vals - top).sum())) - log_z)
        return logprobs

    def _generate(self, request: ModelRequest) -> ModelResponse:
        llm = self._load()
        grammar = None
        if request.mode == "json" and request.json_schema is not None:
            from llama_cpp import LlamaGrammar

            grammar = LlamaGrammar.from_json_schema(json.dumps(request.json_schema), verbose=False)
        prompt = self._tokens(chatml(request.messages))
        out = llm.create_completion(
            prompt=prompt,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            top_k=40 if request.temperature > 0 else 1,
            seed=request_seed(request),
            grammar=grammar,
            stop=["<|im_end|>", "<|endoftext|>"],
        )
        usage = out.get("usage", {})
        return ModelResponse(
            text=out["choices"][0]["text"],
            prompt_tokens=int(usage.get("prompt_tokens", len(prompt))),
            completion_tokens=int(usage.get("completion_tokens", 0)),
        )

    def complete(self, request: ModelRequest) -> ModelResponse:
        with self._lock:
            self._load()
            if request.mode == "choice":
                return self._choice(request)
            return self._generate(request)
