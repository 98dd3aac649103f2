"""The judge a command runs, built once: its strategy, the model it calls, its options.

A :class:`Judge` is built once per run, from a spec (:class:`ragtriage.judge.spec.JudgeSpec`)
or a model object, and passed down (one audit once built the embedded model several
times); its :attr:`Judge.fingerprint` is what every result it gives records
(``judge.api.ajudge``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from ragtriage import __version__
from ragtriage.errors import InputError
from ragtriage.judge.spec import EMBEDDED, FIELD, JudgeSpec
from ragtriage.judge.strategies.base import Strategy, get_strategy, needs_model
from ragtriage.judge.types import JudgeFingerprint
from ragtriage.llm.base import ChatModel

__all__ = [
    "JUDGE_OPTIONS",
    "Judge",
    "JudgeOptions",
    "fingerprint_of",
    "names_embedded",
    "resolve_model",
    "resolve_strategy",
]


@dataclass(frozen=True)
class JudgeOptions:
    """What the model (``threads``, ``api_base``, ``json_mode``, ``timeout``) and the
    strategy (``context_chars``, ``max_sentences``, ``budget_chars``) take, ``None`` for
    their own default, and how often each answer is sampled (``samples``, at
    ``temperature``; ``None``: the judge's own)."""

    threads: int | None = None
    api_base: str | None = None
    json_mode: str | None = None
    timeout: float | None = None
    context_chars: int | None = None
    max_sentences: int | None = None
    budget_chars: int | None = None
    samples: int = 1
    temperature: float | None = None

    @classmethod
    def of(cls, **options: Any) -> JudgeOptions:
        """From keyword options; a name that is not an option is a caller's typo, refused
        rather than ignored (``judge=`` once ran the embedded model when ``lexical`` was
        asked for)."""
        unknown = sorted(set(options) - {f.name for f in fields(cls)})
        if unknown:
            raise TypeError(f"unknown judge option(s) {unknown}; known: {sorted(JUDGE_OPTIONS)}")
        return cls(**{k: v for k, v in options.items() if v is not None})

    @classmethod
    def of_config(cls, config: Any) -> JudgeOptions:
        """The options a command's config carries (a field it lacks keeps its default)."""
        names = [f.name for f in fields(cls) if hasattr(config, f.name)]
        return cls(**{name: getattr(config, name) for name in names})

    def given(self) -> dict[str, Any]:
        """The model's and strategy's options that were given (not ``None``)."""
        return {k: v for k in sorted(JUDGE_OPTIONS) if (v := getattr(self, k)) is not None}

    @property
    def sampling(self) -> bool:
        return self.samples > 1 or self.temperature is not None

    def single(self) -> JudgeOptions:
        """One sample at the judge's own temperature."""
        return replace(self, samples=1, temperature=None)


# what the models and strategies read (JudgeOptions' fields but the sampling ones)
JUDGE_OPTIONS = frozenset(f.name for f in fields(JudgeOptions)) - {"samples", "temperature"}


@dataclass(frozen=True)
class Judge:
    """``strategy``: the strategy object; ``model``: the model it calls (``None`` for a
    strategy that needs none, ``lexical``); ``options``: what it was built with."""

    strategy: Strategy
    model: ChatModel | None
    options: JudgeOptions = JudgeOptions()

    @classmethod
    def build(
        cls,
        strategy: str | None = None,
        model: str | ChatModel | None = None,
        options: JudgeOptions | None = None,
        *,
        embedded: ChatModel | None = None,
        field: str = FIELD,
    ) -> Judge:
        """The judge of strategy ``strategy`` (``None``: the model's default) on ``model``
        (``None`` or ``embedded``: the embedded model, ``replay:PATH``, a litellm id, or a
        model object). ``embedded``: the embedded model object to use when ``model`` names
        it (one object judges and generates); else one is made. ``field``: the option
        named in errors (a missing recording)."""
        options = options or JudgeOptions()
        chat = None
        if needs_model(strategy):
            if embedded is not None and isinstance(model, str | None) and names_embedded(model):
                chat = embedded
            else:
                chat = resolve_model(model, field=field, **options.given())
        return cls(resolve_strategy(strategy, chat, **options.given()), chat, options)

    @classmethod
    def from_spec(
        cls,
        spec: JudgeSpec | str | None,
        options: JudgeOptions | None = None,
        *,
        embedded: ChatModel | None = None,
        field: str = FIELD,
    ) -> Judge:
        """The judge a spec names (text is parsed; ``None``: the default, ``embedded``)."""
        parsed = spec if isinstance(spec, JudgeSpec) else JudgeSpec.parse(spec, field)
        return cls.build(parsed.strategy, parsed.model, options, embedded=embedded, field=field)

    @classmethod
    def from_model(
        cls, model: ChatModel, strategy: str | None = None, options: JudgeOptions | None = None
    ) -> Judge:
        """The judge calling the model object ``model`` (``strategy``: the model's default
        when ``None``: ``sentences`` for a local model, ``claims`` otherwise)."""
        return cls.build(strategy, model, options)

    @property
    def name(self) -> str:
        """The strategy's name: ``sentences``, ``claims``, ``lexical``..."""
        return self.strategy.name

    @property
    def fingerprint(self) -> JudgeFingerprint:
        """What a calibration is valid for, and what each result records. Computed when
        asked: a litellm model settles its JSON mode on its first call, and the mode in
        use is part of it. Loads no weights and makes no call."""
        return fingerprint_of(self.strategy, self.model)

    @property
    def embedded(self) -> bool:
        """Whether the judge calls the embedded model."""
        from ragtriage.llm.local import LocalModel

        return isinstance(self.model, LocalModel)

    def single(self) -> Judge:
        """The same judge drawing one sample at its own temperature."""
        return replace(self, options=self.options.single())

    def model_free(self) -> Judge:
        """The ``lexical`` judge with these options: the model-free signals every judge
        computes, without the model (one sample: a judge without a model cannot differ)."""
        return Judge.build("lexical", None, self.options.single())


def names_embedded(model: str | None) -> bool:
    """``None``, ``embedded`` (``local``, its earlier name) or the fingerprint's
    ``local/...`` name: the embedded model."""
    return model is None or model in (EMBEDDED, "local") or model.startswith("local/")


def resolve_model(
    model: str | ChatModel | None, *, field: str = FIELD, **options: Any
) -> ChatModel:
    """``None``/``"embedded"`` (also the fingerprint's ``"local/..."`` name): the embedded
    judge; ``"replay:PATH"``: a recording; ``"router:FILE[#GROUP]"``: a litellm Router over
    the deployments FILE names; else a litellm model id.

    ``options``: ``threads`` (local), ``api_base``, ``json_mode``, ``timeout`` (litellm).
    """
    if model is not None and not isinstance(model, str):
        return model
    if names_embedded(model):
        from ragtriage.llm.local import LocalModel

        return LocalModel(n_threads=options.get("threads"))
    assert model is not None
    if model.startswith("replay:"):
        return _replay(Path(model.removeprefix("replay:")), field)
    if model.startswith("router:"):
        return _router(model, options)
    from ragtriage.llm.litellm_model import LiteLLMModel

    keep = {k: options[k] for k in ("api_base", "json_mode", "timeout") if options.get(k)}
    return LiteLLMModel(model, **keep)


def _router(model: str, options: dict[str, Any]) -> ChatModel:
    """``router:FILE[#GROUP]``: the file names the endpoints, so ``api_base`` is refused."""
    from ragtriage.llm.router import RouterModel, load_router

    if options.get("api_base"):
        raise InputError(
            "a router's file names its endpoints; give no --api-base", field="--api-base"
        )
    keep = {k: options[k] for k in ("json_mode", "timeout") if options.get(k)}
    return RouterModel(load_router(model), **keep)


def _replay(path: Path, field: str) -> ChatModel:
    """A recording to replay; a missing or unreadable one is an input error naming it."""
    from ragtriage.llm.replay import ReplayModel

    if not path.is_file():
        raise InputError("no such recording (replay:FILE)", path=path, field=field)
    try:
        return ReplayModel.load(path)
    except (OSError, ValueError, KeyError, IndexError, TypeError, RecursionError) as exc:
        raise InputError(
            f"not a recording: {type(exc).__name__}: {str(exc)[:200]}", path=path, field=field
        ) from None


def resolve_strategy(strategy: str | None, model: ChatModel | None, **options: Any) -> Strategy:
    """The strategy object; default ``sentences`` for local models, ``claims`` otherwise."""
    if strategy is None:
        strategy = "sentences" if (model is None or model.local) else "claims"
    return get_strategy(strategy, **options)


def fingerprint_of(strategy: Strategy, model: ChatModel | None) -> JudgeFingerprint:
    params = {**({} if model is None else model.params), **strategy.params}
    return JudgeFingerprint(
        judge=strategy.name,
        model="none" if model is None else model.name,
        params={k: v for k, v in params.items() if isinstance(v, str | int | float | bool | None)},
        prompt_sha256=dict(strategy.prompt_sha256),
        package_version=__version__,
    )
