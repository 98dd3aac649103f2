"""Keep freed memory in the process, so a large run does not pay for its pages twice.

Ranking a million queries allocates and frees tens of thousands of temporary arrays of a
few megabytes. glibc hands each one over 128 KiB (adaptively up to 32 MiB) back to the
kernel when it is freed, and the next one faults its pages in again. On a virtual
machine that first touch is what costs: on this project's 2-core VMs a fresh gigabyte
costs 1.5-2 s of faults, against 0.1-0.2 s for memory the process freed a moment
before. Serving every allocation under 32 MiB from the heap and never trimming it took
`ragtriage retrieval` on a million queries from 19.3 s to 18.5 s in one pair of runs
(``sys`` time 8.7 s -> 7.1 s), and ranking alone from 3.6 s to 2.3 s with smaller batches.

Only the command-line entry point calls :func:`keep_freed_memory`: a library must not
change its host process's allocator.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

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
