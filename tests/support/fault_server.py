"""An OpenAI-compatible fake judge on 127.0.0.1 that injects faults and counts calls.

``plan(number)`` says what the n-th request gets: ``ok``, ``429``, ``500``, ``503``,
``reset`` (the connection is closed without a reply), ``hang`` (no reply before the client
times out). Replies are deterministic claims JSON derived from the answer, so two runs can
be compared byte for byte. Every request's Authorization header is kept, to check keys.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Callable
from typing import Any

from aiohttp import web

Plan = Callable[[int], str]
HANG_S = 4.0  # longer than the client's timeout in the tests


def verdict_for(answer_block: str) -> str:
    """Deterministic pseudo-verdict so that outputs are reproducible across runs."""
    digest = hashlib.sha256(answer_block.encode()).digest()[0]
    return "supported" if digest % 3 else "not_in_context"


class FaultServer:
    def __init__(self, plan: Plan = lambda n: "ok", delay: float = 0.0) -> None:
        self.plan = plan
        self.delay = delay
        self.requests = 0
        self.answered = 0
        self.auth_headers: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.port = 0

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        with self._lock:
            self.requests += 1
            number = self.requests
            self.auth_headers.append(request.headers.get("Authorization", ""))
            self.bodies.append(body)
        action = self.plan(number)
        if action == "reset":
            request.transport.close()
            return web.Response(status=500)
        if action == "hang":
            await asyncio.sleep(HANG_S)
        if action in ("429", "500", "503"):
            return web.json_response(
                {"error": {"message": f"injected {action}"}},
                status=int(action),
                headers={"retry-after": "0"},
            )
        await asyncio.sleep(self.delay)
        with self._lock:
            self.answered += 1
        return web.json_response(_completion(body))

    def __enter__(self) -> FaultServer:
        threading.Thread(target=self._serve, daemon=True).start()
        assert self._ready.wait(10)
        return self

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        self._runner = web.AppRunner(app)
        self._loop.run_until_complete(self._runner.setup())
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(HANG_S + 30)
        self._loop.call_soon_threadsafe(self._loop.stop)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _completion(body: dict[str, Any]) -> dict[str, Any]:
    user = body["messages"][-1]["content"]
    answer = user.split("<answer>")[-1] if "<answer>" in user else user
    claims = {
        "kind": "claims",
        "claims": [
            {
                "claim": "The answer's first claim.",
                "verdict": verdict_for(answer),
                "chunk_ids": ["c0"],
                "reason": "deterministic fake",
            },
        ],
    }
    return {
        "id": "chatcmpl-fault",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": json.dumps(claims)},
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }
