#!/usr/bin/env bash
# Install ragtriage with the embedded model, llama.cpp built to run on any x86-64 CPU.
#
# llama-cpp-python ships no wheel for Linux x86-64 on PyPI, and its default build
# (GGML_NATIVE=ON) compiles for the CPU it is built on: such builds segfault on some
# Intel Xeons (AVX-512/AMX). We build it once per flag set into a wheel folder keyed by
# the flags, the version and the Python, then install that wheel: pip's own cache, which
# does not key built wheels by CMAKE_ARGS, can never hand back a differently built one.
#
#   bash scripts/setup.sh             # build (first time, minutes; progress shown) and install
#   bash scripts/setup.sh --rebuild   # throw the cached build away and build again
#   RAGTRIAGE_LLAMA_CMAKE_ARGS="-DLLAVA_BUILD=OFF" bash scripts/setup.sh   # a native build
#
# Extra arguments after the options go to the final `pip install` (default: -e ".[local,test]").
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
      }
    }'
}

# Turns pip install's own lines into "setup: installing: <what> (T s)": one per package
# collected or downloaded (with its size) and the final install, so the last minutes of
# the setup (about 1.1 GB of packages) are not silent.
install_progress() {
  awk '
    BEGIN { "date +%s" | getline t0; close("date +%s") }
    /^(Collecting|Downloading|Installing collected packages|Successfully installed|Building wheel)/ {
      "date +%s" | getline t; close("date +%s")
      line = $0; if (length(line) > 110) line = substr(line, 1, 107) "..."
      printf "setup: installing: %s (%d s)\n", line, t - t0
      fflush()
    }'
}

REBUILD=0
if [[ "${1:-}" == "--rebuild" ]]; then REBUILD=1; shift; fi
TARGET=("$@")
if [[ ${#TARGET[@]} -eq 0 ]]; then TARGET=(-e ".[local,test]"); fi

TAG=$("$PY" -c 'import platform, sys; print(f"{sys.implementation.name}{sys.version_info[0]}{sys.version_info[1]}-{platform.machine()}")')
KEY=$(printf '%s|%s|%s' "$LLAMA_VERSION" "$FLAGS" "$TAG" | sha256sum | cut -c1-16)
ROOT="${RAGTRIAGE_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/ragtriage/wheels}"
DIR="$ROOT/llama-cpp-python-$LLAMA_VERSION-$KEY"

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
  if ! CMAKE_ARGS="$FLAGS" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
      "$PY" -m pip wheel -v --no-cache-dir --no-deps \
      "llama-cpp-python==$LLAMA_VERSION" -w "$DIR.tmp" 2>&1 \
      | tee "$LOG" | progress; then
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
echo "setup: installing ragtriage and its dependencies (${TARGET[*]}): the model is 22 packages, about 1.1 GB"
INSTALL_LOG="$(mktemp)"
if ! "$PY" -m pip install --progress-bar off "${TARGET[@]}" 2>&1 | tee "$INSTALL_LOG" | install_progress; then
  echo "setup: pip install failed; the last lines of its output:" >&2
  tail -n 30 "$INSTALL_LOG" >&2
  exit 1
fi
rm -f "$INSTALL_LOG"
echo "setup: done; check the install with: ragtriage doctor"
