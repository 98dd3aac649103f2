"""The local web app both pages run in (Starlette, served by uvicorn on 127.0.0.1).

The page shows other people's text and writes the user's files (what the user is told:
docs/golden-sets.md, 'Label in the browser'). Every request passes :class:`_Guard`: a
random token (as Jupyter's), set as an ``HttpOnly``, ``SameSite=Strict`` cookie by the
page and sent by every API call in the ``X-Ragtriage-Token`` header, which a write needs
(a form another site posts carries no header); Host and Origin allowlisted (defence in
depth against DNS rebinding, which the token already blocks). Bodies are bounded and
checked (``MAX_BODY``, ``annotate.fields``), and a refused save changes nothing. A strict
Content-Security-Policy (this server's own static files only: no inline script or style,
no ``eval``, no frames or forms) means a passage carrying ``<script>`` could not run even
if it reached the DOM as HTML; the page inserts untrusted text with ``textContent``. No
referrer is sent: the token is in the first URL.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
import socket
from importlib import resources
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ragtriage.annotate.store import Conflict, NotSaved
from ragtriage.errors import InputError

__all__ = ["CSP", "HEADER", "MAX_BODY", "Task", "allowed_hosts", "cookie_name", "make_app",
           "new_token"]  # fmt: skip

MAX_BODY = 1 << 20  # a save is a few kilobytes: a megabyte is a paste gone wrong
LOOPBACK = ("127.0.0.1", "localhost", "::1")
WILDCARD = ("0.0.0.0", "::", "")
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


def cookie_name(port: int) -> str:
    """The token cookie of the server on ``port``: a browser sends every cookie of
    127.0.0.1 to every port of it, so the name keeps servers apart."""
    return f"ragtriage_token_{port}"


def allowed_hosts(host: str) -> frozenset[str]:
    """The names a request's ``Host`` may carry: the loopback names and ``--host``."""
    return frozenset({*LOOPBACK, host.strip("[]").lower()})


class Json(JSONResponse):
    """JSON with every non-ASCII character escaped: a text no UTF-8 can encode (from a
    corpus, or echoed in an error) still makes a valid answer, never a 500."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False).encode("ascii")


class _Guard(BaseHTTPMiddleware):
    """The Host, Origin and token checks, and the security headers, on every response."""

    def __init__(self, app: Any, token: str, host: str, port: int) -> None:
        super().__init__(app)
        self.token = token.encode()
        self.cookie = cookie_name(port)
        self.hosts = allowed_hosts(host)
        self.wildcard = host in WILDCARD  # listening on every address: any IP literal
        self.port = port

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if not self._host_ok(request.headers.get("host", "")):
            response: Response = PlainTextResponse("403: not this server's host name", 403)
        elif not self._origin_ok(request.headers.get("origin")):
            response = PlainTextResponse("403: a request from another site", 403)
        elif not self._authorised(request):
            response = PlainTextResponse("403: a valid token is required", 403)
        else:
            response = await call_next(request)
        location = response.headers.get("location")
        if location is not None:  # a redirect stays on the host the browser asked
            parts = urlsplit(location)
            path = "/" + parts.path.lstrip("/")
            response.headers["location"] = path + (f"?{parts.query}" if parts.query else "")
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        return response

    def _same(self, given: str) -> bool:
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.token)

    def _authorised(self, request: Request) -> bool:
        given = request.headers.get(HEADER)
        if given is not None:
            return self._same(given)
        if request.method != "GET":
            return False  # a write needs the header
        query = request.query_params.get("token") if request.url.path == "/" else None
        if query is not None and self._same(query):
            return True  # the printed URL wins over a cookie an older run left
        cookie = request.cookies.get(self.cookie)
        return cookie is not None and self._same(cookie)

    def _name_ok(self, name: str | None, port: int | None) -> bool:
        if not name or (port is not None and port != self.port):
            return False
        if name in self.hosts:
            return True
        if not self.wildcard:
            return False
        try:  # an IP literal cannot be rebound to another machine by DNS
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return name in {socket.gethostname().lower(), socket.getfqdn().lower()}

    def _host_ok(self, host: str) -> bool:
        try:
            parts = urlsplit(f"//{host}")
            return "@" not in host and self._name_ok(parts.hostname, parts.port)
        except ValueError:  # a port that is not a number
            return False

    def _origin_ok(self, origin: str | None) -> bool:
        if origin is None:
            return True  # not a cross-site request (browsers send Origin on those)
        try:
            parts = urlsplit(origin)
            port = parts.port if parts.port is not None else 80
            return parts.scheme == "http" and self._name_ok(parts.hostname, port)
        except ValueError:
            return False


def make_app(task: Task, token: str, host: str = "127.0.0.1", port: int = 0) -> Starlette:
    routes = _routes(task, token, cookie_name(port))
    middleware = [Middleware(_Guard, token=token, host=host, port=port)]
    return Starlette(routes=routes, middleware=middleware)


def _routes(task: Task, token: str, cookie: str) -> list[Route | Mount]:
    """The page (setting the token cookie), its API over ``task``, its static files."""
    page = (STATIC / f"{task.kind}.html").read_text(encoding="utf-8")

    async def index(request: Request) -> Response:
        response = Response(page.replace("{{token}}", token), media_type="text/html")
        response.set_cookie(cookie, token, httponly=True, samesite="strict")
        return response

    async def state(request: Request) -> Response:
        return Json(task.state())

    async def item(request: Request) -> Response:
        index = _index(request, task.total)
        if isinstance(index, Response):
            return index
        if request.method == "GET":
            return Json(task.item(index))
        body = await _json(request)
        return body if isinstance(body, Response) else _saved(task, index, body)

    async def move(request: Request) -> Response:
        index = _index(request, task.total)
        if isinstance(index, Response):
            return index
        try:
            task.move(index)
        except NotSaved as exc:
            return Json({"error": f"not saved: {exc}"}, 503)
        return Json({"position": index})

    async def search(request: Request) -> Response:
        return Json(task.search(request.query_params.get("q", "")[:500]))

    return [
        Route("/", index),
        Route("/api/state", state),
        Route("/api/item/{index}", item, methods=["GET", "POST"]),
        Route("/api/move/{index}", move, methods=["POST"]),
        Route("/api/search", search),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]


def _index(request: Request, total: int) -> int | Response:
    """The item number in the path; a 404 when it is not one of the sample's."""
    raw = request.path_params["index"]
    if not (raw.isascii() and raw.isdigit() and len(raw) < 10):
        return Json({"error": "not an item number"}, 404)
    index = int(raw)
    if not 0 <= index < total:
        return Json({"error": "no such item"}, 404)
    return index


def _saved(task: Task, index: int, body: dict[str, Any]) -> Response:
    """The save's answer: the new version, or why nothing was saved (409, 400, 503)."""
    try:
        return Json(task.save(index, body))
    except Conflict as exc:
        return Json({"conflict": True, "version": exc.version}, 409)
    except InputError as exc:
        where = f"field '{exc.field}': " if exc.field else ""
        return Json({"error": f"not saved: {where}{exc.message}", "field": exc.field}, 400)
    except NotSaved as exc:
        return Json({"error": f"not saved: {exc}"}, 503)


async def _json(request: Request) -> dict[str, Any] | Response:
    """The body as a JSON object; a 4xx naming what is wrong otherwise. Python's parser,
    not orjson: it keeps a lone surrogate or a NaN as a value, so the field check names
    the field that holds it (orjson would refuse the whole body without a name)."""
    size = request.headers.get("content-length", "")
    if size.isdigit() and int(size) > MAX_BODY:
        return Json({"error": f"not saved: the body is over {MAX_BODY} bytes"}, 413)
    raw = bytearray()
    async for part in request.stream():
        raw += part
        if len(raw) > MAX_BODY:
            return Json({"error": f"not saved: the body is over {MAX_BODY} bytes"}, 413)
    try:
        body = json.loads(raw.decode("utf-8"))
    except RecursionError:
        return Json({"error": "not saved: the body is nested too deep"}, 400)
    except ValueError:  # not JSON, or not UTF-8
        return Json({"error": "not saved: the body is not JSON"}, 400)
    if not isinstance(body, dict):
        return Json({"error": "not saved: expected a JSON object"}, 400)
    return body
