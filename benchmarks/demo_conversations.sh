#!/usr/bin/env bash
# The demo conversation set audited offline by the embedded defaults (issue 38 item 6):
# writes benchmarks/results/demo_conversations.txt (the terminal output, headed by the
# commit, time and load) and demo_conversations_report.md (the report.md it wrote).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
results=benchmarks/results
{
  echo "# ragtriage conversations --golden golden_sets/handbook --traces golden_sets/handbook/conversation_traces.jsonl   (commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src golden_sets || echo ' + uncommitted changes'); $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg); cold cache)"
  start=$(date +%s.%N)
  COLUMNS=120 python -m ragtriage.cli.main conversations --golden golden_sets/handbook \
    --traces golden_sets/handbook/conversation_traces.jsonl --out "$out" --cache "$out/cache.sqlite" 2>&1 \
    | sed "s#$out#OUT#g"
  echo "# wall $(python -c "import time; print(round(time.time() - $start, 1))") s"
} > "$results/demo_conversations.txt"
cp "$out/report.md" "$results/demo_conversations_report.md"
rm -rf "$out"
cat "$results/demo_conversations.txt"
