#!/usr/bin/env bash
# A CI step for a pull request: audit the candidate's traces, compare them with the
# baseline (an audit of the main branch, committed or kept as an artifact), and fail the
# build when a bar is missed. Exit codes are gate's: 0 every bar holds, 1 a bar missed,
# a forbidden chunk leaked or the judge's calibration is stale, 2 unusable input.
#
#   bash examples/ci/gate.sh                                  # the example's own traces
#   TRACES=my_traces.jsonl BASELINE=baseline/results.json bash examples/ci/gate.sh
#
# The judge here is the model-free lexical one, so the step needs no model and no key;
# use --judge with a litellm model id (and its key in the environment) for a real gate.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
RAGTRIAGE="${RAGTRIAGE:-ragtriage}"          # the command, e.g. "python -m ragtriage.cli.main"
GOLDEN="${GOLDEN:-$HERE/../own_system}"      # golden.jsonl + corpus.jsonl
TRACES="${TRACES:-$HERE/../own_system/traces.jsonl}"
OUT="${OUT:-results}"
BASELINE="${BASELINE:-}"                      # a baseline results.json, optional

$RAGTRIAGE audit --golden "$GOLDEN" --traces "$TRACES" --judge lexical --out "$OUT" --quiet

# Absolute bars: the example's system must find the right chunk for most queries and
# answer most of them faithfully. (These bars are the example's; set your own.)
BARS=(--min recall@3=0.8 --min pass_rate=0.6)
if [[ -n "$BASELINE" ]]; then
  # What changed, with paired intervals, as Markdown for a pull-request comment.
  $RAGTRIAGE compare "$BASELINE" "$OUT/results.json" --markdown "$OUT/diff.md"
  BARS+=(--baseline "$BASELINE" --max-drop recall@3=0.05 --max-drop pass_rate=0.1)
fi
$RAGTRIAGE gate "$OUT/results.json" "${BARS[@]}"
