#!/usr/bin/env bash
# Digests of the outputs the restructuring must keep byte-identical (issues 34 and 49):
# retrieval on trec_eval's own files, the model-free audit of the handbook set, calibrate
# with the lexical judge on the shipped grades, the demo audit, the handbook's conversations,
# compare and gate on two results of each kind, and the retrieval report of the 300k benchmark's
# seeded run (benchmarks/retrieval_scale.py's generator). Values that differ on every run (wall
# seconds, dates, the output folder, the run digest's name) are blanked by normalise.py
# before hashing; everything else counts.
#
#   bash benchmarks/behaviour_check.sh            # prints "<sha256>  <name>" per output
#   bash benchmarks/behaviour_check.sh --keep D   # also keeps the normalised files in D
set -euo pipefail
cd "$(dirname "$0")/.."
KEEP=""
if [[ "${1:-}" == "--keep" ]]; then KEEP="$2"; fi
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
T=tests/fixtures/trec_eval

ragtriage retrieval --run $T/results.test --qrels $T/qrels.test -o "$W/trec.json" > "$W/trec.txt" 2>&1
ragtriage retrieval --run $T/results.test --qrels $T/qrels.rel_level -o "$W/trec_graded.json" > "$W/trec_graded.txt" 2>&1
ragtriage audit --golden golden_sets/handbook --generator extractive --judge lexical \
  --cache "$W/cache.sqlite" -o "$W/audit" > "$W/audit.txt" 2>&1
ragtriage calibrate human_grades \
  --judge lexical --out "$W/cal" > "$W/calibrate.txt" 2>&1
# Conversations, and compare and gate on two results of each kind (issue 49's Done-when):
# the demo audit (the shipped answers) against the extractive one; the handbook's
# conversations judged by the lexical judge and by the shipped (embedded-sentences) record.
H=golden_sets/handbook
ragtriage audit --golden $H --cache "$W/cache.sqlite" -o "$W/demo" > "$W/demo.txt" 2>&1
ragtriage conversations --golden $H --traces $H/conversation_traces.jsonl --judge lexical \
  --cache "$W/cache.sqlite" -o "$W/conv" > "$W/conv.txt" 2>&1
ragtriage conversations --golden $H --traces $H/conversation_traces.jsonl \
  --cache "$W/cache.sqlite" -o "$W/conv_demo" > "$W/conv_demo.txt" 2>&1
ragtriage compare "$W/audit/results.json" "$W/demo/results.json" -o "$W/compare_audit.json" \
  --markdown "$W/compare_audit.md" > "$W/compare_audit.txt" 2>&1 || true
ragtriage compare "$W/conv/results.json" "$W/conv_demo/results.json" -o "$W/compare_conv.json" \
  --markdown "$W/compare_conv.md" > "$W/compare_conv.txt" 2>&1 || true
ragtriage gate "$W/demo/results.json" --baseline "$W/audit/results.json" --min pass_rate=0.8 \
  --max-drop pass_rate=0.05 > "$W/gate_audit.txt" 2>&1 || echo "exit $?" >> "$W/gate_audit.txt"
ragtriage gate "$W/conv_demo/results.json" --baseline "$W/conv/results.json" \
  --min conversation_pass_rate=0.5 --max failures.rewrite=0 > "$W/gate_conv.txt" 2>&1 \
  || echo "exit $?" >> "$W/gate_conv.txt"
mkdir -p "$W/scale"
python -c "import sys; sys.path.insert(0, 'benchmarks'); from pathlib import Path; from retrieval_scale import generate; generate(300_000, Path(sys.argv[1]))" "$W/scale"
ragtriage retrieval --run "$W/scale/run-300k.trec" --qrels "$W/scale/qrels-300k.trec" -o "$W/scale.json" > "$W/scale.txt" 2>&1
rm -rf "$W/scale" "$W/cache.sqlite"

python benchmarks/behaviour_normalise.py "$W"
( cd "$W" && find . -type f | LC_ALL=C sort | xargs sha256sum )
if [[ -n "$KEEP" ]]; then rm -rf "$KEEP"; cp -r "$W" "$KEEP"; fi
