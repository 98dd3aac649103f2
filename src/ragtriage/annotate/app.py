"""The local web app both pages run in (Starlette, served by uvicorn on 127.0.0.1).

Security, because the page shows other people's text and writes the user's files:

* **A token on every request.** The URL printed at start carries a random token
  (``secrets.token_urlsafe(32)``, as Jupyter does). The page's first request sets it as
  an ``HttpOnly``, ``SameSite=Strict`` cookie, so the static files load; every API call
  also sends it in the ``X-Ragtriage-Token`` header, and a write needs the header (a form
  another site posts carries no header). Anything else is 403, before any route runs.
* **A strict Content-Security-Policy.** Scripts and styles only from this server's own
  static files (no inline script or style, no ``eval``), no other origin contacted, no
  frames, no forms, no plugins, so a passage carrying ``<script>`` or
  ``<img onerror>`` could not run even if it reached the DOM as HTML; the page inserts
  every untrusted text with ``textContent`` anyway.
* No caching of API answers, ``nosniff``, no referrer (the token is in the first URL).
"""

from __future__ import annotations

import hmac
import secrets
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ragtriage.annotate.store import Conflict
from ragtriage.errors import InputError

__all__ = ["CSP", "COOKIE", "HEADER", "Task", "make_app", "new_token"]

COOKIE = "ragtriage_token"
HEADER = "x-ragtriage-token"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
STATIC = Path(str(resources.files("ragtriage.annotate") / "static"))


class Task(Protocol):
    """What a page works on: the golden-set session or the grading session."""

    kind: str
    total: int  # items in the sample

    def state(self) -> dict[str, Any]: ...

    def item(self, index: int) -> dict[str, Any]: ...

    def save(self, index: int, body: dict[str, Any]) -> dict[str, Any]: ...

    def move(self, index: int) -> None: ...

    def search(self, text: str) -> dict[str, Any]: ...


def new_token() -> str:
    return secrets.token_urlsafe(32)


class _Guard(BaseHTTPMiddleware):
    """The token check and the security headers on every response."""

    def __init__(self, app: Any, token: str) -> None:
        super().__init__(app)
        self.token = token

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        given = request.headers.get(HEADER)
        if given is None and request.method == "GET":
            given = request.cookies.get(COOKIE) or (
                request.query_params.get("token") if request.url.path == "/" else None
            )
        if given is None or not hmac.compare_digest(given.encode(), self.token.encode()):
            response: Response = PlainTextResponse("403: a valid token is required", 403)
        else:
            response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        return response


def make_app(task: Task, token: str) -> Starlette:
    page = (STATIC / f"{task.kind}.html").read_text(encoding="utf-8")

    async def index(request: Request) -> Response:
        response = Response(page.replace("{{token}}", token), media_type="text/html")
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response

    async def state(request: Request) -> Response:
        return JSONResponse(task.state())

    async def item(request: Request) -> Response:
        index = _index(request)
        if isinstance(index, Response):
            return index
        if request.method == "GET":
            return JSONResponse(task.item(index))
        body = await _json(request)
        if isinstance(body, Response):
            return body
        try:
            return JSONResponse(task.save(index, body))
        except Conflict as exc:
            return JSONResponse({"conflict": True, "version": exc.version}, 409)
        except InputError as exc:
            return JSONResponse({"error": str(exc)}, 400)

    async def move(request: Request) -> Response:
        index = _index(request)
        if isinstance(index, Response):
            return index
        task.move(index)
        return JSONResponse({"position": index})

    async def search(request: Request) -> Response:
        return JSONResponse(task.search(request.query_params.get("q", "")[:500]))

    def _index(request: Request) -> int | Response:
        try:
            index = int(request.path_params["index"])
        except ValueError:
            return JSONResponse({"error": "not an item number"}, 404)
        if not 0 <= index < task.total:
            return JSONResponse({"error": "no such item"}, 404)
        return index

    routes = [
        Route("/", index),
        Route("/api/state", state),
        Route("/api/item/{index}", item, methods=["GET", "POST"]),
        Route("/api/move/{index}", move, methods=["POST"]),
        Route("/api/search", search),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(_Guard, token=token)])


async def _json(request: Request) -> dict[str, Any] | Response:
    try:
        body = await request.json()
    except ValueError:
        return JSONResponse({"error": "the body is not JSON"}, 400)
    if not isinstance(body, dict):
        return JSONResponse({"error": "expected a JSON object"}, 400)
    return body
