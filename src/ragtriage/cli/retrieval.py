"""``ragtriage retrieval``: stage 1 on its own."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import (
    MAX_RANK,
    MAX_REPEAT,
    ColumnsOption,
    choices,
    console,
    given_list,
    int_list,
    output_file,
)
from ragtriage.data.formats.columns import parse_columns
from ragtriage.flows.retrieval import RetrievalConfig, check
from ragtriage.flows.retrieval import run as run_retrieval
from ragtriage.render.console import reading_progress
from ragtriage.render.retrieval import render_leaks, render_overlap, render_repeat, render_split
from ragtriage.render.terminal import retrieval_summary
from ragtriage.results.files import write_json
from ragtriage.retrieval.defaults import DEFAULT_KS, DEFAULT_METRICS
from ragtriage.retrieval.metrics import expand

__all__ = ["register", "retrieval"]


def retrieval(
    golden: Annotated[Path | None, typer.Option(help="Golden set file or directory.")] = None,
    qrels: Annotated[Path | None, typer.Option(help="TREC qrels instead of a golden set.")] = None,
    run: Annotated[
        Path | None,
        typer.Option(
            help="Run file: TREC (6 columns), ours as JSONL/CSV/Parquet, a ragas dataset or "
            "an OpenInference span export (detected by content; queries matched by text)."
        ),
    ] = None,
    retriever: Annotated[
        str | None, typer.Option(help="'bm25' (embedded) or module:function, instead of --run.")
    ] = None,
    metrics: Annotated[
        list[str] | None, typer.Option("--metrics", "-m", help="e.g. ndcg@10,recall,mrr")
    ] = None,
    k: Annotated[
        list[str] | None, typer.Option(help="Cutoffs for metrics given without one.")
    ] = None,
    depth: Annotated[
        int, typer.Option(min=1, max=MAX_RANK, help="Results per query from --retriever.")
    ] = 100,
    relevance_level: Annotated[
        int, typer.Option(min=0, max=2**63 - 1, help="Relevant = label >= this.")
    ] = 1,
    float32: Annotated[
        bool,
        typer.Option(
            "--float32/--float64",
            help="Compare scores at float32 (pytrec_eval, ir_measures, trec_eval <= 9.0.7), "
            "not as doubles (trec_eval 9.0.8 and 10.0).",
        ),
    ] = False,
    duplicates: Annotated[
        str,
        typer.Option(callback=choices("max", "error"), help="'max' (keep best, count) or 'error'."),
    ] = "max",
    skip_missing: Annotated[
        bool, typer.Option(help="Drop golden queries absent from the run (trec_eval without -c).")
    ] = False,
    nothing_relevant: Annotated[
        str | None,
        typer.Option(
            callback=choices("zero", "unanswerable"),
            help="Queries judged with nothing relevant: 'zero' scores them 0 in the means "
            "(trec_eval; default with --qrels), 'unanswerable' reports them on their own "
            "(default with --golden).",
        ),
    ] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write JSON here.")] = None,
    quiet: Annotated[bool, typer.Option(help="No terminal summary.")] = False,
    holdout: Annotated[
        bool, typer.Option(help="Score the held-out slice (logged beside the golden set).")
    ] = False,
    corpus: Annotated[
        Path | None, typer.Option(help="corpus.jsonl (chunk tenants, hash, BM25) if not beside.")
    ] = None,
    leak_k: Annotated[
        int | None,
        typer.Option(
            min=1, max=MAX_RANK, help="Depth of the access-control check (default: largest k)."
        ),
    ] = None,
    reference_run: Annotated[
        Path | None, typer.Option(help="Exact-search run: report overlap@k of --run against it.")
    ] = None,
    repeat: Annotated[
        int,
        typer.Option(
            min=1, max=MAX_REPEAT, help="Run --retriever N times; report the spread across runs."
        ),
    ] = 1,
    columns: ColumnsOption = None,
) -> None:
    """Score a retriever against a golden set: metrics per query, means with 95% CIs,
    per-tag slices, missed queries, unanswerable queries and a score-threshold analysis."""
    config = RetrievalConfig(
        golden=golden,
        qrels=qrels,
        run=run,
        retriever=retriever,
        depth=depth,
        relevance_level=relevance_level,
        float32=float32,
        duplicates=duplicates,
        skip_missing=skip_missing,
        nothing_relevant=nothing_relevant,
        holdout=holdout,
        corpus=corpus,
        leak_k=leak_k,
        reference_run=reference_run,
        repeat=repeat,
    )
    check(config)
    output_file(output, "--output")
    config.metrics = given_list(metrics, "--metrics") or list(DEFAULT_METRICS)
    config.k = int_list(k, "--k") or list(DEFAULT_KS)
    expand(config.metrics, config.k)  # a bad metric name fails here, before a 4 GB run is read
    config.columns = parse_columns(columns)  # a bad mapping fails here, before any file is read
    report = run_retrieval(config, lambda: reading_progress(quiet))
    if output:
        write_json(output, report)
    if not quiet:
        out = console()
        retrieval_summary(report, out)
        for render in (render_split, render_leaks, render_overlap, render_repeat):
            render(report, out)
        if output:
            out.print(f"wrote {output}")


def register(app: typer.Typer) -> None:
    app.command(name="retrieval")(retrieval)
