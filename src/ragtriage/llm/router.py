"""A judge over several endpoints: a litellm Router named in a config file.

``--judge router:FILE[#GROUP]`` sends the judge's calls to the deployments of one model
group in ``FILE`` (litellm's own ``model_list`` format); the file, its fields and what the
user sees are in docs/judges.md ('Several endpoints: a router file'). The judge's identity
is the group's name and its deployments' model ids, not their addresses (nor keys:
``api_key: os.environ/NAME`` reads the environment), so adding a server keeps the cache.
The router's own retries are off (one policy retries everything); a deployment's 429 is
left to the router's cooldown, so its ``Retry-After`` does not hold the calls the others
can serve, while "no deployments available" holds every call as a 429 would
(:func:`_scoped`).
"""

from __future__ import annotations

import graphlib
import json
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ragtriage.errors import InputError
from ragtriage.llm.base import TransientModelError, brief
from ragtriage.llm.litellm_model import (
    LOCAL_TIMEOUT_S,
    REMOTE_TIMEOUT_S,
    LiteLLMModel,
    _litellm,
    default_json_mode,
    is_local_endpoint,
    known_model,
)
from ragtriage.llm.modes import JSON_MODES, JsonMode

__all__ = ["PREFIX", "RouterConfig", "RouterModel", "load_router", "split_spec"]

PREFIX = "router:"
FIELD = "--judge"
# Bounds on a router file (issue 52 item 6; benchmarks/results/router_limits.txt): a
# thousand deployments is more than any cluster we know, and fits in a megabyte.
MAX_DEPLOYMENTS = 1_000
MAX_BYTES = 1 << 20
# YAML nodes once every alias is expanded: a thousand deployments of a dozen keys each
# are ~30,000; anchors shared the proxy's way (``<<: *defaults``) stay far below
MAX_NODES = 100_000
# the router's own retries are off: one policy (ragtriage.llm.calls) retries everything
_FORCED = {"num_retries": 0}
_NO_DEPLOYMENTS = "No deployments available"


@dataclass(frozen=True)
class RouterConfig:
    """One group of a router file: its deployments and the router's settings."""

    path: Path
    group: str
    model_list: list[dict[str, Any]]  # every deployment in the file (the router needs all)
    settings: dict[str, Any]

    @property
    def deployments(self) -> list[dict[str, Any]]:
        """The group's deployments' ``litellm_params``."""
        return [d["litellm_params"] for d in self.model_list if d["model_name"] == self.group]


def split_spec(model: str) -> tuple[Path, str | None]:
    """``router:FILE[#GROUP]`` -> ``(FILE, GROUP)``."""
    path, _, group = model.removeprefix(PREFIX).partition("#")
    return Path(path), (group or None)


def load_router(model: str, field: str = FIELD) -> RouterConfig:
    """Read and check ``router:FILE[#GROUP]``; every fault an :class:`InputError` naming
    the file, the line and the field."""
    path, group = split_spec(model)
    if not str(path) or not path.is_file():
        raise InputError("no such router file (router:FILE[#GROUP])", path=path, field=field)
    size = path.stat().st_size
    if size > MAX_BYTES:  # checked before parsing: a 40 MB YAML file parses for minutes
        raise InputError(
            f"{size:,} bytes: a router file is at most {MAX_BYTES:,} "
            f"(up to {MAX_DEPLOYMENTS:,} deployments)",
            path=path,
            field=field,
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", path=path, field=field) from None
    data, lines = _parse(text, path)
    entries = data.get("model_list")
    if not isinstance(entries, list) or not entries:
        raise InputError("a non-empty list of deployments", path=path, field="model_list")
    if len(entries) > MAX_DEPLOYMENTS:
        raise InputError(
            f"{len(entries):,} deployments: at most {MAX_DEPLOYMENTS:,}",
            path=path,
            field="model_list",
        )
    for i, entry in enumerate(entries):
        _check_deployment(entry, path, lines.get(i), i)
    groups = list(dict.fromkeys(e["model_name"] for e in entries))
    group = _choose(group, groups, path)
    settings = data.get("router_settings") or {}
    if not isinstance(settings, dict):
        raise InputError("a mapping of litellm.Router settings", path=path, field="router_settings")
    _check_settings(entries, settings, path)
    return RouterConfig(path=path, group=group, model_list=entries, settings=dict(settings))


def _check_settings(entries: list[dict[str, Any]], settings: dict[str, Any], path: Path) -> None:
    """Build the router once (offline, a fraction of a second) so that a setting it refuses
    (an unknown key, a routing strategy it lacks) stops the command here, not each call."""
    try:
        _litellm().Router(model_list=entries, **{**settings, **_FORCED})
    except (TypeError, ValueError) as exc:  # without settings, the deployments are refused
        field = "router_settings" if settings else "model_list"
        raise InputError(
            f"litellm.Router refuses it: {brief(exc, 200)}", path=path, field=field
        ) from None


def _parse(text: str, path: Path) -> tuple[dict[str, Any], dict[int, int]]:
    """The file's data, and the line of each ``model_list`` entry (1-based)."""
    import yaml

    try:
        node, data = _safe_load(text, path)
        if path.suffix == ".json":
            data = json.loads(text)  # stricter than YAML's reading of JSON
    except (ValueError, yaml.YAMLError) as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        line = getattr(exc, "lineno", None) if line is None else line + 1
        raise InputError(f"not YAML or JSON: {brief(exc, 200)}", path=path, line=line) from None
    except RecursionError:
        raise InputError("nested too deeply", path=path) from None
    if not isinstance(data, dict):
        raise InputError("a mapping with model_list", path=path)
    lines: dict[int, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.value == "model_list" and isinstance(value, yaml.SequenceNode):
                lines = {i: item.start_mark.line + 1 for i, item in enumerate(value.value)}
    return data, lines


def _safe_load(text: str, path: Path) -> tuple[Any, Any]:
    """``(node tree, data)`` of YAML text, parsed once, refused before it is built when
    its aliases expand past :data:`MAX_NODES` nodes (a 600-byte alias bomb expands to
    billions: ``yaml.safe_load`` shares the objects, but every later walk expands them)."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        expanded = _expanded_size(node)
        if expanded > MAX_NODES:
            raise InputError(
                f"its aliases expand to more than {MAX_NODES:,} YAML nodes (an alias bomb?)",
                path=path,
                line=None,
            )
        return node, loader.construct_document(node)
    finally:
        loader.dispose()


def _expanded_size(root: Any) -> int:
    """Nodes of the tree once every alias is expanded, counted over the shared node graph
    (each node once, children before their parents, no recursion), stopping past
    :data:`MAX_NODES`; a node that contains itself (a cycle) counts as past it."""
    import yaml

    children: dict[int, list[int]] = {}
    todo = [root]
    while todo:
        node = todo.pop()
        if id(node) in children:
            continue
        if isinstance(node, yaml.SequenceNode):
            kids = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            kids = [part for pair in node.value for part in pair]
        else:
            kids = []
        children[id(node)] = [id(c) for c in kids]
        todo.extend(kids)
    sizes: dict[int, int] = {}
    try:
        for key in graphlib.TopologicalSorter(children).static_order():
            sizes[key] = 1 + sum(sizes[c] for c in children[key])
            if sizes[key] > MAX_NODES:
                return sizes[key]
    except graphlib.CycleError:
        return MAX_NODES + 1  # a recursive alias: endless once expanded
    return sizes[id(root)]


def _check_deployment(entry: Any, path: Path, line: int | None, index: int) -> None:
    where = f"model_list[{index}]"

    def refuse(message: str, part: str = "") -> InputError:
        return InputError(message, path=path, line=line, field=where + part)

    if not isinstance(entry, dict):
        raise refuse("a deployment mapping")
    name = entry.get("model_name")
    if not isinstance(name, str) or not name:
        raise refuse("a group name", ".model_name")
    params = entry.get("litellm_params")
    if not isinstance(params, dict):
        raise refuse("a mapping with the deployment's model", ".litellm_params")
    model = params.get("model")
    if not isinstance(model, str) or not model:
        raise refuse("litellm's model id (e.g. openai/NAME)", ".litellm_params.model")
    if not known_model(model):
        raise refuse(
            f"{model!r} is not a model or provider litellm knows (e.g. openai/NAME)",
            ".litellm_params.model",
        )


def _choose(group: str | None, groups: list[str], path: Path) -> str:
    if group is None:
        if len(groups) == 1:
            return groups[0]
        raise InputError(
            f"the file has {len(groups)} groups ({', '.join(groups)}): name one, "
            f"router:{path}#GROUP",
            path=path,
            field=FIELD,
        )
    if group not in groups:
        raise InputError(
            f"no deployment of group {group!r}; the file has {', '.join(groups)}",
            path=path,
            field="model_name",
        )
    return group


class RouterModel(LiteLLMModel):
    """The judge model over a router's group: a :class:`LiteLLMModel` whose request goes
    to one of the group's deployments, chosen by ``litellm.Router``. A deployment's
    rate-limit headers are not followed as the whole group's (``rpm``/``tpm`` in the
    file, and the router's cooldowns, keep each deployment within its limits)."""

    follows_headers = False

    def __init__(
        self,
        config: RouterConfig,
        *,
        json_mode: JsonMode | Literal["auto"] | None = None,
        timeout: float | None = None,
    ) -> None:
        deployments = config.deployments
        models = sorted({d["model"] for d in deployments})
        bases = [d.get("api_base") for d in deployments]
        if timeout is None:  # every deployment on this machine: the local patience
            local = all(is_local_endpoint(b) for b in bases)
            timeout = LOCAL_TIMEOUT_S if local else REMOTE_TIMEOUT_S
        super().__init__(f"{PREFIX}{config.group}", json_mode=json_mode, timeout=timeout)
        if self.detect:  # the weakest default of the deployments: each must accept it
            weakest = max(JSON_MODES.index(default_json_mode(m)) for m in models)
            self._use(JSON_MODES[weakest])
        self.config = config
        self.tokenizer_model = models[0]
        self.params = {
            "router": config.group,
            # a string, so the judge's fingerprint keeps it (it drops lists)
            "deployments": ",".join(models),
            "json_mode": self.json_mode,
        }
        self.answered: dict[str, int] = {}  # api_base (or model id) -> responses
        self._router: Any = None

    def _router_instance(self, litellm: Any) -> Any:
        """The router, built in the run's event loop at its first call (its settings were
        checked when the file was read)."""
        if self._router is None:
            settings = {**self.config.settings, **_FORCED}
            self._router = litellm.Router(model_list=self.config.model_list, **settings)
        return self._router

    async def _send(self, litellm: Any, kwargs: dict[str, Any]) -> Any:
        router = self._router_instance(litellm)
        sent = {**kwargs, "model": self.config.group}
        sent.pop("api_base", None)
        try:
            raw = await router.acompletion(**sent)
        except Exception as exc:
            raise _scoped(exc) from exc
        hidden = getattr(raw, "_hidden_params", None) or {}
        where = str(hidden.get("api_base") or hidden.get("litellm_model_name") or "?")
        self.answered[where] = self.answered.get(where, 0) + 1
        return raw

    async def serving_slots(self) -> int | None:
        """The slots of every deployment together (llama.cpp's ``/props``), or ``None``
        when any one does not say."""
        total = 0
        for params in self.config.deployments:
            probe = LiteLLMModel(params["model"], api_base=params.get("api_base"))
            slots = await probe.serving_slots()
            if slots is None:
                return None
            total += slots
        return total

    def negotiated(self) -> dict[str, Any]:
        return {**super().negotiated(), "deployments_answered": dict(self.answered)}

    def token_prices(self) -> tuple[float, float] | None:
        """Input and output price per token of the dearest deployment (which price:
        docs/judges.md, 'Cost and dry runs'); ``None`` when a deployment has none."""
        found = [_deployment_prices(params) for params in self.config.deployments]
        if any(p is None for p in found):
            return None
        return max((p for p in found if p is not None), key=lambda p: p[0] + p[1])


def _deployment_prices(params: Mapping[str, Any]) -> tuple[float, float] | None:
    if "input_cost_per_token" in params or "output_cost_per_token" in params:
        return (
            float(params.get("input_cost_per_token", 0.0)),
            float(params.get("output_cost_per_token", 0.0)),
        )
    import litellm

    model = str(params["model"])
    entry = litellm.model_cost.get(model) or litellm.model_cost.get(model.split("/", 1)[-1])
    if isinstance(entry, Mapping) and "input_cost_per_token" in entry:
        return (
            float(entry.get("input_cost_per_token") or 0.0),
            float(entry.get("output_cost_per_token") or 0.0),
        )
    return (0.0, 0.0) if is_local_endpoint(params.get("api_base")) else None


class _AllCoolingDown(TransientModelError):
    """Every deployment of the group is cooling down."""


def _scoped(exc: Exception) -> Exception:
    """A router error as the caller should see it: every deployment cooling down holds all
    calls (as a 429); one deployment's 429 does not (the router cools that one down and a
    retry goes to another), so its ``Retry-After`` is dropped before classification."""
    if _NO_DEPLOYMENTS in str(exc):
        cooldown = getattr(exc, "cooldown_time", None)
        wait = float(cooldown) if isinstance(cooldown, int | float) else 1.0
        return _AllCoolingDown(f"{type(exc).__name__}: {brief(exc, 200)}", retry_after=wait)
    for name in ("litellm_response_headers", "response"):
        if hasattr(exc, name):
            with suppress(AttributeError):  # a read-only attribute: kept
                setattr(exc, name, None)
    return exc
