"""Router files from outside (issue 52 item 6): bounded work, or one refusal.

Built from the mechanism: a router file is refused before parsing past
``MAX_BYTES``, after parsing past ``MAX_DEPLOYMENTS``, and its YAML is composed once by a
loader that counts the nodes its aliases expand to (``MAX_NODES``) before any object is
built. The property test composes alias graphs of any depth and fan-out, recursive or
not: each is read or refused within the alarm, never a hang or a traceback.
"""

from __future__ import annotations

import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtriage.errors import InputError
from ragtriage.llm.router import MAX_BYTES, MAX_DEPLOYMENTS, MAX_NODES, load_router
from tests.support.harness import FIGURES

DEPLOYMENT = "  - model_name: judge\n    litellm_params:\n      model: openai/fake-judge\n"


@pytest.fixture(autouse=True)
def _alarm():
    """A hang fails the test (the issue's files ran for minutes)."""

    def hang(signum, frame):  # pragma: no cover - only on a hang
        raise TimeoutError("router file not refused within 120 s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(120)  # litellm's first import alone takes seconds on shared cores
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _bomb(levels: int, fan: int, where: str = "router_settings") -> str:
    """An alias bomb: each level's list holds ``fan`` aliases of the one below."""
    lines = [f"l0: &l0 [{', '.join(['lol'] * fan)}]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * fan)}]")
    body = "\n".join(lines) + "\n"
    if where == "router_settings":
        return body + "model_list:\n" + DEPLOYMENT + f"router_settings:\n  x: *l{levels - 1}\n"
    return body + "model_list:\n" + DEPLOYMENT + f"      extra: *l{levels - 1}\n"


@pytest.mark.parametrize("where", ["router_settings", "litellm_params"])
def test_the_600_byte_alias_bomb_is_refused(tmp_path, where):
    path = tmp_path / "router.yaml"
    path.write_text(_bomb(9, 9, where))
    assert path.stat().st_size < 700
    with pytest.raises(InputError, match="alias") as found:
        load_router(f"router:{path}")
    assert found.value.path == str(path)


def test_shared_defaults_the_litellm_proxy_way_are_read(tmp_path):
    path = tmp_path / "router.yaml"
    path.write_text(
        "defaults: &defaults\n  model: openai/fake-judge\n  rpm: 600\n"
        "model_list:\n"
        + "".join(
            f"  - model_name: judge\n    litellm_params:\n      <<: *defaults\n"
            f"      api_base: http://10.0.0.{i}:8080/v1\n"
            for i in range(1, 4)
        )
    )
    config = load_router(f"router:{path}")
    assert [d["rpm"] for d in config.deployments] == [600, 600, 600]


def test_a_recursive_alias_is_refused(tmp_path):
    path = tmp_path / "router.yaml"
    path.write_text("model_list:\n" + DEPLOYMENT + "router_settings:\n  x: &r [*r]\n")
    with pytest.raises(InputError, match="alias"):
        load_router(f"router:{path}")


def test_more_deployments_than_the_bound_are_refused(tmp_path):
    path = tmp_path / "router.yaml"
    path.write_text("model_list:\n" + DEPLOYMENT * (MAX_DEPLOYMENTS + 1))
    assert path.stat().st_size < MAX_BYTES
    with pytest.raises(InputError, match="deployments: at most") as found:
        load_router(f"router:{path}")
    assert found.value.field == "model_list"


@pytest.mark.parametrize("deployments", [20_000, 200_000])
def test_the_issue_4_and_40_mb_files_are_refused_before_parsing(tmp_path, deployments):
    path = tmp_path / "router.yaml"
    path.write_text("model_list:\n" + DEPLOYMENT * deployments)
    with pytest.raises(InputError, match="bytes: a router file is at most"):
        load_router(f"router:{path}")


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    levels=st.integers(1, 12),
    fan=st.integers(1, 12),
    where=st.sampled_from(["router_settings", "litellm_params"]),
    recursive=st.booleans(),
)
def test_any_alias_graph_is_read_or_refused_in_bounded_time(
    tmp_path_factory, levels, fan, where, recursive
):
    FIGURES["router: alias graphs"] += 1
    text = _bomb(levels, fan, where)
    if recursive:
        text += "again: &again [*again, *l0]\n"
    path = tmp_path_factory.mktemp("router") / "router.yaml"
    path.write_text(text)
    expanded = sum(fan**i for i in range(levels + 1))  # the bomb's list nodes and leaves
    try:
        load_router(f"router:{path}")
    except InputError as exc:
        assert exc.path == str(path), str(exc)
        return
    assert not recursive and expanded <= MAX_NODES, (levels, fan)
