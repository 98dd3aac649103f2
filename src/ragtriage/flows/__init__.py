"""One module per command: its config, its ``run`` and its result.

``audit``, ``calibrate``, ``compare``, ``gate``, ``golden`` (``golden add``), ``doctor``:
each runs a command without the command line, so ``cli/`` only turns options into a
config and a result into output (through ``render/``). Internal: the public names are
re-exported by ``ragtriage``.
"""
