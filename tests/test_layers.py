"""The layers a reader sees in the tree, and imports only going down.

data < llm < retrieval | judge < calibration < triage < system < results < annotate <
flows < render < cli | api. ``results`` holds what the commands produce, read back,
compared and gated; ``render`` draws results and never imports ``flows`` (the commands);
the command line (``cli``) and the Python face (``api.py``) compose flows and render.
A module may import its own package and any lower layer; never a higher one, nor a
sibling on its own level (retrieval and judge know nothing of each other). Terminal,
Markdown, HTML and plot output live only in ``render`` (``rich``, ``matplotlib``).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "ragtriage"
LAYER = {
    "_lazy": 0,  # lazy public names of a package
    "errors": 0,  # helpers every layer shares: errors, notices, atomic writes, statistics
    "notices": 0,
    "atomic": 1,
    "stats": 1,
    "memory": 1,
    "data": 2,
    "llm": 3,
    "retrieval": 4,
    "judge": 4,
    "calibration": 5,
    "triage": 6,
    "system": 7,  # running the system under test: retriever + generator -> traces
    "results": 8,  # the files we write: schemas re-exported, loading, compare, gate
    "annotate": 9,  # the labelling pages' machinery: sample, pools, session store, web app
    "flows": 10,  # one module per command: config, run(), result
    "render": 11,
    "cli": 12,  # the two faces: the command line and the Python API (api.py)
    "api": 12,
}
DISPLAY = ("rich", "matplotlib")


def _unit(path: Path) -> str:
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return names


def _modules() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py"]


def test_every_package_has_a_layer():
    assert {_unit(p) for p in _modules()} <= LAYER.keys()


def test_imports_only_go_down():
    upward = []
    for path in _modules():
        unit = _unit(path)
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] != "ragtriage" or len(parts) < 2 or parts[1] == unit:
                continue
            if LAYER[parts[1]] >= LAYER[unit]:
                upward.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert upward == []


def test_display_libraries_only_in_render():
    found = [
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in _modules()
        if _unit(path) != "render"
        for name in _imports(path)
        if name.split(".")[0] in DISPLAY
    ]
    assert found == []


def test_render_draws_results_never_flows():
    """``render`` reads what a command produced through ``results``; an import of
    ``flows`` would put a command's config and run back inside the drawing."""
    found = [
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in _modules()
        if _unit(path) == "render"
        for name in _imports(path)
        if name == "ragtriage.flows" or name.startswith("ragtriage.flows.")
    ]
    assert found == []
