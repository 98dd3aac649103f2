"""A labelling session as typed data, and how it is resumed and extended.

The session file (``<output>.session.json``, written by ``store.SessionStore``) records
what the sample was made from (``wanted``: the files' sha256, the seed, the sample size)
and what was drawn; the store adds the marks (``records``). A file written by an earlier
version loads as it is: fields it lacks take their defaults, fields this version does not
know are kept and written back. Resuming and extending are the same for both pages: the
items drawn stay, the rest of a larger sample is drawn with the same seed from what was
not drawn yet, and only a true conflict is refused, naming the input and the item.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ragtriage.annotate.queries import sample
from ragtriage.annotate.store import SessionStore
from ragtriage.atomic import file_sha256
from ragtriage.errors import InputError

if TYPE_CHECKING:
    from ragtriage.annotate.golden import GoldenTask
    from ragtriage.annotate.grades import GradesTask

__all__ = [
    "GoldenSession",
    "GradesSession",
    "Origin",
    "Prepared",
    "QueryLog",
    "Session",
    "drawn",
    "growable",
    "kept",
    "now",
    "opened",
    "released_on_error",
    "resumable",
    "resumed",
    "swept",
]


@dataclass
class Prepared:
    """A page prepared: the task it works on and what the person should know (folded
    duplicates, a resumed or extended session)."""

    task: GoldenTask | GradesTask
    notes: list[str]


class _Kept(BaseModel):
    """Unknown fields (the store's ``records`` and ``position``, a later version's own)
    are kept and written back."""

    model_config = ConfigDict(extra="allow")


class Origin(_Kept):
    """Where a session's items came from: the file, its sha256 and how it is named on the
    grade rows (``id``); an audit's ``judge``, a traces file's ``format``."""

    source: str | None = None
    sha256: str | None = None


class QueryLog(Origin):
    """The query log a golden session drew from: lines read, duplicates folded, distinct."""

    read: int = 0
    exact: int = 0
    near: int = 0
    distinct: int | None = None


class Session(_Kept):
    """What every session records (module docstring)."""

    kind: Literal["golden", "grades"]
    created_at: str | None = None
    wanted: dict[str, Any]
    extended: list[dict[str, Any]] = Field(default_factory=list)
    options: dict[str, Any] = Field(default_factory=dict)

    def stored(self) -> dict[str, Any]:
        """The session as the store writes it: the fields set (an extension only once
        there was one), in the order written."""
        return {"kind": self.kind, **self.model_dump(mode="json", exclude_unset=True)}

    def marked(self) -> int:
        return len((self.model_extra or {}).get("records") or {})

    def extend(
        self, wanted: dict[str, Any], before: int | None, population: int, drawn: int, added: int
    ) -> list[str]:
        """Record an extension; what the person should know about it. When the population
        itself grew, the first draw came from the earlier one only, so an earlier item had
        a better chance to be drawn than a new one: both chances are said (a grading
        sample then weighs the earlier answers more)."""
        self.extended = [
            *self.extended,
            {"at": now(), "from": self.wanted, "population": population, "added": added},
        ]
        self.wanted = wanted
        left = population - drawn
        notes = [
            f"extending the session of {self.created_at}: its {drawn} items and "
            f"{self.marked()} marks kept; {added} added, drawn with seed {wanted['seed']} "
            f"from the {left} not drawn yet (of {population})"
        ]
        if before and population > before and drawn < before:
            rest = added / left if left else 0.0
            earlier = drawn / before + (1 - drawn / before) * rest
            notes.append(
                f"warning: the input grew from {before} to {population} items since the last "
                f"draw: an earlier item had a {earlier:.0%} chance to be drawn, a new one "
                f"{rest:.0%} (a sample drawn afresh, with another output, gives every one "
                f"{(drawn + added) / population:.0%})"
            )
        return notes


class GoldenSession(Session):
    """The golden-set page's session: the queries drawn (``sample``: ``id``, ``text``; a
    conversation's turns also ``conversation_id``, ``turn``, ``answer``) from the log."""

    kind: Literal["golden"] = "golden"
    queries: QueryLog
    corpus: dict[str, Any] = Field(default_factory=dict)
    run: dict[str, Any] | None = None
    seed: int | None = None
    sample: list[dict[str, Any]]

    @property
    def conversational(self) -> bool:
        return bool(self.options.get("conversational"))


class Draw(_Kept):
    """How a grading sample was drawn: the seed, the population, an active ``design``."""

    seed: int | None = None
    population: int = 0


class GradesSession(Session):
    """The grading page's session: the answers drawn (``items``, as the page shows them)
    from an ``audit`` or from a traces file's ``answers``."""

    kind: Literal["grades"] = "grades"
    audit: Origin | None = None
    answers: Origin | None = None
    sample: Draw
    items: list[dict[str, Any]]


S = TypeVar("S", bound="Session")


def resumable(store: SessionStore, model: type[S]) -> S | None:
    """The saved session of this kind; None when there is none (a fresh start)."""
    saved = store.load()
    kind = model.model_fields["kind"].default
    if saved is None:
        if store.output.exists():
            raise InputError(
                "exists and was not written by this command (no session beside it); choose "
                "another output, or remove it",
                path=store.output,
            )
        return None
    if saved.get("kind") != kind or not isinstance(saved.get("wanted"), dict):
        raise InputError(
            f"the session beside this output is not an 'annotate {kind}' session; choose "
            "another output",
            path=store.path,
        )
    return model.model_validate(saved)


def opened(
    store: SessionStore, model: type[S], key: str, path: Path, config: Any
) -> tuple[str | None, dict[str, Any], list[str], S | None]:
    """The input's sha256, what a session of it wants (that digest under ``key``,
    ``config``'s seed and sample size), the first notes, and the saved session (None: a
    fresh start)."""
    digest = file_sha256(path) if path.is_file() else None
    wanted = {key: digest, "seed": config.seed, "size": config.sample}
    notes = [swept(store)] if store.swept else []
    return digest, wanted, notes, resumable(store, model)


def growable(session: Session, seed: int, size: int, drawn: int) -> None:
    """A session can take more items with the same seed and a sample at least as large;
    another seed or a smaller sample would be another sample (named, exit 2)."""
    before = session.wanted
    if before.get("seed") != seed:
        raise InputError(
            f"the session was drawn with --seed {before.get('seed')}, not {seed}: give "
            f"--seed {before.get('seed')} to resume or extend it, or choose another output",
            field="--seed",
        )
    if size < drawn:
        raise InputError(
            f"the session already holds {drawn} items, more than --sample {size}: a sample "
            "can grow, not shrink (give at least that), or choose another output",
            field="--sample",
        )


def kept(
    items: list[dict[str, Any]],
    current: dict[str, dict[str, Any]],
    keys: tuple[str, ...],
    path: Path,
    what: str,
) -> None:
    """Every item the session drew is in the input as it is now, unchanged; else the
    input, the item and the field that changed are named (a mark on it would be a mark
    on something else)."""
    for item in items:
        now_ = current.get(item["id"])
        if now_ is None:
            raise InputError(
                f"{what} {item['id']!r} of this session's sample is not in it any more: give "
                "the file the session was drawn from (it may grow), or choose another output",
                path=path,
            )
        for key in keys:
            if now_[key] != item[key]:
                raise InputError(
                    f"{what} {item['id']!r} of this session's sample changed ({key} was "
                    f"{_short(item[key])}, is {_short(now_[key])}): give the file the "
                    "session was drawn from (it may grow), or choose another output",
                    path=path,
                    line=now_.get("line"),
                    field=key,
                )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def drawn(rest: list[Any], size: int, population: int, drawn: int, seed: int) -> list[Any]:
    """What is added to a sample of ``drawn``: uniformly from the ``rest`` (not drawn yet)
    up to ``size`` of the ``population`` (a uniform sample extended uniformly)."""
    return sample(rest, max(0, min(size, population) - drawn), seed)


@contextmanager
def released_on_error(store: SessionStore) -> Iterator[None]:
    """A session refused (a conflicting input) releases its lock at once: the caller may
    be a process that goes on (a test, a notebook), not only a command that exits."""
    try:
        yield
    except BaseException:
        store.close()
        raise


def swept(store: SessionStore) -> str:
    return f"{store.swept} temporary files a stopped server left beside the output removed"


def resumed(session: Session) -> str:
    return f"resuming the session of {session.created_at}: {session.marked()} items marked so far"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
