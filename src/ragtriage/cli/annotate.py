"""``ragtriage annotate``: label a golden set or grade answers in a local web page."""

from __future__ import annotations

import typer

from ragtriage.cli.common import FullHelpGroup, console, output_file
from ragtriage.cli.options import with_config
from ragtriage.flows.annotate import GoldenConfig, GradesConfig
from ragtriage.flows.annotate import run as run_flow
from ragtriage.render.annotate import print_note, print_stopped, print_url

__all__ = ["app", "golden", "grades", "register"]

app = typer.Typer(
    help="Label a golden set, or grade answers (an audit's or a traces file's), in a local "
    "web page.",
    no_args_is_help=True,
    cls=FullHelpGroup,
)


@app.command()
@with_config(GoldenConfig)
def golden(config: GoldenConfig) -> None:
    """Label which chunks answer each sampled query (or that none does)."""
    _serve(config)


@app.command()
@with_config(GradesConfig)
def grades(config: GradesConfig) -> None:
    """Grade a uniform random sample of answers, sentence by sentence (blind): an audit's
    (--audit), or a traces file's before any audit (--answers)."""
    _serve(config)


def _serve(config: GoldenConfig | GradesConfig) -> None:
    output_file(config.out, "--out")
    try:
        stopped = run_flow(
            config, lambda url: print_url(url, console()), lambda line: print_note(line, console())
        )
    except KeyboardInterrupt:  # Ctrl-C before the page was served (reading the corpus)
        print_note(f"stopped before the page was served; {config.out} is as it was", console())
        return
    print_stopped(
        stopped.marks, stopped.written, str(stopped.output), str(stopped.session), console()
    )


def register(parent: typer.Typer) -> None:
    parent.add_typer(app, name="annotate")
