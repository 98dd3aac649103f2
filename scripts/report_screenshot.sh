#!/usr/bin/env bash
# The report screenshot in README.md and docs/getting-started.md (docs/images/report.png):
# a model-free audit of the shipped handbook set, its report.html shot in headless
# Chromium (Debian's /usr/bin/chromium). Re-run after the report's layout changes.
#
#   bash scripts/report_screenshot.sh
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" python -m ragtriage.cli.main audit \
  --golden golden_sets/handbook --generator extractive --judge lexical --out "$OUT" --quiet
# --no-sandbox: CI containers run as root, where Chromium's sandbox refuses to start.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,1500 \
  --screenshot="$PWD/docs/images/report.png" "file://$OUT/report.html" 2>/dev/null
echo "wrote docs/images/report.png"
