"""A local OpenAI-compatible server for tests: scripted replies, 429s, bad JSON, latency.

It runs aiohttp in a background thread on 127.0.0.1 (no network), records every request
and the peak number of requests in flight, so tests can check retries and bounds.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

Reply = tuple[int, str]  # (HTTP status, message content)
# (request number, HTTP status) -> extra response headers (rate limits, Retry-After)
Headers = Callable[[int, int], dict[str, str]]


class FakeOpenAI:
    def __init__(
        self,
        script: Callable[[dict[str, Any], int], Reply],
        delay: float = 0.0,
        slots: int | None = None,
        serial: bool = False,
        headers: Headers | None = None,
    ):
        self.script = script
        self.headers = headers
        # (arrived, answered) monotonic times of each request, in order of arrival
        self.times: list[list[float]] = []
        self.delay = delay
        self.slots = slots  # answered on GET /props as llama.cpp does; None: 404
        self.serial = serial  # one request computed at a time, the rest queue (unannounced)
        self._queue: asyncio.Lock | None = None
        self.props_requests = 0
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.peak = 0
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self.port = 0

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        with self._lock:
            self.requests.append(body)
            number = len(self.requests)
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            stamp = [time.monotonic(), 0.0]
            self.times.append(stamp)
        try:
            status, content = await self._compute(body, number)
        finally:
            with self._lock:
                self.in_flight -= 1
                stamp[1] = time.monotonic()
        extra = self.headers(number, status) if self.headers is not None else {}
        if status != 200:
            error = {"error": {"message": content, "type": "rate_limit", "code": status}}
            return web.json_response(error, status=status, headers={"retry-after": "0", **extra})
        return web.json_response(_completion(body, content), headers=extra)

    async def _compute(self, body: dict[str, Any], number: int) -> Reply:
        if not self.serial:
            await asyncio.sleep(self.delay)
            return self.script(body, number)
        self._queue = self._queue or asyncio.Lock()
        async with self._queue:
            await asyncio.sleep(self.delay)
            return self.script(body, number)

    async def _props(self, request: web.Request) -> web.Response:
        self.props_requests += 1
        if self.slots is None:
            return web.json_response({"error": "not found"}, status=404)
        return web.json_response({"total_slots": self.slots, "build_info": "fake"})

    def __enter__(self) -> FakeOpenAI:
        threading.Thread(target=self._serve, daemon=True).start()
        self._ready.wait(10)
        return self

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_get("/props", self._props)
        runner = web.AppRunner(app)
        self._loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        self._loop.run_until_complete(site.start())
        self.port = site._server.sockets[0].getsockname()[1]
        self._runner = runner
        self._ready.set()
        self._loop.run_forever()

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _completion(body: dict[str, Any], content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


def claims_reply(verdicts: list[str], kind: str = "claims") -> str:
    claims = [
        {"claim": f"claim {i}", "verdict": v, "chunk_ids": ["c0"], "reason": "r"}
        for i, v in enumerate(verdicts)
    ]
    return json.dumps({"kind": kind, "claims": claims})
