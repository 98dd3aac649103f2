"""``ragtriage annotate``: label a golden set or grade answers in a local web page."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import MAX_SEED, console, output_file
from ragtriage.render.console import print_line
from ragtriage.stats import DEFAULT_SEED

__all__ = ["app", "golden", "grades", "register"]

app = typer.Typer(
    help="Label a golden set or grade an audit's answers in a local web page.",
    no_args_is_help=True,
)

HostOption = Annotated[str, typer.Option(help="Address to listen on (keep it local).")]
PortOption = Annotated[int, typer.Option(min=0, max=65535, help="Port (0: a free one).")]
BrowserOption = Annotated[bool, typer.Option("--browser/--no-browser", help="Open a browser.")]
SeedOption = Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Seed of the sample.")]
SampleOption = Annotated[int, typer.Option(min=1, max=1_000_000, help="Items to draw.")]


@app.command()
def golden(
    queries: Annotated[Path, typer.Option(help="Query log: text, CSV or JSONL, one a row.")],
    corpus: Annotated[Path, typer.Option(help="corpus.jsonl of the chunks to label.")],
    output: Annotated[Path, typer.Option("--out", "-o", help="Golden set JSONL to write.")],
    run: Annotated[Path | None, typer.Option(help="Your system's run, pooled in.")] = None,
    sample: SampleOption = 200,
    seed: SeedOption = DEFAULT_SEED,
    graded: Annotated[
        bool, typer.Option("--graded", help="Grade chunks 0-3, not relevant/not.")
    ] = False,
    host: HostOption = "127.0.0.1",
    port: PortOption = 0,
    browser: BrowserOption = True,
) -> None:
    """Label which chunks answer each sampled query (or that none does)."""
    from ragtriage.flows.annotate import GoldenConfig, Served
    from ragtriage.flows.annotate import run as run_flow

    output_file(output, "--out")
    config = GoldenConfig(
        queries, corpus, output, run, sample, seed, graded, Served(host, port, browser)
    )
    run_flow(config, _announce, _note)


@app.command()
def grades(
    audit: Annotated[Path, typer.Option(help="An audit's results.json.")],
    output: Annotated[Path, typer.Option("--out", "-o", help="Grades JSONL to write.")],
    sample: SampleOption = 50,
    seed: SeedOption = DEFAULT_SEED,
    grader: Annotated[str | None, typer.Option(help="Your name, in every row.")] = None,
    show_judge: Annotated[
        bool, typer.Option("--show-judge", help="Show the judge's verdict (review).")
    ] = False,
    host: HostOption = "127.0.0.1",
    port: PortOption = 0,
    browser: BrowserOption = True,
) -> None:
    """Grade a uniform random sample of an audit's answers, sentence by sentence (blind)."""
    from ragtriage.flows.annotate import GradesConfig, Served
    from ragtriage.flows.annotate import run as run_flow

    output_file(output, "--out")
    config = GradesConfig(
        audit, output, sample, seed, grader, show_judge, Served(host, port, browser)
    )
    run_flow(config, _announce, _note)


def _announce(url: str) -> None:
    out = console()
    print_line(out, f"annotate: open {url}", soft_wrap=True)
    print_line(out, "annotate: every mark is saved at once; Ctrl-C stops the server")
    sys.stdout.flush()  # a pipe buffers: whoever waits for the URL reads it now


def _note(line: str) -> None:
    print_line(console(), f"annotate: {line}", soft_wrap=True)
    sys.stdout.flush()


def register(parent: typer.Typer) -> None:
    parent.add_typer(app, name="annotate")
