"""The embedded model's weights are verified before loading; failures are explained."""

from __future__ import annotations

import pytest

from ragtriage.llm import weights
from ragtriage.llm.weights import ModelUnavailable, model_path


def test_sha_mismatch_is_refused(tmp_path, monkeypatch):
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"not the model")
    monkeypatch.setenv("RAGTRIAGE_LOCAL_MODEL_PATH", str(fake))
    with pytest.raises(ModelUnavailable, match="expected cc324af0"):
        model_path()


def test_parts_are_joined_in_order_and_verified(tmp_path, monkeypatch):
    import hashlib

    parts = []
    for n in range(3):
        part = tmp_path / f"part{n}.bin"
        part.write_bytes(bytes([n]) * (5 + n))
        parts.append(part)
    joined = b"".join(p.read_bytes() for p in parts)
    monkeypatch.setenv("RAGTRIAGE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RAGTRIAGE_LOCAL_MODEL_PATH", raising=False)
    monkeypatch.setattr(weights, "part_paths", lambda: parts)
    monkeypatch.setattr(weights, "MODEL_SHA256", hashlib.sha256(joined).hexdigest())
    path = model_path(weights.MODEL_SHA256)
    assert path.read_bytes() == joined
    assert path.with_suffix(".verified").is_file()
    # the stamp vouches for the hash it verified, not for any hash asked for later
    with pytest.raises(ModelUnavailable, match="expected 0000"):
        model_path("0" * 64)
    assert model_path(weights.MODEL_SHA256) == path


def verified_file(tmp_path, monkeypatch, content: bytes = b"weights"):
    """A model file at RAGTRIAGE_LOCAL_MODEL_PATH, verified once (stamp written)."""
    import hashlib

    path = tmp_path / "model.gguf"
    path.write_bytes(content)
    monkeypatch.setenv("RAGTRIAGE_LOCAL_MODEL_PATH", str(path))
    digest = hashlib.sha256(content).hexdigest()
    assert model_path(digest) == path
    return path, digest


def test_a_stamp_for_the_same_hash_size_and_mtime_skips_hashing(tmp_path, monkeypatch):
    path, digest = verified_file(tmp_path, monkeypatch)
    monkeypatch.setattr(weights, "file_sha256", lambda p: pytest.fail("hashed again"))
    assert model_path(digest) == path


def test_a_stamp_never_vouches_for_another_expected_hash(tmp_path, monkeypatch):
    """It did: with a ``.verified`` stamp present the expected SHA-256 was ignored."""
    path, _ = verified_file(tmp_path, monkeypatch)
    with pytest.raises(ModelUnavailable, match="expected " + "1" * 64):
        model_path("1" * 64)
    assert path.with_suffix(".verified").is_file()  # the stamp was not what made it fail


def test_a_changed_file_is_hashed_again_and_refused(tmp_path, monkeypatch):
    import os

    path, digest = verified_file(tmp_path, monkeypatch)
    stat = path.stat()
    path.write_bytes(b"weightz")  # same size, different bytes, a later mtime
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    with pytest.raises(ModelUnavailable, match="expected " + digest[:8]):
        model_path(digest)


def test_missing_parts_name_the_install_command(monkeypatch):
    monkeypatch.setattr(weights, "find_spec", lambda name: None)
    with pytest.raises(ModelUnavailable, match=r"ragtriage\[local\]"):
        weights.part_paths()
