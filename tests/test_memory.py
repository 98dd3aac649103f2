"""The command line tunes the allocators of its own process, and only it (memory.py)."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = (
    "import os, sys; {imports}; "
    "print(os.environ.get('MIMALLOC_PURGE_DELAY'), 'pyarrow' in sys.modules)"
)


def _probe(imports: str, env: dict[str, str] | None = None) -> str:
    """What a fresh interpreter sees; by default without the setting, which this test
    process may hold itself (any test that imported the CLI set it here)."""
    if env is None:
        env = {k: v for k, v in os.environ.items() if k != "MIMALLOC_PURGE_DELAY"}
    code = PROBE.format(imports=imports)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.strip()


def test_the_command_line_keeps_arrows_freed_pages():
    # the CLI package's first import sets it; the commands then import pyarrow
    assert _probe("import ragtriage.cli.main") == "-1 True"


def test_the_library_leaves_its_hosts_allocator_alone():
    assert _probe("import ragtriage, ragtriage.data.trec") == "None True"


def test_a_users_own_setting_is_kept():
    env = dict(os.environ, MIMALLOC_PURGE_DELAY="25")
    assert _probe("import ragtriage.cli.main", env) == "25 True"
