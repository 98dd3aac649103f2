"""``ragtriage audit``: both stages, triage, reports.

The heavy modules (judge, plots, reports) are imported when the command runs, so that
``ragtriage --help`` and the other commands do not pay for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ragtriage.cli.common import console, int_list, split_list
from ragtriage.retrieval.defaults import DEFAULT_KS, DEFAULT_METRICS


def run(
    golden: Annotated[Path, typer.Option(help="Golden set directory or file.")],
    traces: Annotated[Path | None, typer.Option(help="Trace JSONL from your system.")] = None,
    retriever: Annotated[str, typer.Option(help="'bm25' or module:function.")] = "bm25",
    generator: Annotated[
        str, typer.Option(help="'local' (embedded model), 'extractive' or module:function.")
    ] = "local",
    judge: Annotated[
        str | None, typer.Option(help="Judge model: default embedded; 'lexical'; litellm id.")
    ] = None,
    strategy: Annotated[str | None, typer.Option(help="claims, sentences or lexical.")] = None,
    calibration: Annotated[Path | None, typer.Option(help="Calibration record JSON.")] = None,
    context_k: Annotated[int, typer.Option(help="Top k chunks passed to the generator.")] = 3,
    depth: Annotated[int, typer.Option(help="Chunks retrieved per query.")] = 20,
    metrics: Annotated[list[str] | None, typer.Option("--metrics", "-m")] = None,
    k: Annotated[list[str] | None, typer.Option(help="Cutoffs for metrics without one.")] = None,
    concurrency: Annotated[int, typer.Option(help="Judge calls in flight (remote models).")] = 8,
    threads: Annotated[int | None, typer.Option(help="CPU threads for the local model.")] = None,
    cache: Annotated[Path | None, typer.Option(help="Response cache (SQLite).")] = None,
    limit: Annotated[int | None, typer.Option(help="Audit only the first N cases.")] = None,
    api_base: Annotated[str | None, typer.Option(help="OpenAI-compatible judge URL.")] = None,
    json_mode: Annotated[str | None, typer.Option(help="How JSON is requested.")] = None,
    timeout: Annotated[float | None, typer.Option(help="Seconds per judge call.")] = None,
    holdout: Annotated[
        bool, typer.Option(help="Audit the held-back slice (logged next to the golden set).")
    ] = False,
    on_mismatch: Annotated[
        str, typer.Option(help="'warn' (list and go on) or 'error' (exit 2) on file mismatches.")
    ] = "warn",
    check_reference: Annotated[
        bool, typer.Option(help="Claims judges: also judge answers against reference_answer.")
    ] = True,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")] = Path("results"),
    quiet: Annotated[bool, typer.Option(help="No terminal summary.")] = False,
) -> None:
    """Audit a RAG system: retrieval metrics, faithfulness, and one label per case
    (pass / retrieval / ranking / generation / unscored); writes results.json and reports."""
    from ragtriage.report.files import write_json
    from ragtriage.report.terminal import audit_summary
    from ragtriage.triage.audit import AuditConfig, audit

    config = AuditConfig(
        golden=golden,
        traces=traces,
        retriever=retriever,
        generator=generator,
        judge=judge,
        strategy=strategy,
        calibration=calibration,
        context_k=context_k,
        depth=depth,
        metrics=split_list(metrics) or list(DEFAULT_METRICS),
        k=int_list(k, "k") or list(DEFAULT_KS),
        concurrency=concurrency,
        cache=cache,
        threads=threads,
        limit=limit,
        check_reference=check_reference,
        api_base=api_base,
        json_mode=json_mode,
        timeout=timeout,
        holdout=holdout,
        on_mismatch=on_mismatch,
    )
    term = console(quiet)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=term,
        transient=True,
        disable=quiet or not term.is_terminal,
    ) as bars:

        def tick(stage: str, total: int):
            task = bars.add_task(stage, total=total)
            return lambda *_: bars.advance(task)

        result = audit(config, tick)
    paths = {"results": write_json(out / "results.json", result)}
    paths.update(_reports(result, out))
    if not quiet:
        audit_summary(result, term)
        for name, path in paths.items():
            term.print(f"wrote {name}: {path}")


def _reports(result, out: Path) -> dict[str, Path]:
    """report.md and report.html; the calibration's plots go into the HTML when one was used."""
    from ragtriage.calibration.plots import write_plots
    from ragtriage.calibration.record import load_calibration
    from ragtriage.report.writer import write_reports

    pngs: list[Path] = []
    if result.calibration.source:
        record = load_calibration(result.calibration.source)
        pngs = write_plots(record, out / "calibration")
    return write_reports(result, out, extra_pngs=pngs)


def register(app: typer.Typer) -> None:
    app.command(name="audit")(run)
