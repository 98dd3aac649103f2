"""Any provider through litellm: OpenAI, Anthropic, Ollama, vLLM, any OpenAI-compatible URL.

Keys come from the provider's usual environment variables and are never passed through
our objects, so they cannot reach logs, the cache or results. litellm's own retries are
off: one policy (:mod:`ragtriage.llm.calls`) retries everything. Servers disagree on how
JSON output is requested (a llama.cpp server rejects OpenAI's ``json_schema`` but accepts
``{"type": "json_object", "schema": ...}``), so the mode is found per endpoint
(docs/judges.md, 'JSON mode is found per endpoint') and kept in ``params``, hence in every
cache key and the fingerprint.

Errors are classified once: a refused request shape (a 4xx, or llama-cpp-python's 500
"Input should be 'text' or 'json_object'"), a 4xx, a validation or configuration error
is permanent; 429, 5xx and connection errors are transient; a timeout is a
:class:`ModelTimeoutError`. A local endpoint gets a long default timeout
(:data:`LOCAL_TIMEOUT_S`): a one-slot server queues requests, and a client that gives up
on a queued one throws away work the server will still do. A response's rate-limit
headers, and an error's ``Retry-After``, travel to the caller
(:mod:`ragtriage.llm.ratelimit`); ``rate_limits`` is this endpoint's window.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Literal, cast

__all__ = [
    "JSON_MODES",
    "JsonMode",
    "LOCAL_TIMEOUT_S",
    "LiteLLMModel",
    "REMOTE_TIMEOUT_S",
    "TRANSIENT",
    "default_json_mode",
    "is_local_endpoint",
    "known_model",
    "model_suggestions",
]

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import

from ragtriage.errors import RagtriageError
from ragtriage.llm.base import (
    ModelRequest,
    ModelResponse,
    ModelTimeoutError,
    PermanentModelError,
    TransientModelError,
    UnsupportedRequestError,
    brief,
)
from ragtriage.llm.modes import JSON_MODES, JsonMode
from ragtriage.llm.ratelimit import RateLimits, retry_after_s

REMOTE_TIMEOUT_S = 120.0
LOCAL_TIMEOUT_S = 900.0  # a queued request on a one-slot local server is not abandoned
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")
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
# A 5xx whose body says the request itself is invalid: the same request fails again.
_INVALID = ("validation error", "literal_error", "unsupported", "not supported", "invalid_request")


def known_model(model: str) -> bool:
    """Whether litellm can route ``model``: a provider it knows (``openai/...``,
    ``ollama/...``) or a bare id in its bundled model map (``gpt-4o-mini``). Offline, from
    litellm's own tables; a name failing here fails every call with "LLM Provider NOT
    provided", so it is refused before any work rather than once per answer."""
    litellm = _litellm()
    if model in litellm.model_cost:
        return True
    try:
        litellm.get_llm_provider(model)
    except Exception:  # litellm raises BadRequestError (and others) for an unknown one
        return False
    return True


def model_suggestions(name: str, limit: int = 3) -> list[str]:
    """litellm model ids and provider prefixes (``openai/``) closest to ``name``."""
    import difflib

    litellm = _litellm()
    providers = [f"{getattr(p, 'value', p)}/" for p in litellm.provider_list]
    if "/" in name:  # a misspelt provider: compare the prefix with the providers
        head = name.split("/", 1)[0] + "/"
        return difflib.get_close_matches(head, providers, n=limit, cutoff=0.6)
    return difflib.get_close_matches(name, list(litellm.model_cost), n=limit, cutoff=0.75)


def is_local_endpoint(api_base: str | None) -> bool:
    """Whether ``api_base`` is a server on this machine (localhost, 127.0.0.1, ::1)."""
    if not api_base:
        return False
    from urllib.parse import urlsplit

    try:
        host = urlsplit(api_base if "//" in api_base else f"//{api_base}").hostname
    except ValueError:
        return False
    return host in _LOCAL_HOSTS


def default_json_mode(model: str) -> JsonMode:
    """OpenAI-style schema for hosted providers; schema-in-json_object for self-hosted."""
    if model.startswith(("hosted_vllm/", "llamacpp/", "llama_cpp/")):
        return "json_object_schema"
    if model.startswith("ollama"):
        return "json_object"
    return "json_schema"


class LiteLLMModel:
    """A :class:`~ragtriage.llm.base.ChatModel` backed by ``litellm.acompletion``."""

    local = False
    # whether a response's rate-limit headers speak for the whole endpoint (a router's
    # come from one of its deployments, so they do not)
    follows_headers = True

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        json_mode: JsonMode | Literal["auto"] | None = None,
        timeout: float | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.name = model
        self.api_base = api_base
        # None/"auto": found per endpoint, starting from the strongest mode it may accept.
        self.detect = json_mode is None or json_mode == "auto"
        self.json_mode: JsonMode = (
            default_json_mode(model) if self.detect else cast(JsonMode, json_mode)
        )
        self.refused: list[str] = []  # "MODE: reason" for each mode the endpoint refused
        if timeout is None:
            timeout = LOCAL_TIMEOUT_S if is_local_endpoint(api_base) else REMOTE_TIMEOUT_S
        self.timeout = timeout
        self.extra = dict(extra or {})
        # api_base is part of the identity (two servers may serve different weights);
        # timeout is not (it does not change the output). json_mode is the mode in use.
        self.params: dict[str, Any] = {"api_base": api_base, "json_mode": self.json_mode}
        self.rate_limits = RateLimits()  # what the endpoint's headers say is left

    async def serving_slots(self) -> int | None:
        """How many requests a self-hosted server computes at once: llama.cpp's server
        answers ``GET /props`` with ``total_slots``. ``None`` when there is no
        ``api_base`` (a hosted provider) or the server does not say (404, another
        server, no answer within 5 s): then only the timeouts adapt the calls in flight."""
        if not self.api_base:
            return None
        import httpx

        root = re.sub(r"/v1/?$", "", self.api_base.rstrip("/"))
        try:
            async with httpx.AsyncClient(timeout=5.0) as client:
                reply = await client.get(f"{root}/props")
            slots = reply.json().get("total_slots") if reply.status_code == 200 else None
        except (httpx.HTTPError, ValueError, AttributeError):
            return None
        return slots if isinstance(slots, int) and slots >= 1 else None

    def shapes(self) -> list[dict[str, Any]]:
        """``params`` of the JSON mode in use and of each weaker one (none when given)."""
        if not self.detect:
            return []
        rest = JSON_MODES[JSON_MODES.index(self.json_mode) :]
        return [{**self.params, "json_mode": mode} for mode in rest]

    def adopt(self, params: dict[str, Any]) -> None:
        self._use(params["json_mode"])

    def _use(self, mode: JsonMode) -> None:
        self.json_mode = mode
        self.params["json_mode"] = mode

    def _fall_back(self, refused: JsonMode, reason: str) -> bool:
        """After ``refused`` was refused: switch to the next weaker mode (unless another
        call already did). ``False`` when there is nothing weaker to try."""
        if not self.detect:
            return False
        if self.json_mode != refused:  # a concurrent call already fell back
            return True
        if refused == JSON_MODES[-1]:
            return False
        self.refused.append(f"{refused}: {reason}")
        self._use(JSON_MODES[JSON_MODES.index(refused) + 1])
        return True

    def negotiated(self) -> dict[str, Any]:
        """What this run found out about the endpoint (for the run's record)."""
        return {"json_mode": self.json_mode, "json_modes_refused": list(self.refused)}

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
        mode = self.json_mode  # the shape this call is sent as (and cached under)
        kwargs = self._kwargs(request)
        try:
            raw = await self._send(litellm, kwargs)
        except RagtriageError:
            raise  # already classified (a router's "every deployment cooling down"; its file)
        except Exception as exc:  # classified below: transient ones are retried
            error = _classify(exc)
            if isinstance(error, UnsupportedRequestError) and "response_format" in kwargs:
                error.fell_back = self._fall_back(mode, brief(exc, 120))
            raise error from exc
        response = _to_response(litellm, raw, headers=self.follows_headers)
        return _as_choice(request, response) if request.mode == "choice" else response

    async def _send(self, litellm: Any, kwargs: dict[str, Any]) -> Any:
        """The one request (a router sends it to one of its deployments instead)."""
        return await litellm.acompletion(**kwargs)


def _classify(exc: Exception) -> Exception:
    """Permanent (never retried), unsupported shape, timeout or transient; see the module."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    text = str(exc)
    message = f"{name}: {brief(exc, 300)}"
    if any(hint in text for hint in _NOT_TRANSIENT):
        return PermanentModelError(message)
    if name in ("Timeout", "APITimeoutError") or status == 408:
        return ModelTimeoutError(message)
    if "response_format" in text and (status is None or status >= 400) and status != 429:
        return UnsupportedRequestError(message)
    if status == 429 or name == "RateLimitError":
        return TransientModelError(message, retry_after=_retry_after(exc))
    if status is not None and 400 <= status < 500:
        return PermanentModelError(message)
    if any(hint in text.lower() for hint in _INVALID):
        return PermanentModelError(message)
    if name in TRANSIENT or (status is not None and status >= 500):
        return TransientModelError(message, retry_after=_retry_after(exc))
    return PermanentModelError(message)


def _retry_after(exc: Exception) -> float | None:
    """The wait the error's headers ask for (litellm keeps them on the exception)."""
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    try:
        return retry_after_s(dict(headers) if headers else None)
    except (TypeError, ValueError):
        return None


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


def _to_response(litellm: Any, raw: Any, headers: bool = True) -> ModelResponse:
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
        headers=_headers(raw) if headers else {},
    )


def _headers(raw: Any) -> dict[str, str]:
    """The response's rate-limit headers as litellm passes them on
    (``_hidden_params["additional_headers"]``)."""
    hidden = getattr(raw, "_hidden_params", None)
    found = hidden.get("additional_headers") if isinstance(hidden, dict) else None
    if not isinstance(found, dict):
        return {}
    return {
        str(k): str(v)
        for k, v in found.items()
        if v is not None and ("ratelimit" in str(k).lower() or "retry-after" in str(k).lower())
    }
