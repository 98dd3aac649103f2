"""Typer options derived from a flow's config: each field's :class:`Setting` gives the
option's names, help, default and range, so a new option is one line in the config.

``@with_config(AuditConfig)`` on a command ``def run(config: AuditConfig, out=..., ...)``
adds one option per config field before the command's own (output, ``--quiet``); on a
call the fields' values are parsed once (specs into the objects the flow takes: a
:class:`JudgeSpec`, a :class:`ColumnMap`, metric lists) and handed over as the config.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import operator
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ragtriage.atomic import output_file
from ragtriage.cli.common import MAX_SEED, choices, finite, given_list, int_list, split_list
from ragtriage.data.containers import Given
from ragtriage.data.formats.columns import ColumnMap, parse_columns
from ragtriage.errors import InputError
from ragtriage.flows.config import Setting, settings
from ragtriage.retrieval.defaults import DEFAULT_KS, DEFAULT_METRICS

if TYPE_CHECKING:
    from ragtriage.judge.spec import JudgeSpec

__all__ = [
    "CLICK_MAX",
    "OldOutput",
    "PARSED",
    "Quiet",
    "ResultsFolder",
    "Parsed",
    "flag",
    "one_out",
    "option",
    "out_option",
    "with_config",
]

# A range bound above this is checked by a callback and left out of the help text:
# ``[0<=x<=9223372036854775807]`` helps nobody; a seed's 4294967295 still does.
CLICK_MAX = MAX_SEED


@dataclasses.dataclass(frozen=True)
class Parsed:
    """A field given as text on the command line and parsed once into what the config
    holds. ``default``: the command line's default, before parsing."""

    cli_type: Any
    parse: Callable[[Any], Any]
    default: Any = None


def _judge(text: str) -> JudgeSpec:
    from ragtriage.judge.spec import JudgeSpec  # here: retrieval never loads the judge

    return JudgeSpec.parse(text)


def _judges(texts: list[str] | None, field: str = "--judge") -> list[JudgeSpec]:
    from ragtriage.judge.spec import JudgeSpec

    return [JudgeSpec.parse(t, field) for t in texts or []]  # every spec checked before any runs


def _escalations(texts: list[str] | None) -> list[JudgeSpec]:
    return _judges(texts, "--escalate-to")  # a bad spec names its own option


def _columns(text: str | None) -> ColumnMap | None:
    return None if text is None else parse_columns(text)


def _metrics(values: list[str] | None) -> list[str]:
    return given_list(values, "--metrics") or list(DEFAULT_METRICS)


def _ks(values: list[str] | None) -> list[int]:
    return int_list(values, "--k") or list(DEFAULT_KS)


# fields whose command-line form is text, by field name (the same name in every config)
PARSED: dict[str, Parsed] = {
    "judge": Parsed(str, _judge, "embedded"),
    "judges": Parsed(list[str] | None, _judges),
    "escalate_to": Parsed(list[str] | None, _escalations),
    "columns": Parsed(str | None, _columns),
    "metrics": Parsed(list[str] | None, _metrics),
    "k": Parsed(list[str] | None, _ks),
    # golden add: ids and tags, repeatable or comma-separated
    "case": Parsed(list[str] | None, split_list),
    "tag": Parsed(list[str] | None, split_list),
}


def flag(name: str, help: str) -> Any:
    """An on/off option that is off unless given: ``--quiet``, never ``--no-quiet``."""
    return typer.Option(name, help=help)


def out_option(help: str) -> Any:
    """``-o/--out``: where a command writes; a folder for a command writing several files
    (audit, calibrate), a file for one writing one (retrieval, judge, compare, golden
    check), on every command the same name."""
    return typer.Option("--out", "-o", help=help)


# ``--output``, the earlier name of a one-file ``--out``: still read, not shown
OldOutput = Annotated[Path | None, typer.Option("--output", hidden=True, help="Replaced by --out.")]


# ``--quiet`` as every command that prints a summary takes it
Quiet = Annotated[bool, flag("--quiet", "No terminal summary.")]
# ``--out`` of a command that writes results.json and its reports (audit, conversations)
ResultsFolder = Annotated[Path, out_option("Output folder: results.json, report.md, report.html.")]


def one_out(out: Path | None, output: Path | None) -> Path | None:
    """The output file, checked writable; errors name the option the user typed."""
    if out is not None and output is not None:
        raise InputError("give --out only (--output is its earlier name)", field="--output")
    path, option = (output, "--output") if output is not None else (out, "--out")
    output_file(path, option)
    return path


def option(name: str, setting: Setting, default: Any = None) -> typer.models.ParameterInfo:
    """The typer option (or argument) a setting describes. An on/off setting that is off
    by default is one flag (``--holdout``, not ``--holdout/--no-holdout``); one that is on
    by default is turned off by ``--no-NAME``."""
    if setting.argument:
        return typer.Argument(help=setting.help, metavar=setting.metavar)
    long = "--" + name.replace("_", "-")
    names = setting.names or ((f"{long}/--no-{long[2:]}",) if default is True else (long,))
    low, high = setting.min, setting.max
    callback: Callable[[Any], Any] | None = None
    if setting.choices:
        callback = choices(*setting.choices)
    elif setting.exclusive:  # typer's range is inclusive: the bounds go to the callback
        callback, low, high = _strictly_between(low, high), None, None
    elif setting.finite:
        callback = finite
    if high is not None and high > CLICK_MAX and isinstance(high, int):
        callback, high = _at_most(high), None
    return typer.Option(
        *names,
        help=setting.help,
        min=low,
        max=high,
        callback=callback,
        hidden=setting.hidden,
        metavar=setting.metavar,
    )


def _strictly_between(
    low: float | None, high: float | None
) -> Callable[[float | None], float | None]:
    def check(value: float | None) -> float | None:
        if value is None:
            return value
        finite(value)
        if (low is not None and value <= low) or (high is not None and value >= high):
            raise typer.BadParameter(f"{value} is not {_open_range(low, high)}")
        return value

    return check


def _open_range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"strictly between {low} and {high}"
    return f"above {low}" if low is not None else f"below {high}"


def _at_most(high: int) -> Callable[[int | None], int | None]:
    def check(value: int | None) -> int | None:
        if value is not None and value > high:
            raise typer.BadParameter(f"{value} is above the largest allowed, {high}")
        return value

    return check


def with_config(
    config_type: type, before: Callable[..., None] | None = None
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Derive the options of ``config_type`` for a command taking ``config`` first.

    ``before(**values)`` sees the raw option values before anything is parsed (to refuse
    an old option by its new spelling first)."""
    declared = settings(config_type)

    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        own = list(inspect.signature(command).parameters.values())[1:]  # after ``config``
        params = [_parameter(f, t, s) for f, t, s in declared]
        params += [p.replace(annotation=_resolved(command, p), kind=p.KEYWORD_ONLY) for p in own]

        @functools.wraps(command)
        def run(**values: Any) -> Any:
            if before is not None:
                before(**values)
            fields = {f.name: _parse(f.name, values.pop(f.name)) for f, _, _ in declared}
            return command(config_type(**fields), **values)

        run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        del run.__wrapped__  # typer must read the derived signature, not the command's
        return run

    return wrap


def _resolved(command: Callable[..., Any], param: inspect.Parameter) -> Any:
    """A parameter's annotation as an object (``from __future__ import annotations`` leaves
    text), read in the command's module."""
    if not isinstance(param.annotation, str):
        return param.annotation
    # the text is this package's own source, never input
    return eval(param.annotation, vars(typing) | command.__globals__)  # noqa: S307


def _parameter(field: dataclasses.Field[Any], kind: Any, setting: Setting) -> inspect.Parameter:
    parsed = PARSED.get(field.name)
    if parsed is not None:
        kind, default = parsed.cli_type, parsed.default
    elif field.default is not dataclasses.MISSING:
        default = field.default
    elif field.default_factory is not dataclasses.MISSING:
        default = field.default_factory()
    else:
        default = inspect.Parameter.empty  # a required option
    return inspect.Parameter(
        field.name,
        inspect.Parameter.KEYWORD_ONLY,
        default=default,
        annotation=Annotated[_typed_on_command_line(kind), option(field.name, setting, default)],
    )


def _typed_on_command_line(kind: Any) -> Any:
    """A setting's type less :class:`Given`: rows handed over in Python are a value the
    command line cannot give, so ``Path | Given`` is a ``Path`` option."""
    if typing.get_origin(kind) not in (typing.Union, types.UnionType):
        return kind
    return functools.reduce(operator.or_, [a for a in typing.get_args(kind) if a is not Given])


def _parse(name: str, value: Any) -> Any:
    parsed = PARSED.get(name)
    return value if parsed is None else parsed.parse(value)
