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
    assert "pip wheel -v" in SCRIPT and '| tee "$LOG" | progress' in SCRIPT
    assert "--quiet" not in SCRIPT.split("pip wheel", 1)[1].split("\n", 1)[0]
    assert 'tail -n 30 "$LOG"' in SCRIPT  # a failed build shows why
    assert "setup: installing ragtriage" in SCRIPT and "ragtriage doctor" in SCRIPT
