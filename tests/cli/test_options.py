"""Each command's options are its config's fields, declared once (``flows/config.py``):
the option's help, default and range are the field's, a new field is a new option, and
the specs given as text are parsed once into the objects the flow takes."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from typer.testing import CliRunner

from ragtriage.cli.main import command_tree, main
from ragtriage.cli.options import PARSED, with_config
from ragtriage.data.formats.columns import ColumnMap
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.flows.calibrate import CalibrateConfig
from ragtriage.flows.compare import CompareConfig
from ragtriage.flows.config import Setting, settings
from ragtriage.flows.gate import GateConfig
from ragtriage.flows.judge import JudgeConfig
from ragtriage.flows.retrieval import RetrievalConfig
from ragtriage.judge.spec import JudgeSpec

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = ROOT / "golden_sets" / "handbook"
CONFIGS = {
    "audit": AuditConfig,
    "retrieval": RetrievalConfig,
    "judge": JudgeConfig,
    "calibrate": CalibrateConfig,
    "compare": CompareConfig,
    "gate": GateConfig,
}


def _params(command: str) -> dict[str, object]:
    click = command_tree().commands[command]
    return {p.name: p for p in click.params}


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
            if setting.min is not None:
                assert param.min == setting.min, (command, field.name)


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
    real_audit, real_parse = audit_flow.audit, JudgeSpec.parse.__func__  # type: ignore[attr-defined]

    def audit(config, tick=None):
        configs.append(config)
        return real_audit(config, tick)

    def parse(cls, text, field="--judge"):
        parses.append(text)
        return real_parse(cls, text, field)

    monkeypatch.setattr(audit_flow, "audit", audit)
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
