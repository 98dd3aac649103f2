"""Keep freed memory in the process, so a large run does not pay for its pages twice.

Ranking a million queries allocates and frees tens of thousands of temporary arrays of a
few megabytes. glibc hands each one over 128 KiB (adaptively up to 32 MiB) back to the
kernel when it is freed, and the next one faults its pages in again. On a virtual
machine that first touch is what costs, so every allocation under 32 MiB is served from
the heap and the heap is never trimmed (the timings are in the README, "Performance").

Arrow allocates through its own mimalloc, which by default hands pages freed for 10 ms
back to the kernel: a run read block by block then faults (and the kernel zeroes) the
same few hundred megabytes again for every block. :func:`keep_arrow_memory` asks it to
keep them (measured on the 300k-query benchmark run: 599 huge-page faults, 1.2 GB
zeroed, became 449, and 4 KB faults 175k became 129k).

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
