"""The model layer's protocol: one request/response shape for every backend.

Strategies build a :class:`ModelRequest`; a backend (litellm, embedded llama.cpp, the
replay double) turns it into a :class:`ModelResponse`. Because a request is a frozen,
JSON-serialisable value, its hash is the cache key, and the replay double can serve
recordings keyed exactly like the cache.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ragtriage.errors import RagtriageError

__all__ = [
    "ChatModel",
    "Message",
    "ModelRequest",
    "ModelResponse",
    "ModelTimeoutError",
    "PermanentModelError",
    "ShapeNegotiating",
    "TransientModelError",
    "UnsupportedRequestError",
    "Usage",
    "as_messages",
    "brief",
    "cache_key",
]


class Message(BaseModel):
    model_config = ConfigDict(frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


class ModelRequest(BaseModel):
    """Everything that determines a model's output (besides the model itself)."""

    model_config = ConfigDict(frozen=True)

    messages: tuple[Message, ...]
    prompt_sha256: str = ""  # of the prompt file the messages were rendered from
    schema_name: str = "answer"
    json_schema: dict[str, Any] | None = None
    # "choice": score the first token of ``choice_prefix`` continuations (a local judge's
    # probability); "json": generate a JSON document matching ``json_schema``; "text": free.
    mode: Literal["json", "choice", "text"] = "json"
    choices: tuple[str, ...] = ()
    choice_prefix: str = ""
    max_tokens: int = 512
    temperature: float = 0.0
    # which of an answer's repeated samples this request is (``--samples``): each sample
    # is its own call and cache entry; 0, the first, keeps the key it always had
    sample: int = 0


class ModelResponse(BaseModel):
    text: str
    choice_logprobs: dict[str, float] = Field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    # the provider's response headers that matter to the caller (rate limits): read once
    # by :class:`~ragtriage.llm.calls.Caller`, never cached or recorded
    headers: dict[str, str] = Field(default_factory=dict, exclude=True, repr=False)


class Usage(BaseModel):
    """Calls made, calls answered from the cache, tokens and cost: per item and in total."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    calls: int = 0
    """Model calls made (count); calls answered from the cache are not in it."""
    cached_calls: int = 0
    """Calls answered from the response cache, at no cost (count)."""
    prompt_tokens: int = 0
    """Prompt tokens of the calls made, as the model reported them (count)."""
    completion_tokens: int = 0
    """Completion tokens of the calls made, as the model reported them (count)."""
    cost_usd: float = 0.0
    """Cost of the calls made in US dollars, as litellm prices them; 0 for the embedded
    model and for a model litellm has no price for."""

    def __add__(self, other: Usage) -> Usage:
        """Two runs' usage together (an audit's judge run and its reference check)."""
        return Usage(**{k: getattr(self, k) + getattr(other, k) for k in type(self).model_fields})


class TransientModelError(RagtriageError):
    """Worth retrying: rate limit (429), timeout, connection error, 5xx."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ModelTimeoutError(TransientModelError):
    """The call timed out: retried, and the caller lowers its calls in flight."""


class PermanentModelError(RagtriageError):
    """Not worth retrying (bad request, auth, missing recording): the item is unscored."""


class UnsupportedRequestError(PermanentModelError):
    """The endpoint refused the request's *shape* (e.g. its ``response_format``).

    Permanent for that shape. ``fell_back``: the model has switched to a weaker shape
    (its ``params`` changed), so the same request is worth sending again as the new shape.
    """

    def __init__(self, message: str, fell_back: bool = False) -> None:
        super().__init__(message)
        self.fell_back = fell_back


@runtime_checkable
class ChatModel(Protocol):
    """A judge or generator model. ``name`` and ``params`` identify its outputs."""

    name: str
    params: dict[str, Any]
    local: bool  # costs nothing; callers may skip cost estimates

    async def complete(self, request: ModelRequest) -> ModelResponse: ...


@runtime_checkable
class ShapeNegotiating(Protocol):
    """A model that finds the request shape an endpoint accepts by trying (litellm's JSON
    mode). Its ``params`` name the shape in use, so the shape is in every cache key."""

    def shapes(self) -> list[dict[str, Any]]:
        """``params`` of the shape in use, then of each weaker one still to try; empty
        when the shape is fixed (nothing to negotiate)."""
        ...

    def adopt(self, params: dict[str, Any]) -> None:
        """Use the shape of ``params`` (one of :meth:`shapes`), e.g. found in the cache."""
        ...


def cache_key(model: ChatModel, request: ModelRequest, params: dict[str, Any] | None = None) -> str:
    """Content address of one call: model, output-changing parameters, prompt hash, inputs.

    ``params``: another shape's parameters instead of the model's current ones."""
    return request_key(model.name, model.params if params is None else params, request)


def request_key(name: str, params: dict[str, Any], request: ModelRequest) -> str:
    """:func:`cache_key` from a model's name and params alone (a recording of answers keys
    its rows by the model that wrote them, with no model object at hand)."""
    dumped = request.model_dump(mode="json")
    if not dumped.get("sample"):  # the first sample's key is the key before samples existed
        dumped.pop("sample", None)
    payload = {
        "model": name,
        "params": params,
        "request": dumped,
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def as_messages(prompt: str | list[dict[str, str]]) -> tuple[Message, ...]:
    """A plain prompt becomes one user message; a chat list is validated."""
    if isinstance(prompt, str):
        return (Message(role="user", content=prompt),)
    return tuple(Message(**m) for m in prompt)


def brief(exc: Exception, limit: int) -> str:
    """An error's text on one line, at most ``limit`` characters (for a reason or a note)."""
    return " ".join(str(exc).split())[:limit]
