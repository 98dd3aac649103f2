#!/usr/bin/env bash
# Wall time of the README's test command, and what it ran on, for the README to cite:
#
#   bash benchmarks/test_suite_time.sh                 # the whole suite -> benchmarks/results/test_suite.txt
#   bash benchmarks/test_suite_time.sh tests/test_layers.py   # a part (named in the file's header)
#
# Run it on a machine doing nothing else: the load average before and after is recorded,
# so a figure taken on a busy machine says so.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-benchmarks/results/test_suite.txt}"
commit="$(git rev-parse --short HEAD)"
git diff --quiet HEAD -- src tests || commit="$commit + uncommitted changes"
{
  echo "# python -m pytest -q -p no:cacheprovider $*   (commit $commit, $(date -u '+%Y-%m-%d %H:%M UTC'))"
  echo "# machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM," \
       "$(python -c 'import platform; print(platform.python_version())'), load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT"
start="$(date +%s.%N)"
set +e
python -m pytest -q -p no:cacheprovider "$@" > "$OUT.log" 2>&1
rc=$?
set -e
end="$(date +%s.%N)"
tail -3 "$OUT.log" >> "$OUT" && rm -f "$OUT.log"
python - "$start" "$end" "$rc" >> "$OUT" <<'PY'
import sys
start, end, rc = sys.argv[1:]
with open("/proc/loadavg") as f:
    load = " ".join(f.read().split()[:3])
print(f"# exit {rc}; wall {float(end) - float(start):.1f} s; load average after: {load}")
PY
cat "$OUT"
