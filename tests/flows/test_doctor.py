"""``ragtriage doctor``: each check's verdict, and the command's exit code and fixes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragtriage.cli.main import main
from ragtriage.flows import doctor
from ragtriage.llm.build import (
    PORTABLE_CMAKE_ARGS,
    beyond_portable,
    compiled_features,
    unsupported_features,
)

ROOT = Path(__file__).resolve().parents[2]
NATIVE_AMX = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 1 | AMX_INT8 = 1 | OPENMP = 1"


def test_setup_script_builds_with_the_documented_flags():
    script = (ROOT / "scripts" / "setup.sh").read_text()
    assert re.search(r'^PORTABLE="(.*)"$', script, re.M).group(1) == PORTABLE_CMAKE_ARGS
    assert "--no-cache-dir" in script  # pip's cache cannot hand back another build


def test_compiled_features_and_what_a_cpu_lacks():
    compiled = compiled_features(NATIVE_AMX)
    assert compiled == {"SSE3", "AVX", "AVX2", "AVX512", "AMX_INT8", "OPENMP"}
    assert beyond_portable(compiled) == ["AMX_INT8", "AVX512"]
    assert unsupported_features(compiled, {"pni", "avx", "avx2"}) == ["AMX_INT8", "AVX512"]
    assert unsupported_features(compiled, None) == []  # no /proc/cpuinfo: cannot tell


def test_llama_build_check_fails_a_build_this_cpu_cannot_run(monkeypatch):
    monkeypatch.setattr(doctor, "cpu_flags", lambda: {"pni", "ssse3", "avx", "avx2"})
    check = doctor.llama_build(NATIVE_AMX)
    assert check.status == "fail" and "setup.sh --local --rebuild" in check.fix
    monkeypatch.setattr(doctor, "cpu_flags", lambda: {"pni", "avx512f", "amx_int8", "avx2", "avx"})
    assert doctor.llama_build(NATIVE_AMX).status == "ok"


def test_writable_reports_a_folder_that_is_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert doctor.writable("cache", blocker).status == "fail"
    assert doctor.writable("cache", tmp_path / "new").status == "ok"


def _fake_checks(status: str):
    def run(on_check=None):
        checks = [
            doctor.Check("packages", "ok", "fine"),
            doctor.Check("one-token generation", status, "died of SIGSEGV", "bash fix.sh"),
            doctor.Check("headless Chromium", "optional", "not found", "apt-get install"),
        ]
        for check in checks:
            on_check(check)
        return checks

    return run


@pytest.mark.parametrize(("status", "code"), [("ok", 0), ("fail", 1)])
def test_doctor_exit_code_and_fix_lines(monkeypatch, capsys, status, code):
    monkeypatch.setattr("ragtriage.flows.doctor.run", _fake_checks(status))
    assert main(["doctor"]) == code
    out = capsys.readouterr().out
    assert ("fix: bash fix.sh" in out) == (status == "fail")
    assert "fix: apt-get install" in out  # optional checks say how, but never fail


@pytest.mark.slow
def test_doctor_passes_on_this_install(capsys):
    from tests.llm.test_local_model import _available

    if not _available():
        pytest.fail("the embedded model must be installed: bash scripts/setup.sh --local")
    assert main(["doctor"]) == 0, capsys.readouterr().out


def test_the_doctor_passes_an_install_without_the_model(monkeypatch):
    """The README's first command installs no model; the doctor it names must not fail it
    (issue 53): the model is an optional check there, with the command that installs it."""
    import sys

    from ragtriage.flows import doctor

    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    monkeypatch.setattr(doctor, "find_spec", lambda name: None)
    monkeypatch.setattr(doctor, "litellm_offline", lambda: doctor.Check("litellm", "ok", "x"))
    checks = doctor.run()
    assert not [c for c in checks if c.status == "fail"], checks
    [model] = [c for c in checks if c.name == "embedded model"]
    assert model.status == "optional" and "--local" in model.fix
