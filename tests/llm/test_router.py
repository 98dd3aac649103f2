"""``router:FILE[#GROUP]``: a litellm Router over the deployments a config file names.

The file's faults are errors naming the file, the line and the field before any call;
the calls of a run spread over two fake OpenAI servers on 127.0.0.1 (counted on each
server); one server's 429 sends the retry to the other without holding every call."""

from __future__ import annotations

import asyncio
import json

import pytest

from ragtriage.errors import InputError
from ragtriage.judge.api import ajudge_run
from ragtriage.judge.judge import resolve_model
from ragtriage.judge.spec import JudgeSpec
from ragtriage.judge.types import Outcome
from ragtriage.llm.calls import RetryPolicy
from ragtriage.llm.router import RouterModel, load_router
from tests.support.fake_server import FakeOpenAI, claims_reply
from tests.support.fakes import answer_items


@pytest.fixture(autouse=True)
def _fake_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")


def _yaml(bases: list[str], group: str = "judge", extra: str = "") -> str:
    rows = [
        f"  - model_name: {group}\n"
        "    litellm_params:\n"
        "      model: openai/fake-judge\n"
        f"      api_base: {base}\n"
        for base in bases
    ]
    return "model_list:\n" + "".join(rows) + extra


def _write(tmp_path, text: str, name: str = "router.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_spec_names_the_file_and_group(tmp_path):
    path = _write(tmp_path, _yaml(["http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"]))
    spec = JudgeSpec.parse(f"claims@router:{path}#judge")
    assert spec.strategy == "claims" and spec.model == f"router:{path}#judge"
    alone = JudgeSpec.parse(f"router:{path}")  # one group in the file: no #GROUP needed
    model = resolve_model(alone.model)
    assert isinstance(model, RouterModel) and model.name == "router:judge"
    # identity: the group and its models, not the addresses (a new server keeps the cache)
    assert model.params == {
        "router": "judge",
        "deployments": "openai/fake-judge",
        "json_mode": "json_schema",
    }


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("model_list: []\n", ":"),
        (
            "model_list:\n  - model_name: judge\n    litellm_params: {}\n",
            ":2: field 'model_list[0]",
        ),
        (
            _yaml(["http://a/v1"]) + "  - model_name: judge\n    litellm_params:\n"
            "      model: nosuchprovider/x\n",
            ":6: field 'model_list[1].litellm_params.model'",  # the deployment's line
        ),
        ("model_list: [\n", ":"),
    ],
    ids=["empty", "no-model", "unknown-model", "not-yaml"],
)
def test_a_faulty_file_is_an_error_naming_file_line_and_field(tmp_path, text, where):
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        JudgeSpec.parse(f"router:{path}")
    assert str(caught.value).startswith(f"{path}{where}"), str(caught.value)


def test_group_must_be_named_when_the_file_has_several(tmp_path):
    text = _yaml(["http://a/v1"], "small") + _yaml(["http://b/v1"], "big").removeprefix(
        "model_list:\n"
    )
    path = _write(tmp_path, text)
    with pytest.raises(InputError, match="2 groups"):
        load_router(f"router:{path}")
    with pytest.raises(InputError, match="no deployment of group 'medium'"):
        load_router(f"router:{path}#medium")
    assert load_router(f"router:{path}#big").deployments[0]["api_base"] == "http://b/v1"
    with pytest.raises(InputError, match="no such router file"):
        JudgeSpec.parse(f"router:{tmp_path / 'missing.yaml'}")


def test_json_file_and_router_settings_are_read(tmp_path):
    config = {
        "model_list": [
            {"model_name": "g", "litellm_params": {"model": "openai/x", "api_base": "http://a"}}
        ],
        "router_settings": {"routing_strategy": "least-busy"},
    }
    path = _write(tmp_path, json.dumps(config), "router.json")
    assert load_router(f"router:{path}").settings == {"routing_strategy": "least-busy"}


def _run(model, n, concurrency=8):
    fast = RetryPolicy(attempts=5, initial_s=0.01, max_wait_s=2.0)
    return asyncio.run(
        ajudge_run(
            answer_items(n),
            model=model,
            strategy="claims",
            cache=None,
            retry=fast,
            concurrency=concurrency,
        )
    )


def _ok(body, n):
    return 200, claims_reply(["supported"])


def test_calls_spread_over_both_servers(tmp_path):
    with FakeOpenAI(_ok, delay=0.05) as a, FakeOpenAI(_ok, delay=0.05) as b:
        path = _write(tmp_path, _yaml([a.base, b.base]))
        run = _run(resolve_model(f"router:{path}"), 40)
    assert all(r.outcome == Outcome.SCORED for r in run.results)
    counts = (len(a.requests), len(b.requests))
    assert sum(counts) == 40 and min(counts) >= 8, counts  # shuffled: both take a share
    answered = run.calls["deployments_answered"]
    assert answered == {a.base: counts[0], b.base: counts[1]}
    assert run.fingerprint.model == "router:judge"
    # the fingerprint (what a calibration is valid for) names the deployments' models
    assert run.fingerprint.params["deployments"] == "openai/fake-judge"


def test_one_servers_429_goes_to_the_other_without_holding_every_call(tmp_path):
    """Server A refuses everything with 429 and ``Retry-After: 30``: the router cools it
    down and the retries go to B; a pause of 30 s for every call would blow the budget."""

    def refuse(body, n):
        return 429, "slow down"

    with (
        FakeOpenAI(refuse, headers=lambda n, s: {"retry-after": "30"}) as a,
        FakeOpenAI(_ok, delay=0.02) as b,
    ):
        path = _write(tmp_path, _yaml([a.base, b.base]))
        run = _run(resolve_model(f"router:{path}"), 12, concurrency=4)
    assert all(r.outcome == Outcome.SCORED for r in run.results), [r.reason for r in run.results]
    assert len(b.requests) == 12 and len(a.requests) >= 1
    assert run.calls["rate_limit_pauses"] == 0


def test_a_router_refuses_api_base(tmp_path):
    path = _write(tmp_path, _yaml(["http://127.0.0.1:1/v1"]))
    with pytest.raises(InputError, match="give no --api-base"):
        resolve_model(f"router:{path}", api_base="http://elsewhere/v1")


def test_every_deployment_cooling_down_holds_every_call_and_ends_unscored(tmp_path):
    """Both servers refuse with 429: the router says no deployment is available and for
    how long; every call waits (a pause, capped at the policy's longest wait), and when the
    attempts run out the answer is ``unscored`` with the reason, not a verdict."""

    def refuse(body, n):
        return 429, "slow down"

    def wait(n, status):
        return {"retry-after": "30"}

    with FakeOpenAI(refuse, headers=wait) as a, FakeOpenAI(refuse, headers=wait) as b:
        path = _write(tmp_path, _yaml([a.base, b.base]))
        retry = RetryPolicy(attempts=3, initial_s=0.01, max_wait_s=0.3)
        run = asyncio.run(
            ajudge_run(
                answer_items(2),
                model=resolve_model(f"router:{path}"),
                strategy="claims",
                cache=None,
                retry=retry,
            )
        )
    assert {r.outcome for r in run.results} == {Outcome.UNSCORED}
    assert all("No deployments available" in r.reason for r in run.results)
    assert all(r.score is None for r in run.results)
    assert run.calls["rate_limit_pauses"] >= 1


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (b"model_list:\n  - \xff\xfe\n", ":"),
        (b"- model_name: judge\n", ":"),
        (b"model_list:\n  - judge\n", ":2: field 'model_list[0]'"),
        (
            _yaml(["http://a/v1"]).encode() + b"router_settings:\n  routing_strategi: x\n",
            ": field 'router_settings': litellm.Router refuses it: "
            "Router.__init__() got an unexpected keyword argument 'routing_strategi'",
        ),
        (
            _yaml(["http://a/v1"]).encode() + b"router_settings:\n  routing_strategy: fastest\n",
            ": field 'router_settings': litellm.Router refuses it: Invalid routing_strategy",
        ),
        (_yaml(["http://a/v1"]).encode() + b"router_settings: [1]\n", ": field 'router_settings'"),
    ],
    ids=[
        "not-utf8",
        "a-list",
        "entry-not-mapping",
        "unknown-setting",
        "unknown-strategy",
        "settings-not-mapping",
    ],
)
def test_hostile_router_files_exit_2_with_one_line_naming_the_file(
    tmp_path, capsys, content, where
):
    from ragtriage.cli.main import main

    path = tmp_path / "router.yaml"
    path.write_bytes(content)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps(answer_items(1)[0]) + "\n")
    code = main(["judge", "--answers", str(answers), "--judge", f"router:{path}", "--no-cache"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert f"{path}{where}" in err[0], err[0]
