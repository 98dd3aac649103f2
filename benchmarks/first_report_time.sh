#!/usr/bin/env bash
# The new user's first report, timed: the README's first command (read from README.md's
# "Try it" section, so the figure is of what the README says) run in a fresh clone of
# this commit, in a fresh venv, with an empty pip cache, an empty llama.cpp wheel folder
# and an empty ragtriage cache. Every output line is prefixed with the seconds since the
# command started, so a silent stretch shows as a jump (issue 53 item 1: under 2 min on
# 2 idle cores, nothing compiled on the way).
#
#   bash benchmarks/first_report_time.sh   # -> benchmarks/results/first_report_time.txt
#
# It needs the network (pip downloads every package). The load average before and after
# is recorded: a figure taken on a busy machine says so.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"
OUT="${OUT:-$REPO/benchmarks/results/first_report_time.txt}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
commit="$(git rev-parse --short HEAD)"
git clone --quiet --no-local "$REPO" "$WORK/clone"
git -C "$WORK/clone" checkout --quiet "$commit"
# the README's first command: the first bash block of its "Try it" section
command="$(awk '/^## Try it/ {s = 1} s && /^```bash/ {b = 1; next} b && /^```/ {exit} b' README.md)"
python -m venv "$WORK/venv"
{
  echo "# $command   (fresh clone at $commit, fresh venv, empty PIP_CACHE_DIR, RAGTRIAGE_WHEELS and XDG_CACHE_HOME; $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg); each line: seconds since the command started)"
} > "$OUT"
cd "$WORK/clone"
start=$EPOCHREALTIME
set +e
(
  # shellcheck disable=SC1091
  source "$WORK/venv/bin/activate"
  export PIP_CACHE_DIR="$WORK/pip-cache" RAGTRIAGE_WHEELS="$WORK/wheels"
  export XDG_CACHE_HOME="$WORK/cache" RAGTRIAGE_HOME="$WORK/home" COLUMNS=120
  bash -c "$command" 2>&1
) | while IFS= read -r line; do
  printf '%6.1f  %s\n' "$(echo "$EPOCHREALTIME - $start" | bc)" "$line"
done >> "$OUT"
rc=${PIPESTATUS[0]}
set -e
wall="$(echo "$EPOCHREALTIME - $start" | bc)"
printf '# exit %s; wall %.1f s; load average after: %s\n' "$rc" "$wall" "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT"
# CPU time of the clone, venv and command together (bash's times: children's user, sys),
# which a busy machine inflates far less than the wall time
times > "$WORK/times"  # in this shell: a $(times) subshell has no children to count
echo "# CPU of everything run (user sys, bash times): $(tail -1 "$WORK/times")" >> "$OUT"
cat "$OUT"
