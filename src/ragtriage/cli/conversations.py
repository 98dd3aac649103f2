"""``ragtriage conversations``: audit a multi-turn RAG system turn by turn.

The options are :class:`ConversationsConfig`'s fields (``flows/conversations.py``).
"""

from __future__ import annotations

from pathlib import Path

import typer

from ragtriage.cli.common import console, output_dir, output_file
from ragtriage.cli.options import Quiet, ResultsFolder, with_config
from ragtriage.flows.conversations import ConversationsConfig

__all__ = ["OUTPUTS", "register", "run"]

OUTPUTS = ("results.json", "report.md", "report.html")


@with_config(ConversationsConfig)
def run(
    config: ConversationsConfig,
    out: ResultsFolder = Path("results"),
    quiet: Quiet = False,
) -> None:
    """Audit conversations turn by turn: retrieval per turn, faithfulness with the history
    as evidence, one label per turn (pass / rewrite / retrieval / ranking / generation /
    unscored / unsure) and each conversation's first failing turn."""
    from ragtriage.flows import conversations as flow
    from ragtriage.render.conversations import conversations_summary
    from ragtriage.render.writer import audit_paths, write_conversations

    output_dir(out, "--out", OUTPUTS)
    output_file(config.cache, "--cache")
    # the run writes its files as an audit's does; no calibration plots, so no record
    result = flow.run(config, out, lambda made, _record, to: write_conversations(made, to))
    if not quiet:
        term = console(quiet)
        conversations_summary(result, term)
        for path in audit_paths(out).values():
            term.print(f"wrote {path}")


def register(app: typer.Typer) -> None:
    app.command(name="conversations")(run)
