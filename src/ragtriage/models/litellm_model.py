"""Any provider through litellm: OpenAI, Anthropic, Ollama, vLLM, any OpenAI-compatible URL.

Keys come from the provider's usual environment variables and are never passed through
our objects, so they cannot reach logs, the cache or results. litellm's own retries are
switched off: one policy (tenacity, in :mod:`ragtriage.models.calls`) retries everything.
``json_mode`` is per endpoint because servers disagree on how JSON output is requested:
OpenAI wants ``json_schema``; a llama.cpp server rejects that but accepts
``{"type": "json_object", "schema": ...}``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Literal

__all__ = ["JsonMode", "LiteLLMModel", "TRANSIENT", "default_json_mode"]

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import

from ragtriage.models.base import (
    ModelRequest,
    ModelResponse,
    PermanentModelError,
    TransientModelError,
)

JsonMode = Literal["json_schema", "json_object_schema", "json_object", "none"]
TRANSIENT = (
    "RateLimitError",
    "Timeout",
    "APIConnectionError",
    "InternalServerError",
    "ServiceUnavailableError",
    "BadGatewayError",
)


def _litellm():
    import litellm

    litellm.suppress_debug_info = True
    return litellm


# litellm reports some configuration errors as InternalServerError: do not retry those.
_NOT_TRANSIENT = ("Missing credentials", "api_key", "AuthenticationError")


def default_json_mode(model: str) -> JsonMode:
    """OpenAI-style schema for hosted providers; schema-in-json_object for self-hosted."""
    if model.startswith(("hosted_vllm/", "llamacpp/", "llama_cpp/")):
        return "json_object_schema"
    if model.startswith("ollama"):
        return "json_object"
    return "json_schema"


class LiteLLMModel:
    """A :class:`~ragtriage.models.base.ChatModel` backed by ``litellm.acompletion``."""

    local = False

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        json_mode: JsonMode | None = None,
        timeout: float = 120.0,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.name = model
        self.api_base = api_base
        self.json_mode: JsonMode = json_mode or default_json_mode(model)
        self.timeout = timeout
        self.extra = dict(extra or {})
        # api_base is part of the identity (two servers may serve different weights);
        # timeout is not (it does not change the output).
        self.params: dict[str, Any] = {"api_base": api_base, "json_mode": self.json_mode}

    def _response_format(self, request: ModelRequest) -> dict[str, Any] | None:
        if request.mode == "text" or request.json_schema is None or self.json_mode == "none":
            return None
        if self.json_mode == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": request.json_schema},
            }
        if self.json_mode == "json_object_schema":
            return {"type": "json_object", "schema": request.json_schema}
        return {"type": "json_object"}

    def _kwargs(self, request: ModelRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.name,
            "messages": [m.model_dump() for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "timeout": self.timeout,
            "num_retries": 0,
            "max_retries": 0,
            **self.extra,
        }
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if (fmt := self._response_format(request)) is not None:
            kwargs["response_format"] = fmt
        return kwargs

    async def complete(self, request: ModelRequest) -> ModelResponse:
        litellm = _litellm()
        try:
            raw = await litellm.acompletion(**self._kwargs(request))
        except Exception as exc:  # classified below: transient ones are retried
            raise _classify(exc) from exc
        response = _to_response(litellm, raw)
        return _as_choice(request, response) if request.mode == "choice" else response


def _classify(exc: Exception) -> Exception:
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if any(hint in str(exc) for hint in _NOT_TRANSIENT):
        return PermanentModelError(f"{name}: {_short(exc)}")
    if name in TRANSIENT or (isinstance(status, int) and (status == 429 or status >= 500)):
        retry_after = _retry_after(exc)
        return TransientModelError(f"{name}: {_short(exc)}", retry_after=retry_after)
    return PermanentModelError(f"{name}: {_short(exc)}")


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    try:
        value = headers.get("retry-after")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _short(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


def _as_choice(request: ModelRequest, response: ModelResponse) -> ModelResponse:
    """A hosted model answers ``{"supported": true}`` in JSON: keep the chosen value.

    Without token probabilities the choice is a hard verdict (probability 1 or 0); text
    that names no choice is left as is, so validation fails and the repair path runs.
    """
    try:
        value = json.loads(response.text)
        values = [v for v in value.values()] if isinstance(value, dict) else [value]
    except (ValueError, AttributeError):
        return response
    for v in values:
        text = str(v).lower()
        if text in request.choices:
            return response.model_copy(update={"text": text})
    return response


def _to_response(litellm: Any, raw: Any) -> ModelResponse:
    choice = raw.choices[0]
    text = choice.message.content or ""
    usage = getattr(raw, "usage", None)
    try:
        cost = float(litellm.completion_cost(completion_response=raw))
    except Exception:  # unknown model in the cost map: cost unknown, reported as 0
        cost = 0.0
    return ModelResponse(
        text=text,
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        cost_usd=cost,
    )
