"""Write docs/reference/metrics.md from the metric declarations (retrieval/metrics.py).

    python scripts/metrics_reference.py          # rewrite the page
    python scripts/metrics_reference.py --check  # exit 1 when the committed page differs

The page is never edited by hand: a test (tests/retrieval/test_metric_reference.py)
fails when it differs from what this script writes, so a new metric, parameter or
spelling reaches the docs with the code.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ragtriage.retrieval.metrics import ALIASES, MAX_CUTOFF, REGISTRY, MetricSpec, Param

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "metrics.md"

INTRO = """\
# Metrics reference

<!-- Written by scripts/metrics_reference.py from retrieval/metrics.py; do not edit. -->

Every metric is a small function over the ranked results of all queries, declared with
its formula, its parameters and the trec_eval measure it equals per query (trec_eval
9.0.8 and 10.0, to 1e-9). Give metrics by name with an optional cutoff: `ndcg@10`,
`recall@5`, `mrr`. trec_eval's spellings are read too: `P_5`, `ndcg_cut.10`, and
`P.5,10` (a list of cutoffs, as in `trec_eval -m P.5,10`). A metric that needs a cutoff,
given without one (`recall`), and trec_eval's bare cut measures (`ndcg_cut`, `map_cut`)
are taken at every cutoff of `--k` / `k=`. Cutoffs run from 1 to {max_cutoff:,}.
Names are case-insensitive.

Notation: `rel_i` is 1 when the result at rank i has a label >= the relevance level
(`rel`), else 0; `R` is the number of judged documents with a label >= `rel`; `g_i`
is the gain of the result at rank i (0 for an unjudged or negatively judged result).
"""


def reference() -> str:
    """The whole page, from :data:`REGISTRY`."""
    parts = [INTRO.format(max_cutoff=MAX_CUTOFF), _summary(), *map(_section, REGISTRY.values())]
    return "\n".join(parts)


def _summary() -> str:
    lines = [
        "| metric | what | trec_eval | cutoff | other spellings |",
        "|---|---|---|---|---|",
    ]
    for spec in REGISTRY.values():
        lines.append(
            f"| [`{spec.name}`](#{spec.name}) | {spec.title} | "
            f"{_trec(spec)} | {spec.cutoff} | {_spellings(spec)} |"
        )
    return "\n".join(lines) + "\n"


def _section(spec: MetricSpec) -> str:
    lines = [
        f"## {spec.name}",
        "",
        f"{spec.title}.",
        "",
        "```text",
        spec.formula,
        "```",
        "",
        f"- trec_eval: {_trec(spec)}",
    ]
    if spec.equals:
        lines.append(f"- equals: {spec.equals}")
    lines.append(f"- written: {_examples(spec)}")
    lines += ["", "| parameter | type | default | given | meaning |", "|---|---|---|---|---|"]
    lines += [_param_row(p) for p in spec.params]
    if spec.notes:
        lines += ["", " ".join(spec.notes.split())]
    return "\n".join(lines) + "\n"


def _param_row(param: Param) -> str:
    default = "required" if param.required else _default(param)
    return (
        f"| `{param.name}` | {param.dtype.__name__} | {default} | {param.written} "
        f"| {param.description} |"
    )


def _default(param: Param) -> str:
    if param.default is None:
        return "none (all ranks)" if param.name == "cutoff" else "none"
    return f"`{param.default}`"


def _trec(spec: MetricSpec) -> str:
    if not spec.trec:
        return "none"
    uncut = f", `{spec.trec_uncut}` without k" if spec.trec_uncut else ""
    return f"`{spec.trec}`{uncut}"


def _spellings(spec: MetricSpec) -> str:
    others = sorted(a for a, name in ALIASES.items() if name == spec.name)
    return ", ".join(f"`{a}`" for a in others) or "-"


def _examples(spec: MetricSpec) -> str:
    if spec.cutoff == "none":
        return f"`{spec.name}`"
    cut = "".join(f", `{c}.10`" for c in spec.cut_names)
    if spec.cutoff == "required":
        return f"`{spec.name}@10`{cut}; bare `{spec.name}` is taken at each `--k`"
    return f"`{spec.name}`, `{spec.name}@10`{cut}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the page differs")
    args = parser.parse_args(argv)
    text = reference()
    if args.check:
        same = PAGE.is_file() and PAGE.read_text(encoding="utf-8") == text
        if not same:
            print(f"{PAGE} is out of date: run python scripts/metrics_reference.py")
        return 0 if same else 1
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
