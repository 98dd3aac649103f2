"""One vocabulary across commands (issue 27, item 9): the same word means the same thing
on every command, every option says what it is for, and help is never cut."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragtriage.cli.main import command_tree, main
from ragtriage.flows import audit as audit_flow
from ragtriage.flows import engine
from ragtriage.flows.audit import AuditConfig
from ragtriage.flows.retrieval import RetrievalConfig

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = ROOT / "golden_sets" / "handbook"
# every command that writes what it found: -o/--out names where
WRITERS = ("audit", "calibrate", "retrieval", "judge", "compare", "golden split", "golden check")


def _commands() -> dict[str, object]:
    found: dict[str, object] = {}

    def walk(command, path: str) -> None:
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, f"{path} {name}".strip())
        else:
            found[path] = command

    walk(command_tree(), "")
    return found


def _params(command: str) -> list:
    return [p for p in _commands()[command].params if p.name != "help"]  # type: ignore[attr-defined]


def test_generator_embedded_is_the_judges_word_and_local_still_works(tmp_path, monkeypatch):
    """``--generator embedded`` was refused (no module 'embedded') while the judge is
    ``--judge embedded``; ``local``, its earlier name, is kept and recorded as embedded."""

    class FailingCaller:  # the embedded model's caller, answering nothing (no model run)
        def __init__(self, *args, **kwargs) -> None:
            pass

        async def raw(self, request, usage):
            from ragtriage.llm.calls import Unscorable

            raise Unscorable("no model in this test")

    monkeypatch.setattr(engine, "require_llama", lambda: None)
    monkeypatch.setattr(engine, "LocalModel", lambda *a, **k: None)
    monkeypatch.setattr(audit_flow, "Caller", FailingCaller)
    for spelling in ("embedded", "local"):  # --live below: not the handbook's shipped answers
        out = tmp_path / spelling
        args = ["audit", "--golden", str(HANDBOOK), "--generator", spelling, "--judge",
                "lexical", "--limit", "2", "--cache", str(tmp_path / "c.sqlite"), "-o", str(out),
                "--quiet", "--live"]  # fmt: skip
        assert main(args) == 0
        results = json.loads((out / "results.json").read_text())
        assert results["config"]["generator"] == "embedded"
        # the embedded generator ran (through the model caller), not a callable named so
        assert all("no model in this test" in case["reason"] + " ".join(case["warnings"])
                   for case in results["cases"])  # fmt: skip
    assert AuditConfig(golden=HANDBOOK, generator="local").generator == "embedded"


@pytest.mark.parametrize("command", WRITERS)
def test_o_and_out_name_where_every_command_writes(command):
    """``-o`` was a file for retrieval/compare/judge (``--output``), ``--out`` a folder
    for audit and calibrate had no ``-o``."""
    outs = [p for p in _params(command) if "--out" in p.opts]
    assert len(outs) == 1 and "-o" in outs[0].opts, command


def test_one_depth_default_for_retrieval_and_audit():
    assert AuditConfig(golden=HANDBOOK).depth == RetrievalConfig().depth == 100
    commands = ("audit", "retrieval")
    depths = {c: [p.default for p in _params(c) if p.name == "depth"] for c in commands}
    assert depths == {"audit": [100], "retrieval": [100]}


def test_no_flag_has_a_no_twin_it_does_not_need():
    """``--no-cache --no-no-cache``, ``--quiet/--no-quiet``: a flag that is off unless
    given is one name; only a flag that is on by default is turned off with ``--no-``."""
    for command in _commands():
        for param in _params(command):
            names = [*param.opts, *getattr(param, "secondary_opts", [])]
            assert not any(n.startswith("--no-no-") for n in names), (command, names)
            if getattr(param, "is_flag", False) and param.default is False:
                assert not [n for n in param.secondary_opts if n.startswith("--no-")], names


def test_every_option_says_what_it_is_for():
    for command in _commands():
        for param in _params(command):
            if not getattr(param, "hidden", False):
                assert (getattr(param, "help", None) or "").strip(), (command, param.name)


@pytest.mark.parametrize("command", sorted(_commands()))
def test_help_is_not_cut_at_100_columns(command, capsys, monkeypatch):
    """Rich's table cut ``--require-beats-lexi…`` and split ``[0<=x<=92233720368547758``
    / ``07]`` over two lines at 100 columns."""
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("TERMINAL_WIDTH", "100")
    assert main([*command.split(), "--help"]) == 0
    text = capsys.readouterr().out
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 100
    words = set(re.split(r"[\s,\[\]]+", text))
    for param in _params(command):
        if getattr(param, "hidden", False) or param.param_type_name == "argument":
            continue
        for name in [*param.opts, *param.secondary_opts]:
            assert name in text, (command, name)
        bounds = [b for b in (getattr(param, "min", None), getattr(param, "max", None)) if b]
        for bound in bounds:  # a range's numbers are whole, never split over two lines
            assert any(str(bound) in w for w in words), (command, param.name, bound)
