"""Stage 2: the faithfulness judge.

``ragtriage.judge.api`` holds the public entry points (``judge_faithfulness``, its async
variant, ``fingerprint``); ``types`` is the result contract shared with calibration and
triage. Nothing heavy (litellm, llama.cpp) is imported until a model is actually used.
"""
