"""A command's settings, declared once: each field of a flow's config carries its help,
default and range, and the command line is derived from them (``cli/options.py``).

A field is written ``name: Annotated[type, Setting("help", min=..., max=...)] = default``;
a new option is that one line. Fields without a :class:`Setting` are Python-only (a model
object, a callback). Nothing here knows the command line: the same declaration documents
the Python API.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragtriage.llm.modes import JSON_MODES as LITELLM_JSON_MODES

__all__ = [
    "API_BASE",
    "CACHE",
    "COLUMNS",
    "CONCURRENCY",
    "DEFAULT_DEPTH",
    "DEPTH",
    "JSON_MODE",
    "JSON_MODES",
    "JUDGE",
    "K",
    "MAX_CHARS",
    "MAX_LEVEL",
    "MAX_RANK",
    "MAX_REPEAT",
    "MAX_RESAMPLES",
    "MAX_SEED",
    "MAX_WORKERS",
    "METRICS",
    "OLD_JUDGE",
    "SEED",
    "Setting",
    "THREADS",
    "TIMEOUT",
    "paths_from_text",
    "setting_of",
    "settings",
]


@dataclass(frozen=True)
class Setting:
    """How a config field is given on the command line.

    ``names``: the option's spellings (default ``--field-name``; ``"--a/--b"`` for an on/off
    pair); ``min``/``max``: the inclusive range, checked before any file is read;
    ``exclusive``: ``min`` and ``max`` themselves refused too (a share strictly between
    0 and 1), and nan and inf with them; ``choices``: the accepted words; ``finite``: a
    float refusing nan and inf; ``metavar``: the placeholder shown in help; ``argument``:
    positional, not an option.
    """

    help: str
    names: tuple[str, ...] = ()
    min: int | float | None = None
    max: int | float | None = None
    exclusive: bool = False
    choices: tuple[str, ...] = ()
    finite: bool = False
    hidden: bool = False
    metavar: str | None = None
    argument: bool = False


def paths_from_text(config: Any) -> None:
    """Each path setting of the dataclass ``config`` given as text from Python
    (``cache="x.sqlite"``) made a :class:`~pathlib.Path`, as the command line makes it."""
    hints = typing.get_type_hints(type(config))
    for item in dataclasses.fields(config):
        kinds = _kinds(hints[item.name])
        if not item.init or Path not in kinds or str in kinds:
            continue
        value = getattr(config, item.name)
        if isinstance(value, str):
            setattr(config, item.name, Path(value))
        elif isinstance(value, list):
            setattr(config, item.name, [Path(v) if isinstance(v, str) else v for v in value])


def _kinds(hint: Any) -> set[Any]:
    """The types a hint admits, through unions and a list's items."""
    args = typing.get_args(hint)
    if not args:
        return {hint}
    return set().union(*(_kinds(a) for a in args))


def setting_of(hint: Any) -> Setting | None:
    """The :class:`Setting` inside ``Annotated[type, Setting(...)]``, if any."""
    for extra in getattr(hint, "__metadata__", ()):
        if isinstance(extra, Setting):
            return extra
    return None


def settings(config: type) -> list[tuple[dataclasses.Field[Any], Any, Setting]]:
    """``(field, type, setting)`` for each field of the dataclass ``config`` that has a
    setting, in declaration order; ``type`` without the ``Annotated`` wrapper."""
    hints = typing.get_type_hints(config, include_extras=True)
    out = []
    for item in dataclasses.fields(config):
        found = setting_of(hints[item.name])
        if found is not None:
            out.append((item, hints[item.name].__origin__, found))
    return out


# Upper bounds of numeric settings: far above any real use, low enough that no value can
# overflow a 64-bit array or ask for a day of work by a typo.
MAX_RANK = 1_000_000  # depth, cutoffs (-k, metric@k), --leak-k, --context-k
MAX_WORKERS = 1024  # --concurrency, --threads
MAX_REPEAT = 1000
MAX_RESAMPLES = 1_000_000  # bootstrap resamples, permutations
MAX_SEED = 2**32 - 1  # scikit-learn's random_state takes at most 32 bits
MAX_CHARS = 100_000_000  # an evidence budget beyond any context a model reads
MAX_LEVEL = 2**63 - 1  # a relevance label is a 64-bit integer
JSON_MODES = ("auto", *LITELLM_JSON_MODES)  # auto: the strongest the endpoint accepts

# One vocabulary: a setting several commands share is declared here once.
JUDGE = Setting(
    "Judge spec: 'embedded' (default, offline), 'lexical' (no model), a litellm model id, "
    "'replay:FILE', 'router:FILE[#GROUP]' (a litellm Router over the endpoints FILE "
    "names), or STRATEGY@MODEL (e.g. claims@openai/gpt-4o-mini).",
    names=("--judge", "-j"),
    metavar="SPEC",
)
OLD_JUDGE = Setting("Replaced by --judge.", hidden=True)
CONCURRENCY = Setting(
    "Judge calls in flight at most; halved on a timeout, grown back on successes.",
    min=1,
    max=MAX_WORKERS,
)
THREADS = Setting("CPU threads for the embedded model.", min=1, max=MAX_WORKERS)
TEMPERATURE = Setting(
    "The samples' temperature (default: the judge's, 0; the embedded model samples only above 0).",
    min=0.0,
    max=2.0,
    finite=True,
)
CACHE = Setting(
    "SQLite response cache: a file, or a folder to hold cache.sqlite (default "
    ".ragtriage/cache.sqlite or $RAGTRIAGE_CACHE)."
)
API_BASE = Setting("OpenAI-compatible base URL of the judge's endpoint.")
JSON_MODE = Setting(
    "How to request JSON: auto (default: the strongest mode the endpoint accepts, found once "
    "per run) | json_schema | json_object_schema (llama.cpp) | json_object | none.",
    choices=JSON_MODES,
)
TIMEOUT = Setting(
    "Seconds per judge call (default 120; 900 for a server on localhost).",
    min=0.001,
    max=86400,
    finite=True,
)
COLUMNS = Setting(
    "Other column names mapped onto ours, OURS=THEIRS,... (e.g. query=question,"
    "expected=gold_ids; query_id=KEY reads span metadata)."
)
METRICS = Setting(
    "Metrics, repeatable or comma-separated (e.g. ndcg@10,recall,mrr; default recall, "
    "hit_rate, precision, mrr, ndcg@10, map).",
    names=("--metrics", "-m"),
    metavar="NAME[,NAME...]",
)
K = Setting("Cutoffs for metrics given without one (default 1,3,5,10).", metavar="K[,K...]")
# One depth for retrieval and audit: MAP and recall count the whole run (trec_eval and BEIR
# evaluate 100 and more), and a relevant chunk at rank 21..100 is a ranking failure (a
# reranker or a larger context fixes it), which a depth of 20 called a retrieval failure.
DEFAULT_DEPTH = 100
DEPTH = Setting("Chunks retrieved per query by --retriever.", min=1, max=MAX_RANK)
SEED = Setting("Seed for bootstrap, permutations, folds and splits.", min=0, max=MAX_SEED)
