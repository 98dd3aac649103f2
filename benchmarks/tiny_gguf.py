"""Write a tiny, random-weight Qwen2 GGUF model laid out like a real Q4_K_M file.

Why: the real judge model (qwen2.5-coder-1.5b-instruct-q4_k_m.gguf, ~1.1 GB) cannot be copied to
another machine under a 64 MiB transfer limit, yet we need to check there that a llama-cpp-python
build loads a model and generates without crashing (e.g. an illegal instruction in a SIMD kernel).
This file (~1 MB) uses the same architecture ("qwen2") and the same tensor types as Q4_K_M --
Q4_K for most matrices, Q6_K for attn_v, ffn_down and output, F32 for norms and q/k/v biases --
so the same quantized matmul kernels run. Output text is meaningless.

Quantized blocks are random bytes with small finite fp16 super-block scales, so every weight
dequantizes to a finite value. The vocabulary is a 512-token SentencePiece-style ("llama") one:
<unk>, <s>, </s>, the 256 byte-fallback tokens <0x00>..<0xFF>, then single characters and
two-letter pieces.

Usage: python benchmarks/tiny_gguf.py OUT.gguf   (deterministic: fixed seed)
"""

from __future__ import annotations

import string
import sys

import gguf
import numpy as np

ARCH = "qwen2"
N_EMBD, N_FF, N_LAYER, N_HEAD, N_HEAD_KV, N_CTX, N_VOCAB = 256, 512, 2, 4, 2, 512, 512
QK = gguf.GGMLQuantizationType
SEED = 1234


def vocab() -> tuple[list[str], list[int], list[float]]:
    """Tokens, token types and SentencePiece scores for a 512-token llama-style vocabulary."""
    tt = gguf.TokenType
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [tt.UNKNOWN, tt.CONTROL, tt.CONTROL] + [tt.BYTE] * 256
    lower = string.ascii_lowercase
    pieces = ["\u2581", *string.printable[:94]]
    pieces += ["\u2581" + c for c in string.ascii_letters + string.digits]
    pieces += [a + b for a in lower for b in lower]
    pieces = pieces[: N_VOCAB - len(tokens)]
    tokens += pieces
    types += [tt.NORMAL] * len(pieces)
    # Special/byte tokens score 0; ordinary pieces prefer longer ones (merged first by SPM).
    scores = [0.0] * 259 + [-1000.0 + 10.0 * len(p) - i * 1e-3 for i, p in enumerate(pieces)]
    assert len(tokens) == N_VOCAB == len(set(tokens))
    return tokens, [int(t) for t in types], scores


def quant_blocks(rng: np.random.Generator, qtype: QK, rows: int, cols: int) -> np.ndarray:
    """Random Q4_K / Q6_K bytes (rows x cols weights) whose fp16 scale fields are small, finite."""
    block_elems, block_bytes = gguf.GGML_QUANT_SIZES[qtype]
    n_blocks = rows * cols // block_elems
    blocks = rng.integers(0, 256, size=(n_blocks, block_bytes), dtype=np.uint8)
    if qtype == QK.Q4_K:  # d, dmin (fp16), scales[12], qs[128]: w = d*sc*q - dmin*m, |w| < ~0.5
        blocks[:, 0:4] = np.array([4e-4, 2e-4], dtype=np.float16).view(np.uint8)
    elif qtype == QK.Q6_K:  # ql[128], qh[64], int8 scales[16], d (fp16): w = d*sc*(q-32)
        blocks[:, -2:] = np.array([1e-4], dtype=np.float16).view(np.uint8)
    else:
        raise ValueError(qtype)
    data = blocks.reshape(rows, cols // block_elems * block_bytes)
    assert np.isfinite(gguf.quants.dequantize(data, qtype)).all()
    return data


def write(path: str) -> None:
    """Write the tiny model to `path`."""
    rng = np.random.default_rng(SEED)
    w = gguf.GGUFWriter(path, ARCH)
    w.add_name("tiny-random-qwen2-q4_k_m")
    w.add_block_count(N_LAYER)
    w.add_context_length(N_CTX)
    w.add_embedding_length(N_EMBD)
    w.add_feed_forward_length(N_FF)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD_KV)
    w.add_rope_freq_base(1_000_000.0)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_K_M)
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)

    tokens, types, scores = vocab()
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_scores(scores)
    w.add_unk_token_id(0)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)

    def quant(name: str, qtype: QK, n_out: int, n_in: int) -> None:
        # numpy shape is (n_out, n_in); the writer turns the byte shape into ggml's [n_in, n_out].
        w.add_tensor(name, quant_blocks(rng, qtype, n_out, n_in), raw_dtype=qtype)

    def f32(name: str, n: int, scale: float, offset: float = 0.0) -> None:
        w.add_tensor(name, (offset + scale * rng.standard_normal(n)).astype(np.float32))

    kv = N_EMBD // N_HEAD * N_HEAD_KV
    quant("token_embd.weight", QK.Q4_K, N_VOCAB, N_EMBD)
    for i in range(N_LAYER):
        b = f"blk.{i}."
        f32(b + "attn_norm.weight", N_EMBD, 0.02, 1.0)
        quant(b + "attn_q.weight", QK.Q4_K, N_EMBD, N_EMBD)
        quant(b + "attn_k.weight", QK.Q4_K, kv, N_EMBD)
        quant(b + "attn_v.weight", QK.Q6_K, kv, N_EMBD)
        f32(b + "attn_q.bias", N_EMBD, 0.02)
        f32(b + "attn_k.bias", kv, 0.02)
        f32(b + "attn_v.bias", kv, 0.02)
        quant(b + "attn_output.weight", QK.Q4_K, N_EMBD, N_EMBD)
        f32(b + "ffn_norm.weight", N_EMBD, 0.02, 1.0)
        quant(b + "ffn_gate.weight", QK.Q4_K, N_FF, N_EMBD)
        quant(b + "ffn_up.weight", QK.Q4_K, N_FF, N_EMBD)
        quant(b + "ffn_down.weight", QK.Q6_K, N_EMBD, N_FF)
    f32("output_norm.weight", N_EMBD, 0.02, 1.0)
    quant("output.weight", QK.Q6_K, N_VOCAB, N_EMBD)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python benchmarks/tiny_gguf.py OUT.gguf")
    write(sys.argv[1])
