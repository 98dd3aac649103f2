"""Keep freed memory in the process, so a large run does not pay for its pages twice.

Ranking a million queries allocates and frees tens of thousands of temporary arrays of a
few megabytes. glibc hands each one over 128 KiB (adaptively up to 32 MiB) back to the
kernel when it is freed, and the next one faults its pages in again. On a virtual
machine that first touch is what costs, so every allocation under 32 MiB is served from
the heap and the heap is never trimmed (the timings are in the README, "Performance").

Only the command-line entry point calls :func:`keep_freed_memory`: a library must not
change its host process's allocator.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

__all__ = [
    "MMAP_THRESHOLD",
    "M_MMAP_THRESHOLD",
    "M_TRIM_THRESHOLD",
    "TRIM_THRESHOLD",
    "keep_freed_memory",
]

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # glibc's upper limit for this setting on 64-bit
TRIM_THRESHOLD = (1 << 31) - 1


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
