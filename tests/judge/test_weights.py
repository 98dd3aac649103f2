"""The embedded model's weights are verified before loading; failures are explained."""

from __future__ import annotations

import pytest

from ragtriage.judge.models import weights
from ragtriage.judge.models.weights import ModelUnavailable, model_path


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
    with pytest.raises(ModelUnavailable, match="expected"):
        path.unlink()
        path.with_suffix(".verified").unlink()
        model_path("0" * 64)


def test_missing_parts_name_the_install_command(monkeypatch):
    monkeypatch.setattr(weights, "find_spec", lambda name: None)
    with pytest.raises(ModelUnavailable, match=r"ragtriage\[local\]"):
        weights.part_paths()
