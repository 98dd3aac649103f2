"""Each command's options are its config's fields, declared once (``flows/config.py``):
the option's help, default and range are the field's, a new field is a new option, and
the specs given as text are parsed once into the objects the flow takes."""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from typer.testing import CliRunner

import ragtriage.flows
from ragtriage.cli.main import command_tree, main
from ragtriage.cli.options import CLICK_MAX, PARSED, with_config
from ragtriage.data.formats.columns import ColumnMap
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.annotate import GoldenConfig, GradesConfig
from ragtriage.flows.audit import AuditConfig
from ragtriage.flows.calibrate import CalibrateConfig
from ragtriage.flows.compare import CompareConfig
from ragtriage.flows.config import Setting, settings
from ragtriage.flows.conversations import ConversationsConfig
from ragtriage.flows.export import ExportConfig
from ragtriage.flows.gate import GateConfig
from ragtriage.flows.golden.add import AddConfig
from ragtriage.flows.golden.check import CheckConfig
from ragtriage.flows.golden.split import SplitConfig
from ragtriage.flows.judge import JudgeConfig
from ragtriage.flows.retrieval import RetrievalConfig
from ragtriage.judge.spec import JudgeSpec

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = ROOT / "golden_sets" / "handbook"
CONFIGS = {
    "audit": AuditConfig,
    "conversations": ConversationsConfig,
    "retrieval": RetrievalConfig,
    "judge": JudgeConfig,
    "calibrate": CalibrateConfig,
    "compare": CompareConfig,
    "gate": GateConfig,
    "export": ExportConfig,
    "golden split": SplitConfig,
    "golden check": CheckConfig,
    "golden add": AddConfig,
    "annotate golden": GoldenConfig,
    "annotate grades": GradesConfig,
}
# options a command declares beside its config: where and how it prints (the flow returns
# a result; these say what becomes of it), and old spellings still read
OWN = {
    "audit": {"out", "quiet", "dry_run"},
    "conversations": {"out", "quiet"},
    "retrieval": {"out", "output", "quiet"},
    "judge": {"out", "output", "quiet", "dry_run", "model", "strategy"},
    "calibrate": {"plots", "require_beats_lexical"},
    "compare": {"out", "output", "markdown", "quiet"},
    "golden check": {"out", "output", "quiet"},
}
NO_CONFIG = {"doctor": "no options"}


def _command(path: str, root=None):
    command = root if root is not None else command_tree()
    for name in path.split():
        command = command.commands[name]
    return command


def _params(command: str, root=None) -> dict[str, object]:
    return {p.name: p for p in _command(command, root).params}


def _leaves(command, path: str = "") -> list[str]:
    subs = getattr(command, "commands", None)
    if not subs:
        return [path]
    return [leaf for name, sub in subs.items() for leaf in _leaves(sub, f"{path} {name}".strip())]


def not_options(command: str, config: type, root=None) -> list[str]:
    """The fields of ``config`` that ``command`` has no option (or argument) for."""
    params = _params(command, root)
    return [field.name for field, _, _ in settings(config) if field.name not in params]


def test_every_config_field_is_an_option():
    assert {c: not_options(c, config) for c, config in CONFIGS.items()} == dict.fromkeys(
        CONFIGS, []
    )


def test_a_config_field_that_is_no_option_is_found():
    """The check above can fail: a command declaring its options by hand, one short."""

    @dataclass
    class Toy:
        size: Annotated[int, Setting("How many.")] = 3
        name: Annotated[str, Setting("Who.")] = "x"

    app = typer.Typer()

    @app.command()
    def toy(size: int = 3) -> None:  # ``name`` forgotten
        pass

    @app.command()
    @with_config(Toy)
    def derived(config: Toy) -> None:
        pass

    root = typer.main.get_command(app)
    assert not_options("toy", Toy, root) == ["name"]
    assert not_options("derived", Toy, root) == []


def test_every_command_has_its_config_and_declares_nothing_else_by_hand():
    """A command's options are its config's fields, plus the few it lists in ``OWN``
    (output and old spellings): an option declared by hand beside a config is caught."""
    for command in _leaves(command_tree()):
        if command in NO_CONFIG:
            continue
        assert command in CONFIGS, f"{command!r}: no config in CONFIGS"
        fields = {f.name for f, _, _ in settings(CONFIGS[command])}
        extra = set(_params(command)) - fields - {"help"}
        assert extra == OWN.get(command, set()), command


def test_every_config_in_flows_is_checked():
    """A flow module's config (a dataclass with Setting fields) is some command's; a base
    of configs (``engine.RunConfig``) is checked through them."""
    found = set()
    for info in pkgutil.walk_packages(ragtriage.flows.__path__, "ragtriage.flows."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and dataclasses.is_dataclass(value)
                and value.__module__ == module.__name__
                and settings(value)
                and not value.__subclasses__()
            ):
                found.add(value)
    assert found == set(CONFIGS.values())


def test_every_config_field_is_an_option_with_its_help_default_and_range():
    for command, config in CONFIGS.items():
        params = _params(command)
        for field, _, setting in settings(config):
            param = params[field.name]
            assert param.help == setting.help, (command, field.name)
            if setting.names:
                assert set(setting.names[0].split("/")) <= set(param.opts + param.secondary_opts)
            if field.name in PARSED:
                continue  # given as text: its default is the text's
            if field.default is not dataclasses.MISSING:
                assert param.default == field.default, (command, field.name)
            if setting.exclusive:  # checked by a callback: test_an_open_range_refuses_its_bounds
                assert param.callback is not None, (command, field.name)
            elif setting.min is not None:
                assert param.min == setting.min, (command, field.name)
            if setting.max is not None and not setting.exclusive and setting.max <= CLICK_MAX:
                assert param.max == setting.max, (command, field.name)


def test_a_new_config_field_is_a_new_option():
    @dataclass
    class Toy:
        size: Annotated[int, Setting("How many.", min=1, max=9)] = 3
        name: Annotated[str, Setting("Who.")] = "x"

    seen: list[Toy] = []
    toy = typer.Typer()

    @toy.command()
    @with_config(Toy)
    def run(config: Toy) -> None:
        seen.append(config)

    runner = CliRunner()
    assert runner.invoke(toy, ["--size", "5"]).exit_code == 0
    assert seen == [Toy(size=5, name="x")]
    refused = runner.invoke(toy, ["--size", "10"])
    assert refused.exit_code == 2 and "--size" in refused.output


def test_specs_are_parsed_once_into_the_objects_the_audit_takes(tmp_path, monkeypatch):
    """The command line used to parse the judge spec and the column mapping to check them,
    throw the result away, and parse both again below."""
    configs: list[AuditConfig] = []
    parses: list[str | None] = []
    real_run, real_parse = audit_flow.run, JudgeSpec.parse.__func__  # type: ignore[attr-defined]

    def run(config, tick=None, out=None, write=None):
        configs.append(config)
        return real_run(config, tick, out, write)

    def parse(cls, text, field="--judge"):
        parses.append(text)
        return real_parse(cls, text, field)

    monkeypatch.setattr(audit_flow, "run", run)
    monkeypatch.setattr(JudgeSpec, "parse", classmethod(parse))
    code = main(
        ["audit", "--golden", str(HANDBOOK), "--generator", "extractive", "--judge", "lexical",
         "--columns", "query=question", "--limit", "2", "--cache", str(tmp_path / "c.sqlite"),
         "--out", str(tmp_path / "out"), "--quiet"]
    )  # fmt: skip
    assert code == 0
    assert parses == ["lexical"]
    [config] = configs
    assert isinstance(config.judge, JudgeSpec) and isinstance(config.columns, ColumnMap)
    recorded = json.loads((tmp_path / "out" / "results.json").read_text())["config"]
    assert recorded["judge"] == "lexical" and recorded["columns"] == "query=question"


def test_an_open_range_refuses_its_bounds():
    """``golden split --fraction``: holding back none or all of the cases is no split, and
    typer's own range is inclusive."""

    @dataclass
    class Toy:
        share: Annotated[float, Setting("Share.", min=0, max=1, exclusive=True)] = 0.5

    seen: list[float] = []
    toy = typer.Typer()

    @toy.command()
    @with_config(Toy)
    def run(config: Toy) -> None:
        seen.append(config.share)

    runner = CliRunner()
    for refused in ("0", "1", "-0.1", "1.5", "nan", "inf"):
        result = runner.invoke(toy, ["--share", refused])
        assert result.exit_code == 2 and "--share" in result.output, refused
    assert runner.invoke(toy, ["--share", "0.25"]).exit_code == 0
    assert seen == [0.25]
