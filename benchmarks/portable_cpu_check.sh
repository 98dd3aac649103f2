#!/usr/bin/env bash
# Does the portable llama-cpp-python build run on this (other) CPU? Tiny model, real kernels.
#
# Prepare on the build machine, then copy the folder D to the other machine with the repo:
#   D=.ragtriage/device; mkdir -p $D/wheels
#   cp ~/.cache/ragtriage/wheels/llama-cpp-python-0.3.36-*/llama_cpp_python-*.whl $D/
#   python benchmarks/tiny_gguf.py $D/tiny.gguf; cp benchmarks/tiny_engine.py $D/
#   pip download --only-binary=:all: --python-version 3.12 --platform manylinux_2_17_x86_64 \
#     --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 -d $D/wheels \
#     diskcache pydantic jinja2 typing_extensions numpy     # for an offline Python 3.12 there
# Run there: bash benchmarks/portable_cpu_check.sh
set -u
D=${D:-.ragtriage/device}
echo "== cpu"; grep -m1 "model name" /proc/cpuinfo; nproc
for f in avx2 bmi2 avx512f avx512_vnni avx512_bf16 amx_int8 amx_tile; do printf '%s=%s ' $f $(grep -m1 -c -w $f /proc/cpuinfo); done; echo
echo "== python"; command -v python3; python3 --version
python3 -c "import numpy, pydantic, typing_extensions; print('numpy', numpy.__version__, 'pydantic', pydantic.__version__)" 2>&1 | tail -1
python3 -c "import diskcache, jinja2; print('diskcache ok')" 2>&1 | tail -1
T=/tmp/llp; python3 -m pip install -q --no-index --find-links $D/wheels --target $T $D/llama_cpp_python-*.whl pydantic diskcache jinja2 2>&1 | tail -2
export PYTHONPATH=$T:$PWD/src:$PWD/$D TINY_GGUF=$PWD/$D/tiny.gguf
echo "== in-process (child python)"
python3 - <<'PY'
import time, llama_cpp
print(llama_cpp.llama_print_system_info().decode().strip())
llm = llama_cpp.Llama(model_path=__import__("os").environ["TINY_GGUF"], n_ctx=512, n_threads=4, verbose=False)
t = time.perf_counter(); out = llm.create_completion(prompt="Hello world", max_tokens=16, temperature=0)
print("completion ok", repr(out["choices"][0]["text"]), f"{time.perf_counter()-t:.3f}s")
toks = llm.tokenize(b"The tower was completed in 1889 and is 330 metres tall. " * 12)[:200]
llm.reset(); t = time.perf_counter(); llm.eval(toks); print("eval", len(toks), f"tokens ok {time.perf_counter()-t:.3f}s")
PY
echo "exit=$?"
echo "== ragtriage worker process"
RAGTRIAGE_WORKER_ENGINE=tiny_engine:TinyEngine python3 - <<'PY' 2>&1 | tail -8
from ragtriage.judge.models.worker import WorkerProcess
from ragtriage.judge.models.base import Message, ModelRequest
from ragtriage.judge.models.build import compiled_features, cpu_flags, unsupported_features, beyond_portable
w = WorkerProcess(n_threads=4, n_ctx=512)
h = w.hello(); print("worker pid", h["pid"], "llama_cpp", h["llama_cpp"])
c = compiled_features(h["system_info"]); print("compiled", sorted(c), "unsupported here", unsupported_features(c, cpu_flags()), "beyond portable", beyond_portable(c))
r = w.complete(ModelRequest(messages=(Message(role="user", content="Is it true?"),), mode="choice", choices=("a","b"), choice_prefix='{"supported": '))
print("choice ok", r.choice_logprobs)
r = w.complete(ModelRequest(messages=(Message(role="user", content="Say hi"),), mode="text", max_tokens=8))
print("text ok", repr(r.text)); w.close()
PY
echo "== done"
