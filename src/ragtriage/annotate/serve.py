"""Serve a page with uvicorn: a free port on 127.0.0.1 unless told otherwise.

Ctrl-C (and SIGTERM) is the documented way to stop: every mark is already on disk, so
the server stops cleanly and :func:`serve` returns, and the command says what was saved
and exits 0 (not the 130 of an interrupted audit, which has lost work to report).
"""

from __future__ import annotations

import signal
import socket
import threading
import webbrowser
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from types import FrameType

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
    """Run until stopped (Ctrl-C, SIGTERM); ``announce`` gets the URL with its token once
    listening. Returns normally when stopped."""
    token = new_token()
    try:
        port = port or free_port(host)
    except OSError as exc:
        raise InputError(f"cannot listen on {host}: {exc.strerror}", field="--host") from None
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/?token={token}"
    config = uvicorn.Config(
        make_app(task, token, host, port),
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        proxy_headers=False,  # no proxy in front: a forwarded header is a client's claim
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
    # uvicorn re-raises the Ctrl-C it shut down on: here it is the way to stop
    with _stop_on_terminate(), suppress(KeyboardInterrupt):
        server.run()


@contextmanager
def _stop_on_terminate() -> Iterator[None]:
    """SIGTERM as Ctrl-C: uvicorn shuts down on it and then re-raises it, which with the
    default handler would end the process before the summary is printed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
