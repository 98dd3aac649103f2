"""``ragtriage doctor``: check what a newcomer's install needs, and say what to fix.

Each check returns a :class:`Check`; a failure carries its fix. The model runs only in a
child process, so a llama.cpp build that segfaults on this CPU is reported, not fatal.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec
from pathlib import Path
from typing import Literal

from ragtriage.atomic import file_sha256
from ragtriage.llm.base import Message, ModelRequest
from ragtriage.llm.build import (
    INSTALL_COMMAND,
    LLAMA_CPP_VERSION,
    REBUILD_COMMAND,
    beyond_portable,
    compiled_features,
    cpu_flags,
    unsupported_features,
)
from ragtriage.llm.cache import default_cache_path
from ragtriage.llm.weights import MODEL_SHA256, cache_dir, model_path

__all__ = ["Check", "run"]

Status = Literal["ok", "fail", "optional"]
SETUP = INSTALL_COMMAND
PACKAGES = ("ragtriage", "numpy", "pandas", "pyarrow", "pydantic", "litellm", "tenacity")


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""


def packages() -> Check:
    """Installed versions; llama-cpp-python must be the pinned one."""
    found = {p: _version(p) for p in (*PACKAGES, "llama-cpp-python")}
    detail = f"python {sys.version.split()[0]}; " + ", ".join(
        f"{p} {v or 'MISSING'}" for p, v in found.items()
    )
    missing = [p for p in PACKAGES if found[p] is None]
    if missing:
        return Check("packages", "fail", detail, f"pip install -e . ({', '.join(missing)})")
    if found["llama-cpp-python"] is not None and found["llama-cpp-python"] != LLAMA_CPP_VERSION:
        return Check("packages", "fail", detail, f"llama-cpp-python=={LLAMA_CPP_VERSION}: {SETUP}")
    return Check("packages", "ok", detail)


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None


def model_file() -> Check:
    """The GGUF file joined from the chunk packages, re-hashed in full here."""
    try:
        path = model_path()
    except Exception as exc:  # every way of not having the file is reported
        return Check("model file", "fail", str(exc), SETUP)
    started = time.perf_counter()
    digest = file_sha256(path)
    took = time.perf_counter() - started
    if digest != MODEL_SHA256:
        fix = f"delete {path} and run: {SETUP}"
        return Check("model file", "fail", f"{path}: SHA-256 {digest}", fix)
    return Check("model file", "ok", f"{path}: SHA-256 verified ({took:.1f} s)")


def llama_build(info: str) -> Check:
    """Compiled CPU features against this CPU's: a mismatch dies of SIGILL."""
    compiled = compiled_features(info)
    missing = unsupported_features(compiled, cpu_flags())
    first = " ".join(info.split())[:300]
    if missing:
        return Check("llama.cpp build", "fail", f"{first}; CPU lacks {missing}", REBUILD_COMMAND)
    extra = beyond_portable(compiled)
    note = f" (native build: also {', '.join(extra)})" if extra else " (portable build)"
    return Check("llama.cpp build", "ok", first + note)


def generation(n_threads: int | None = None) -> tuple[Check, str]:
    """One token from the embedded model in a child process, and the build it reports."""
    from ragtriage.llm.engine import default_threads
    from ragtriage.llm.worker import WorkerProcess

    worker = WorkerProcess(n_threads=n_threads or default_threads(), n_ctx=512)
    request = ModelRequest(
        messages=(Message(role="user", content="Answer with one word: yes or no?"),),
        mode="text",
        max_tokens=1,
    )
    started = time.perf_counter()
    try:
        worker.hello()
        text = worker.complete(request).text
    except Exception as exc:  # a crash, a missing library: all reported
        return Check("one-token generation", "fail", str(exc), REBUILD_COMMAND), worker.system_info
    finally:
        worker.close()
    took = time.perf_counter() - started
    detail = f"answered {text!r} in {took:.1f} s (load included) in a child process"
    return Check("one-token generation", "ok", detail), worker.system_info


def writable(name: str, folder: Path) -> Check:
    """The cache folders must take a file (the SQLite cache, the joined model)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder):
            pass
    except OSError as exc:
        fix = f"make {folder} writable, or set RAGTRIAGE_CACHE / RAGTRIAGE_HOME"
        return Check(name, "fail", f"{folder}: {exc}", fix)
    return Check(name, "ok", f"{folder} is writable")


def litellm_offline(timeout_s: float = 120.0) -> Check:
    """Import litellm in a child whose proxies lead nowhere: it must not need the network."""
    code = "import ragtriage.llm.litellm_model, litellm; print(litellm.__name__)"
    env = {
        **os.environ,
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, timeout=timeout_s
        )
    except subprocess.TimeoutExpired:
        return Check("litellm offline", "fail", f"import took over {timeout_s:.0f} s", SETUP)
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        return Check("litellm offline", "fail", " ".join(tail), "pip install 'litellm>=1.40'")
    took = time.perf_counter() - started
    return Check("litellm offline", "ok", f"imported with the network blocked ({took:.1f} s)")


def chromium() -> Check:
    """Headless Chromium: only the HTML report's browser tests need it."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return Check("headless Chromium", "ok", path)
    fix = "apt-get install chromium (only the HTML tests need it)"
    return Check("headless Chromium", "optional", "not found", fix)


def without_model() -> Check:
    """The install ``bash scripts/setup.sh`` makes: no llama.cpp, no model, which the demo
    does not need; optional, so the doctor the setup names passes on it."""
    return Check(
        "embedded model",
        "optional",
        "not installed: the demo audits the answers it wrote that ship with the handbook "
        "set; it is needed to write new answers (--live, your golden set) or to judge by a "
        "rule that reads its signals",
        SETUP,
    )


def run(on_check: Callable[[Check], None] | None = None) -> list[Check]:
    """Every check in order; ``on_check`` sees each as it finishes (they take seconds)."""
    checks: list[Check] = []

    def add(check: Check) -> None:
        checks.append(check)
        if on_check:
            on_check(check)

    add(packages())
    if find_spec("llama_cpp") is None:
        add(without_model())
    else:
        add(model_file())
        gen, info = generation()
        add(llama_build(info) if info else Check("llama.cpp build", "fail", "unknown", SETUP))
        add(gen)
    add(writable("cache folder", default_cache_path().resolve().parent))
    add(writable("model folder", cache_dir()))
    add(litellm_offline())
    add(chromium())
    return checks
