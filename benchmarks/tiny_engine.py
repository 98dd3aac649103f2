"""The worker's engine on the tiny GGUF of ``tiny_gguf.py`` (``$TINY_GGUF``).

For ``portable_cpu_check.sh``: the real 1.1 GB model cannot be copied to every machine
whose CPU we want to check, so this runs the same llama.cpp kernels on a tiny file through
the real worker process (``RAGTRIAGE_WORKER_ENGINE=tiny_engine:TinyEngine``).
"""

import os

from ragtriage.judge.models.engine import LlamaEngine


class TinyEngine(LlamaEngine):
    def _load(self):
        if self._llm is None:
            from llama_cpp import Llama

            self._llm = Llama(
                model_path=os.environ["TINY_GGUF"],
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_batch=512,
                seed=0,
                verbose=False,
            )
        return self._llm
