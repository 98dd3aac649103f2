"""The judge spec: one syntax for ``--judge`` on ``judge``, ``audit`` and ``calibrate``.

The forms (docs/judges.md, 'Choosing a judge'): ``embedded`` (the default: the embedded
local model, strategy ``sentences``), ``lexical``, a litellm model id (strategy
``claims``), ``replay:PATH``, ``router:FILE[#GROUP]``, ``STRATEGY@MODEL`` and ``STRATEGY``
alone (on the embedded model, or on none for a strategy that needs no model).

The default model is spelled ``embedded`` here only: the model *name* a fingerprint
records for it (``local/qwen2.5-...``) is unchanged, so shipped calibrations still match.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass, replace

from ragtriage.errors import InputError
from ragtriage.judge.strategies.base import STRATEGIES, needs_model, strategy_factory

__all__ = [
    "EMBEDDED",
    "FIELD",
    "JudgeSpec",
    "OLD_DEFAULTS",
    "check_model",
    "refuse_old_options",
    "spec_from_parts",
]

EMBEDDED = "embedded"
OLD_DEFAULTS = ("default", "local")  # earlier spellings of the default judge
FIELD = "--judge"


@dataclass(frozen=True)
class JudgeSpec:
    """``strategy``: a registered name, or ``None`` for the model's default strategy.
    ``model``: ``embedded``, ``replay:PATH`` or a litellm id; ``None`` for a strategy that
    needs no model."""

    strategy: str | None = None
    model: str | None = EMBEDDED
    # the spec as written (``claims`` for claims@embedded): what a run records
    source: str = dataclasses.field(default="", compare=False)

    @classmethod
    def parse(cls, text: str | None, field: str = FIELD) -> JudgeSpec:
        """Parse a spec; ``None`` is the default (``embedded``)."""
        spec = cls._parse(text, field)
        return replace(spec, source=EMBEDDED if text is None else text)

    @classmethod
    def _parse(cls, text: str | None, field: str) -> JudgeSpec:
        text = EMBEDDED if text is None else text.strip()
        if not text:
            raise InputError(
                "empty judge spec; e.g. embedded, lexical, openai/gpt-4o-mini", field=field
            )
        if not text.startswith("replay:") and "@" in text:
            head, model = text.split("@", 1)
            if "/" not in head and ":" not in head:  # else an '@' inside a model id
                return cls._with_strategy(head, model, text, field)
        if text.lower() in OLD_DEFAULTS:
            raise _renamed(text, EMBEDDED, field)
        if text == EMBEDDED:
            return cls()
        if "/" not in text and ":" not in text and _is_strategy(text):
            return cls(text, EMBEDDED if needs_model(text) else None)
        check_model(text, text, field)
        return cls(None, text)

    @classmethod
    def _with_strategy(cls, strategy: str, model: str, text: str, field: str) -> JudgeSpec:
        strategy_factory(strategy, field)  # an unknown name: an error listing the known ones
        if not model:
            raise InputError(f"{text!r} names no model after '@'", field=field)
        if model.lower() in OLD_DEFAULTS:
            raise _renamed(text, f"{strategy}@{EMBEDDED}", field)
        if not needs_model(strategy):
            raise InputError(
                f"strategy {strategy} uses no model; give --judge {strategy}", field=field
            )
        check_model(model, text, field)
        return cls(strategy, model)

    @property
    def needs_model(self) -> bool:
        return needs_model(self.strategy)

    def __str__(self) -> str:
        if self.model is None:
            return str(self.strategy)
        return self.model if self.strategy is None else f"{self.strategy}@{self.model}"


def check_model(model: str, text: str, field: str = FIELD) -> None:
    """A model no judge can call (``--judge lexcal``: not a strategy, not ``embedded``,
    not a model or provider litellm knows) is an error with a did-you-mean, before any
    work: it used to run, leave most answers unscored and exit 0."""
    if model == EMBEDDED or model.startswith("replay:"):
        return
    if model.startswith("router:"):  # the file must name the group's deployments
        from ragtriage.llm.router import load_router

        load_router(model, field)
        return
    bare = model == text  # no STRATEGY@ in front: it may be a misspelt strategy too
    ours = [EMBEDDED, *STRATEGIES] if bare else [EMBEDDED]
    close = difflib.get_close_matches(model, ours, n=2, cutoff=0.6) if "/" not in model else []
    if close and difflib.get_close_matches(model, ours, n=1, cutoff=MISTYPED):
        # one of our own names mistyped (lexcal, embeded): refused before litellm's import,
        # which took 46 s under load to say the same
        raise _no_judge(text, model, bare, close, field)
    from ragtriage.llm.litellm_model import known_model, model_suggestions

    if known_model(model):
        return
    close += [c for c in model_suggestions(model) if c not in close]
    raise _no_judge(text, model, bare, close, field)


# how close (difflib's ratio) a name must be to one of ours to be refused as its typo
# without asking litellm: "lexcal" is 0.92 from "lexical"; no litellm id is that near
MISTYPED = 0.8


def _no_judge(text: str, model: str, bare: bool, close: list[str], field: str = FIELD):
    hint = f"; did you mean {' or '.join(repr(c) for c in close[:3])}?" if close else ""
    what = f"not a strategy ({', '.join(sorted(STRATEGIES))}), " if bare else ""
    return InputError(
        f"{text!r} names no judge: {model!r} is {what}not {EMBEDDED!r} or replay:PATH, and "
        f"not a model or provider litellm knows (e.g. openai/gpt-4o-mini, ollama/llama3)"
        f"{hint}",
        field=field,
    )


def _is_strategy(name: str) -> bool:
    try:
        strategy_factory(name)
    except InputError:
        return False
    return True


def _renamed(text: str, new: str, field: str) -> InputError:
    return InputError(f"{text!r} is now spelled {new!r}: use {field} {new}", field=field)


def refuse_old_options(
    model: str | None = None, strategy: str | None = None, *, judge: str | None = None
) -> None:
    """``--model``/``--strategy`` were replaced by ``--judge``: an error naming the new
    spelling of what was given (nothing happens when neither was). ``judge``: the model
    an old ``audit --judge MODEL --strategy S`` named."""
    given = [o for o, v in (("--model", model), ("--strategy", strategy)) if v is not None]
    if not given:
        return
    new = spec_from_parts(strategy, model if model is not None else judge)
    raise InputError(
        f"{' and '.join(given)} {'is' if len(given) == 1 else 'are'} replaced by "
        f"--judge STRATEGY@MODEL; use --judge {new}",
        field=given[0],
    )


def spec_from_parts(strategy: str | None, model: str | None) -> str:
    """The ``--judge`` spelling of an old ``--strategy``/``--model`` pair."""
    if strategy is not None and _is_strategy(strategy) and not needs_model(strategy):
        return strategy
    model = EMBEDDED if model is None or model.lower() in OLD_DEFAULTS else model
    return model if strategy is None else f"{strategy}@{model}"
