"""Serve a page with uvicorn: a free port on 127.0.0.1 unless told otherwise."""

from __future__ import annotations

import socket
import webbrowser
from collections.abc import Callable

import uvicorn

from ragtriage.annotate.app import Task, make_app, new_token
from ragtriage.errors import InputError

__all__ = ["free_port", "serve"]


def free_port(host: str) -> int:
    """A port the OS says is free now (bound and released: uvicorn binds it next)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def serve(
    task: Task,
    host: str,
    port: int,
    announce: Callable[[str], None],
    open_browser: bool = False,
) -> None:
    """Run until interrupted; ``announce`` gets the URL with its token once listening."""
    token = new_token()
    try:
        port = port or free_port(host)
    except OSError as exc:
        raise InputError(f"cannot listen on {host}: {exc.strerror}", field="--host") from None
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/?token={token}"
    config = uvicorn.Config(
        make_app(task, token), host=host, port=port, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)

    original = server.startup

    async def startup(sockets=None) -> None:  # type: ignore[no-untyped-def]
        await original(sockets)
        if server.started:  # listening: only now is the URL worth printing
            announce(url)
            if open_browser:
                webbrowser.open(url)

    server.startup = startup  # type: ignore[method-assign]
    server.run()
