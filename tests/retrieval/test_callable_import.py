"""``--retriever module:function`` finds a module in the current directory, as
``python -m`` would, without ``PYTHONPATH=.`` (issue 27, item 5); when it still fails the
error says where it looked. The ``ragtriage`` console script's ``sys.path`` does not hold
the working directory: the tests take it (and ``''``) out to be in that position."""

from __future__ import annotations

import os
import sys

import pytest

from ragtriage.cli.main import main
from ragtriage.errors import InputError
from ragtriage.retrieval.retrievers import load_callable
from tests.conftest import ROOT

HANDBOOK = ROOT / "golden_sets" / "handbook"


@pytest.fixture
def in_project(tmp_path, monkeypatch):
    """A user's project folder as the working directory, off ``sys.path``."""
    (tmp_path / "cwd_pipeline.py").write_text(
        "def search(query, k):\n    return ['nas-overview', 'warranty'][:k]\n"
    )
    monkeypatch.chdir(tmp_path)
    here = {"", ".", str(tmp_path), os.getcwd()}
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in here])
    monkeypatch.delitem(sys.modules, "cwd_pipeline", raising=False)
    return tmp_path


def test_a_module_in_the_working_directory_is_found(in_project):
    fn = load_callable("cwd_pipeline:search")
    assert fn("q", 1) == ["nas-overview"]
    assert str(in_project) not in sys.path  # added for that import only


def test_the_retrieval_command_runs_it_without_pythonpath(in_project, capsys):
    code = main(["retrieval", "--golden", str(HANDBOOK), "--retriever", "cwd_pipeline:search"])
    assert code == 0, capsys.readouterr().err


def test_a_module_found_nowhere_says_where_it_looked(in_project):
    with pytest.raises(InputError) as info:
        load_callable("no_such_pipeline:search")
    message = str(info.value)
    assert "no_such_pipeline" in message and str(in_project) in message
    assert "PYTHONPATH" in message


def test_a_missing_dependency_is_named_as_such(in_project):
    (in_project / "needs_dep.py").write_text("import not_installed_dependency_xyz\n")
    with pytest.raises(InputError, match="not_installed_dependency_xyz") as info:
        load_callable("needs_dep:search")
    assert "importing 'needs_dep' failed" in str(info.value)
