"""Keep freed memory in the process, so a large run does not pay for its pages twice.

Ranking a million queries allocates and frees tens of thousands of arrays of a few
megabytes; glibc returns each over 128 KiB to the kernel, and on a virtual machine the
next first touch is what costs, so allocations under 32 MiB stay on an untrimmed heap.
Arrow's mimalloc likewise returns pages freed for 10 ms, so a run read block by block
faults (and zeroes) the same pages for every block: :func:`keep_arrow_memory` keeps them
(why: docs/performance.md, "Memory reused").

Only the command line calls these (``cli/__init__.py``, ``cli/main.py``): a library must
not change its host process's allocator.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

__all__ = [
    "ARROW_PURGE",
    "MMAP_THRESHOLD",
    "M_MMAP_THRESHOLD",
    "M_TRIM_THRESHOLD",
    "TRIM_THRESHOLD",
    "keep_arrow_memory",
    "keep_freed_memory",
]

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # glibc's upper limit for this setting on 64-bit
TRIM_THRESHOLD = (1 << 31) - 1
ARROW_PURGE = ("MIMALLOC_PURGE_DELAY", "-1")  # mimalloc: never return freed pages


def keep_arrow_memory() -> bool:
    """Set mimalloc's purge delay to "never" unless the environment already sets it;
    ``False`` when pyarrow was imported first (mimalloc may have read its options)."""
    name, value = ARROW_PURGE
    os.environ.setdefault(name, value)
    return "pyarrow" not in sys.modules


def keep_freed_memory() -> bool:
    """Tune glibc's malloc as the module docstring says; ``False`` where there is no glibc."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False  # musl and others: nothing to tune
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
