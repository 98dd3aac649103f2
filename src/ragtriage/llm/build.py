"""How llama.cpp is built for the embedded model, and how to tell a build that will crash.

ragtriage installs llama-cpp-python with :data:`PORTABLE_CMAKE_ARGS`, not the default
``GGML_NATIVE=ON`` build, which segfaulted on Xeons with AVX-512 and AMX (issue 12; why,
and what it costs: docs/install-local-model.md, 'Which build').
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = [
    "LLAMA_CPP_VERSION",
    "PORTABLE_CMAKE_ARGS",
    "PORTABLE_FEATURES",
    "REBUILD_COMMAND",
    "compiled_features",
    "beyond_portable",
    "cpu_flags",
    "unsupported_features",
    "INSTALL_COMMAND",
]

LLAMA_CPP_VERSION = "0.3.36"
PORTABLE_CMAKE_ARGS = (
    "-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
)
# What the portable build uses (llama.cpp turns BMI2 on with AVX2): every x86-64 CPU
# since 2013 (Intel Haswell, AMD Excavator and Zen) has all of them.
PORTABLE_FEATURES = frozenset({"SSE3", "SSSE3", "AVX", "AVX2", "F16C", "FMA", "BMI2"})
# from a clone, or (a wheel install has no scripts/) the same portable build through pip
INSTALL_COMMAND = (
    "bash scripts/setup.sh --local (in a clone), or: "
    f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install --no-cache-dir "ragtriage[local]"'
)
REBUILD_COMMAND = "bash scripts/setup.sh --local --rebuild   (or: " + (
    f'CMAKE_ARGS="{PORTABLE_CMAKE_ARGS}" pip install --no-cache-dir --force-reinstall '
    f"--no-deps llama-cpp-python=={LLAMA_CPP_VERSION})"
)
# llama.cpp's feature names -> the /proc/cpuinfo flag that a CPU must have to run them.
_CPU_FLAG = {
    "SSE3": "pni",
    "SSSE3": "ssse3",
    "AVX": "avx",
    "AVX2": "avx2",
    "F16C": "f16c",
    "FMA": "fma",
    "BMI2": "bmi2",
    "AVX_VNNI": "avx_vnni",
    "AVX512": "avx512f",
    "AVX512_VBMI": "avx512_vbmi",
    "AVX512_VNNI": "avx512_vnni",
    "AVX512_BF16": "avx512_bf16",
    "AMX_INT8": "amx_int8",
}


def compiled_features(system_info: str) -> set[str]:
    """The CPU features llama.cpp says it was compiled with (``AVX2 = 1 | ...``)."""
    return {name for name, on in re.findall(r"([A-Z0-9_]+) = (\d)", system_info) if on == "1"}


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str] | None:
    """This CPU's feature flags, or ``None`` where the OS does not list them."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return None


def beyond_portable(compiled: set[str]) -> list[str]:
    """Instruction sets a native build added to the portable set (AVX-512, AMX, ...)."""
    return sorted((compiled & _CPU_FLAG.keys()) - PORTABLE_FEATURES)


def unsupported_features(compiled: set[str], flags: set[str] | None) -> list[str]:
    """Compiled-in instruction sets this CPU lacks: a build that will die of SIGILL."""
    if flags is None:
        return []
    return sorted(f for f in compiled if f in _CPU_FLAG and _CPU_FLAG[f] not in flags)
