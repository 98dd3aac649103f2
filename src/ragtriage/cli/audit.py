"""``ragtriage audit``: both stages, triage, reports.

The heavy modules (judge, plots, reports) are imported when the command runs, so that
``ragtriage --help`` and the other commands do not pay for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import (
    MAX_RANK,
    MAX_WORKERS,
    choices,
    console,
    finite,
    given_list,
    int_list,
    output_dir,
    output_file,
)
from ragtriage.cli.judge import H_JSON
from ragtriage.errors import InputError
from ragtriage.models.litellm_model import JSON_MODES as LITELLM_JSON_MODES
from ragtriage.render.console import stage_progress
from ragtriage.retrieval.defaults import DEFAULT_KS, DEFAULT_METRICS

__all__ = ["JSON_MODES", "OUTPUTS", "register", "run"]

JSON_MODES = ("auto", *LITELLM_JSON_MODES)
OUTPUTS = ("results.json", "report.md", "report.html")


def run(
    golden: Annotated[
        Path,
        typer.Option(
            help="Golden set directory or file (ours, or ragas; JSONL, JSON, CSV or Parquet)."
        ),
    ],
    traces: Annotated[
        Path | None,
        typer.Option(
            help="Traces of your system: our trace JSONL/CSV/Parquet, a ragas dataset, or "
            "an OpenInference span export (JSONL or Parquet). Format detected by content."
        ),
    ] = None,
    columns: Annotated[
        str | None,
        typer.Option(
            help="Other column names mapped onto ours, OURS=THEIRS,... "
            "(e.g. query=question,expected=gold_ids; query_id=KEY reads span metadata)."
        ),
    ] = None,
    retriever: Annotated[str, typer.Option(help="'bm25' or module:function.")] = "bm25",
    generator: Annotated[
        str, typer.Option(help="'local' (embedded model), 'extractive' or module:function.")
    ] = "local",
    judge: Annotated[
        str,
        typer.Option(
            "--judge",
            "-j",
            help="Judge spec: 'embedded' (default), 'lexical', a litellm model id, "
            "'replay:FILE' or STRATEGY@MODEL.",
        ),
    ] = "embedded",
    strategy: Annotated[str | None, typer.Option(hidden=True, help="Replaced by --judge.")] = None,
    calibration: Annotated[Path | None, typer.Option(help="Calibration record JSON.")] = None,
    context_k: Annotated[
        int, typer.Option(min=1, max=MAX_RANK, help="Top k chunks passed to the generator.")
    ] = 3,
    depth: Annotated[
        int, typer.Option(min=1, max=MAX_RANK, help="Chunks retrieved per query.")
    ] = 20,
    metrics: Annotated[list[str] | None, typer.Option("--metrics", "-m")] = None,
    k: Annotated[list[str] | None, typer.Option(help="Cutoffs for metrics without one.")] = None,
    concurrency: Annotated[
        int, typer.Option(min=1, max=MAX_WORKERS, help="Judge calls in flight (remote models).")
    ] = 8,
    threads: Annotated[
        int | None, typer.Option(min=1, max=MAX_WORKERS, help="CPU threads for the local model.")
    ] = None,
    cache: Annotated[Path | None, typer.Option(help="Response cache (SQLite).")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Audit only the first N cases.")] = None,
    api_base: Annotated[str | None, typer.Option(help="OpenAI-compatible judge URL.")] = None,
    json_mode: Annotated[
        str | None, typer.Option(callback=choices(*JSON_MODES), help=H_JSON)
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(min=0.001, max=86400, callback=finite, help="Seconds per judge call."),
    ] = None,
    holdout: Annotated[
        bool, typer.Option(help="Audit the held-back slice (logged next to the golden set).")
    ] = False,
    on_mismatch: Annotated[
        str,
        typer.Option(
            callback=choices("warn", "error"),
            help="'warn' (list and go on) or 'error' (exit 2) on file mismatches.",
        ),
    ] = "warn",
    check_reference: Annotated[
        bool, typer.Option(help="Claims judges: also judge answers against reference_answer.")
    ] = True,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory.")] = Path("results"),
    quiet: Annotated[bool, typer.Option(help="No terminal summary.")] = False,
) -> None:
    """Audit a RAG system: retrieval metrics, faithfulness, and one label per case
    (pass / retrieval / ranking / generation / unscored); writes results.json and reports."""
    from ragtriage.data.formats.columns import parse_columns
    from ragtriage.flows.audit import AuditConfig, audit
    from ragtriage.judge.spec import JudgeSpec, refuse_old_options
    from ragtriage.render.terminal import audit_summary
    from ragtriage.retrieval.metrics import expand

    refuse_old_options(strategy=strategy, judge=judge)
    JudgeSpec.parse(judge)  # a bad spec fails here, before any case is run
    output_dir(out, "--out", OUTPUTS)
    output_dir(out / "calibration", "--out")  # where a calibration's plots go
    output_file(cache, "--cache")

    measures = given_list(metrics, "--metrics") or list(DEFAULT_METRICS)
    ks = int_list(k, "--k") or list(DEFAULT_KS)
    expand(measures, ks)  # a bad metric name fails here, before any case is run
    parse_columns(columns)  # a bad mapping fails here, before any file is read
    config = AuditConfig(
        golden=golden,
        traces=traces,
        retriever=retriever,
        generator=generator,
        judge=judge,
        calibration=calibration,
        context_k=context_k,
        depth=depth,
        metrics=measures,
        k=ks,
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
        columns=columns,
    )
    term = console(quiet)
    with stage_progress(term, quiet) as tick:
        result = audit(config, tick)
    paths = _write_outputs(result, out)
    if not quiet:
        audit_summary(result, term)
        for name, path in paths.items():
            term.print(f"wrote {name}: {path}")


def _write_outputs(result, out: Path) -> dict[str, Path]:
    """results.json, report.md and report.html as one all-or-nothing set; the calibration's
    plots (written first, beside them) go into the HTML when one was used."""
    from ragtriage.calibration.record import load_calibration
    from ragtriage.render.calibration_plots import write_plots
    from ragtriage.render.writer import write_reports
    from ragtriage.results.files import json_bytes

    pngs: list[Path] = []
    if result.calibration.source:
        record = load_calibration(result.calibration.source)
        try:
            pngs = write_plots(record, out / "calibration")
        except OSError as exc:  # e.g. a directory where a PNG goes
            raise InputError(
                f"cannot write the calibration plots: {exc.strerror or exc}",
                path=exc.filename or out / "calibration",
                field="--out",
            ) from None
    results = {"results.json": json_bytes(result)}
    reports = write_reports(result, out, extra_pngs=pngs, extra_files=results)
    return {"results": out / "results.json", **reports}


def register(app: typer.Typer) -> None:
    app.command(name="audit")(run)
