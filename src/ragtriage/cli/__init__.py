"""The ``ragtriage`` command line (``main.py`` registers one module per command).

Importing it first tunes arrow's allocator for this process (``memory.py``): before any
module here imports pyarrow, because mimalloc reads its options when it starts.
"""

from ragtriage.memory import keep_arrow_memory

keep_arrow_memory()
