"""``ragtriage retrieval``: stage 1 on its own."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragtriage.cli.common import console, int_list, split_list
from ragtriage.data.golden import load_golden
from ragtriage.data.trec import read_trec_qrels
from ragtriage.errors import InputError
from ragtriage.report.files import write_json
from ragtriage.report.terminal import retrieval_summary
from ragtriage.retrieval.evaluate import DEFAULT_KS, DEFAULT_METRICS, evaluate_retrieval
from ragtriage.retrieval.retrievers import run_retriever


def retrieval(
    golden: Annotated[Path | None, typer.Option(help="Golden set file or directory.")] = None,
    qrels: Annotated[Path | None, typer.Option(help="TREC qrels instead of a golden set.")] = None,
    run: Annotated[Path | None, typer.Option(help="Run file: TREC (6 columns) or JSONL.")] = None,
    retriever: Annotated[
        str | None, typer.Option(help="'bm25' (embedded) or module:function, instead of --run.")
    ] = None,
    metrics: Annotated[
        list[str] | None, typer.Option("--metrics", "-m", help="e.g. ndcg@10,recall,mrr")
    ] = None,
    k: Annotated[
        list[str] | None, typer.Option(help="Cutoffs for metrics given without one.")
    ] = None,
    depth: Annotated[int, typer.Option(help="Results per query from --retriever.")] = 100,
    relevance_level: Annotated[int, typer.Option(help="Relevant = label >= this.")] = 1,
    float64: Annotated[bool, typer.Option(help="Compare scores as float64, not float32.")] = False,
    duplicates: Annotated[str, typer.Option(help="'max' (keep best, count) or 'error'.")] = "max",
    skip_missing: Annotated[
        bool, typer.Option(help="Drop golden queries absent from the run (trec_eval without -c).")
    ] = False,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write JSON here.")] = None,
    quiet: Annotated[bool, typer.Option(help="No terminal summary.")] = False,
) -> None:
    """Score a retriever against a golden set: metrics per query, means with 95% CIs,
    per-tag slices, missed queries, unanswerable queries and a score-threshold analysis."""
    if (golden is None) == (qrels is None):
        raise InputError("give exactly one of --golden or --qrels", field="golden")
    if (run is None) == (retriever is None):
        raise InputError("give exactly one of --run or --retriever", field="run")
    if duplicates not in ("max", "error"):
        raise InputError("must be 'max' or 'error'", field="duplicates")
    target = load_golden(golden) if golden else read_trec_qrels(qrels)
    if retriever:
        if qrels is not None:
            raise InputError("--retriever needs --golden (with a corpus)", field="retriever")
        run_table, _ = run_retriever(target, retriever, depth)
    else:
        run_table = run
    report = evaluate_retrieval(
        target,
        run_table,
        split_list(metrics) or list(DEFAULT_METRICS),
        k=int_list(k, "k") or list(DEFAULT_KS),
        relevance_level=relevance_level,
        precision="float64" if float64 else "float32",
        duplicates=duplicates,
        missing="skip" if skip_missing else "zero",
    )
    if output:
        write_json(output, report)
    if not quiet:
        out = console()
        retrieval_summary(report, out)
        if output:
            out.print(f"wrote {output}")


def register(app: typer.Typer) -> None:
    app.command(name="retrieval")(retrieval)
