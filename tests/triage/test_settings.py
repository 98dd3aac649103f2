"""The typed settings of an audit's and a conversations run's ``results.json``: every key
the flow writes, the config's defaults, and older files still read."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from ragtriage.flows.audit import AuditConfig
from ragtriage.flows.conversations import ConversationsConfig
from ragtriage.results.load import load_result
from ragtriage.results.run import AuditSettings, ConversationsSettings
from tests.support.audits import make_audit

PAIRS = [
    (AuditConfig, AuditSettings, {"golden": Path("g")}),
    (ConversationsConfig, ConversationsSettings, {"golden": Path("g"), "traces": Path("t")}),
]


@pytest.mark.parametrize(("config", "settings", "given"), PAIRS)
def test_the_settings_are_the_configs_fields_in_its_order(config, settings, given):
    """A field added to the config and not to the settings would land in the extra keys
    untyped; one in a different order would move bytes in results.json."""
    declared = [f.name for f in fields(config) if f.init]
    assert list(settings.model_fields) == declared
    assert all(settings.model_fields[name].description for name in declared)  # documented


@pytest.mark.parametrize(("config", "settings", "given"), PAIRS)
def test_the_settings_defaults_are_the_configs(config, settings, given):
    """An older results.json without a setting reads as the config's default: the value
    an audit of that version ran with."""
    recorded = config(**given).public()
    assert recorded == settings.model_validate({k: str(v) for k, v in given.items()})
    assert recorded.model_dump() == json.loads(recorded.model_dump_json())  # JSON values


def test_an_older_results_file_reads_with_defaults_and_keeps_unknown_keys(tmp_path):
    data = json.loads(make_audit().model_dump_json())
    del data["config"]["context_k"], data["config"]["samples"]  # written before them
    data["config"]["retired_option"] = "kept"
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = load_result(path)
    assert result.config.context_k == 3 and result.config.samples == 1
    assert result.config.model_dump()["retired_option"] == "kept"


def test_a_setting_of_the_wrong_type_names_its_field(tmp_path):
    from ragtriage.errors import InputError

    data = json.loads(make_audit().model_dump_json())
    data["config"]["context_k"] = "three"
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_result(path)
    assert caught.value.field == "config.context_k"
