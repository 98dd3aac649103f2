"""``ragtriage golden``: a golden set's life: ``split`` (a seeded held-out slice),
``check`` (ids gone from the corpus, duplicates) and ``add``, growing it from audited
failures.

The failures an audit finds are the queries a golden set most needs: they are real, they
are hard, and after a fix they guard against regressions. ``golden add`` turns chosen
cases of a ``results.json`` into golden records that keep the query, the ids the user
marks as expected (by default the ones the audit judged against), the tags, and a
``source`` note saying which audit, case and label they came from. A case whose id or
query (exact or near duplicate, as in ``golden check``) is already in the target set is
refused, so the set never weighs one question twice.

Each subcommand's settings are declared once, in ``SplitConfig``, ``CheckConfig`` and
``AddConfig``; ``run_split``, ``run_check`` and ``run_add`` run them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from ragtriage.atomic import file_sha256, write_atomic
from ragtriage.data.check import NEAR_DUPLICATE, CheckReport, check_golden, jaccard, normalise
from ragtriage.data.containers import iter_records, read_text
from ragtriage.data.conversations import (
    assign_conversation_holdout,
    is_conversation_file,
    load_conversation_golden,
    write_conversation_split,
)
from ragtriage.data.formats.columns import ColumnMap, Columns, parse_columns
from ragtriage.data.golden import GOLDEN_FILES, TABLE_FILES, load_chunks, load_golden, parse_case
from ragtriage.data.holdout import assign_holdout, has_holdout, write_split
from ragtriage.data.models import GoldenCase
from ragtriage.errors import InputError
from ragtriage.flows.config import COLUMNS, Setting
from ragtriage.results.golden import GrowPlan, Refusal, Split
from ragtriage.results.load import load_audit
from ragtriage.triage.models import FAILURES, AuditResult, CaseResult

__all__ = [
    "AddConfig",
    "CheckConfig",
    "SplitConfig",
    "apply",
    "check",
    "corpus_ids",
    "duplicate_of",
    "existing",
    "expected_ids",
    "golden_file",
    "originals",
    "plan",
    "record",
    "run_add",
    "run_check",
    "run_split",
    "select",
    "source_note",
    "split",
    "unknown_ids",
]

GOLDEN = Setting("Golden set file or directory.")


@dataclass
class SplitConfig:
    golden: Annotated[Path, GOLDEN]
    fraction: Annotated[
        float,
        Setting(
            "Share of cases to hold back, strictly between 0 and 1 (per answerable/"
            "unanswerable stratum).",
            min=0,
            max=1,
            exclusive=True,
        ),
    ] = 0.2
    # any integer: the choice hashes "seed:id", so no range is needed
    seed: Annotated[int, Setting("Seed of the choice (recorded nowhere else).")] = 0
    out: Annotated[
        Path | None,
        Setting(
            "Write here (a folder gets the corpus too) instead of rewriting the golden file.",
            names=("--out", "-o"),
        ),
    ] = None
    force: Annotated[bool, Setting("Re-split a set that already has a holdout.")] = False
    columns: Annotated[ColumnMap | None, COLUMNS] = None


@dataclass
class CheckConfig:
    golden: Annotated[Path, GOLDEN]
    corpus: Annotated[Path | None, Setting("corpus.jsonl (default: beside it).")] = None
    columns: Annotated[ColumnMap | None, COLUMNS] = None


@dataclass
class AddConfig:
    results: Annotated[Path, Setting("An audit's results.json.", names=("--from",))]
    to: Annotated[Path, Setting("Golden set file or directory to extend.")]
    case: Annotated[
        list[str], Setting("Case id (repeatable, or comma-separated).", metavar="ID[,ID...]")
    ] = field(default_factory=list)
    failed: Annotated[bool, Setting("Every failing case (instead of --case).")] = False
    # "CASE=id1,id2" texts, as --expected takes them (parsed by expected_ids)
    expected: Annotated[
        list[str],
        Setting(
            "CASE=id1,id2 (repeatable): the ids you judge relevant (default: the ones the "
            "audit used); with one --case, id1,id2 alone.",
            metavar="[CASE=]ID[,ID...]",
        ),
    ] = field(default_factory=list)
    tag: Annotated[
        list[str],
        Setting(
            "Extra tags for the new cases (repeatable, or comma-separated).", metavar="TAG[,TAG...]"
        ),
    ] = field(default_factory=list)
    note: Annotated[str, Setting("Appended to each case's source note.")] = ""
    dry_run: Annotated[bool, Setting("Show what would be added; write nothing.")] = False
    columns: Annotated[ColumnMap | None, COLUMNS] = None


def split(
    golden: Path,
    fraction: float,
    seed: int,
    out: Path | None = None,
    force: bool = False,
    columns: ColumnMap | None = None,
) -> Split:
    """Hold back a seeded ``fraction`` of the cases (per stratum) and write the split; of a
    conversational golden file, a fraction of whole conversations."""
    if is_conversation_file(golden):
        return _split_conversations(golden, fraction, seed, out, force)
    golden_set = load_golden(golden, columns=columns)
    source = golden_file(golden)
    if not source.is_file():
        raise InputError("golden split needs a golden.jsonl/.json (not a BEIR layout)", path=golden)
    if has_holdout(golden_set) and not force:
        raise InputError(
            "already has held-out cases: re-splitting would move cases you have "
            "not looked at into the development slice (use --force)",
            path=source,
            field="split",
        )
    assignment = assign_holdout(golden_set, fraction, seed)
    written = write_split(source, assignment, out, columns)
    held = [cid for cid, s in assignment.items() if s == "holdout"]
    return Split(held=held, total=len(assignment), written=written, seed=seed)


def _split_conversations(
    golden: Path, fraction: float, seed: int, out: Path | None, force: bool
) -> Split:
    threads = load_conversation_golden(golden)
    if threads.has_holdout() and not force:
        raise InputError(
            "already has held-out conversations: re-splitting would move turns you have "
            "not looked at into the development slice (use --force)",
            path=golden,
            field="split",
        )
    assignment = assign_conversation_holdout(threads, fraction, seed)
    written = write_conversation_split(golden, assignment, out)
    held = [t.case.id for t in threads.turns if assignment[t.conversation_id] == "holdout"]
    return Split(held=held, total=len(threads.turns), written=written, seed=seed)


def run_split(config: SplitConfig) -> Split:
    """``golden split``."""
    return split(
        config.golden, config.fraction, config.seed, config.out, config.force, config.columns
    )


def check(
    golden: Path, corpus: Path | None = None, columns: ColumnMap | None = None
) -> CheckReport:
    """``golden check``: the set against its corpus (``corpus``, or the one beside it); a
    conversational golden file is checked turn by turn (each turn a case ``conv#turn``),
    after its own checks (turns 1..n, each conversation in one slice) passed on reading."""
    if is_conversation_file(golden):
        threads = load_conversation_golden(golden)
        report = check_golden(threads.flat(), load_chunks(corpus) if corpus else None)
        report.golden["conversations"] = len(threads.conversations())
        report.golden["held_out_conversations"] = len(
            {t.conversation_id for t in threads.turns if t.case.split == "holdout"}
        )
        return report
    golden_set = load_golden(golden, columns=columns)
    return check_golden(golden_set, load_chunks(corpus) if corpus else None)


def run_check(config: CheckConfig) -> CheckReport:
    """``golden check``."""
    return check(config.golden, config.corpus, config.columns)


REWRITABLE = (".jsonl", ".json")


def golden_file(target: Path) -> Path:
    """The golden file to extend or re-split: the path itself, or ``golden.jsonl`` in a
    directory. Only JSON and JSONL files are rewritten (each record kept as written); a
    CSV or Parquet set is refused by name rather than read as broken JSON."""
    path = target
    if target.is_dir():
        found = [target / n for n in (*GOLDEN_FILES, *TABLE_FILES) if (target / n).is_file()]
        path = found[0] if found else target / GOLDEN_FILES[0]
    if path.suffix.lower() not in REWRITABLE:
        raise InputError(
            "golden split and golden add rewrite JSON or JSONL golden files only; "
            "convert this one to JSONL first (every other command reads it as it is)",
            path=path,
        )
    return path


def select(result: AuditResult, case_ids: list[str], failed: bool) -> list[CaseResult]:
    """The named cases, or every failing one (retrieval, ranking, generation)."""
    if bool(case_ids) == failed:
        raise InputError("give --case ID (repeatable) or --failed, not both", field="case")
    if failed:
        return [c for c in result.cases if c.label in FAILURES]
    by_id = {c.case_id: c for c in result.cases}
    unknown = [c for c in case_ids if c not in by_id]
    if unknown:
        raise InputError(f"not in the results: {', '.join(unknown)}", field="case")
    return [by_id[c] for c in case_ids]


def record(
    case: CaseResult,
    expected: list[str] | None,
    tags: list[str],
    note: str,
    original: GoldenCase | None = None,
) -> dict:
    """The golden record of an audited case; ``original``: the case in the audit's own
    golden set, whose grades, reference answer and access-control fields are kept (a
    case added without its ``forbidden`` list lost its leak check without a word)."""
    rec: dict[str, Any] = {
        "id": case.case_id,
        "query": case.query,
        "expected": expected if expected is not None else list(case.expected),
        "tags": list(dict.fromkeys([*case.tags, *tags])),
    }
    if original is not None:
        graded = {k: v for k, v in original.relevance.items() if v != 1}
        if graded and expected is None:  # grades of the ids the user did not replace
            rec["relevance_grades"] = dict(original.relevance)
        extra = {
            "reference_answer": original.reference_answer,
            "forbidden": list(original.forbidden),
            "tenant": original.tenant,
            "acl": list(original.acl),
        }
        rec.update({k: v for k, v in extra.items() if v})
    rec["source"] = note
    return rec


def originals(result: AuditResult) -> dict[str, GoldenCase]:
    """The audit's golden cases by id, when its golden set can still be read (else none:
    the audit's own fields are all there is)."""
    source = result.golden.source
    try:
        return {c.id: c for c in load_golden(source).cases} if source else {}
    except InputError:
        return {}


def source_note(results: Path, case: CaseResult, extra: str = "") -> str:
    note = (
        f"audit {results.name} (sha256 {file_sha256(results)[:12]}) case {case.case_id}: "
        f"{case.label.value}: {case.reason}"
    )
    return f"{note}; {extra}" if extra else note


def existing(target: Path) -> list[dict[str, Any]]:
    return [r for _, r in iter_records(target)] if target.is_file() else []


def duplicate_of(rec: dict[str, Any], others: list[dict[str, Any]]) -> str | None:
    """Why ``rec`` duplicates one of ``others`` (same id, or exact/near-duplicate query)."""
    text = normalise(rec["query"])
    tokens = frozenset(text.split())
    for other in others:
        other_id = str(other.get("id", other.get("query_id", "")))
        if other_id == rec["id"]:
            return f"id {other_id!r} is already in the golden set"
        other_text = normalise(str(other.get("query", other.get("question", ""))))
        if other_text == text or jaccard(tokens, frozenset(other_text.split())) >= NEAR_DUPLICATE:
            return f"query duplicates case {other_id!r}"
    return None


def corpus_ids(path: Path) -> set[str] | None:
    return set(load_chunks(path)) if path.is_file() else None


def unknown_ids(rec: dict[str, Any], known: set[str] | None) -> str | None:
    """Expected ids must exist in the target's corpus, or the new case is invalid at birth."""
    missing = [doc for doc in rec["expected"] if known is not None and doc not in known]
    return f"expected ids not in the corpus: {', '.join(missing)}" if missing else None


def plan(
    audit_result: AuditResult,
    results: Path,
    target: Path,
    case_ids: list[str],
    failed: bool,
    expected: dict[str, list[str]],
    tags: list[str],
    note: str = "",
    columns: Columns = None,
) -> GrowPlan:
    """What ``golden add`` would write; nothing is written here. ``audit_result`` is the
    audit read from ``results`` (:func:`ragtriage.results.load.load_audit`); ``columns``:
    the target's other column names (its cases are read, and new ones written, by them)."""
    mapping = parse_columns(columns)
    path = golden_file(target)
    taken = [mapping.apply(r) for r in existing(path)]
    known = corpus_ids(path.parent / "corpus.jsonl")
    out = GrowPlan(target=str(path), columns=mapping.public())
    chosen = select(audit_result, case_ids, failed)
    unused = sorted(set(expected) - {case.case_id for case in chosen})
    if unused:  # ids given for a case that is not being added must not vanish silently
        raise InputError(
            f"--expected names cases not being added: {', '.join(unused)}", field="expected"
        )
    known_cases = originals(audit_result)
    for case in chosen:
        note_text = source_note(results, case, note)
        rec = record(
            case, expected.get(case.case_id), tags, note_text, known_cases.get(case.case_id)
        )
        parse_case(dict(rec), path, len(taken) + 1)  # the record must load like any other
        reason = duplicate_of(rec, taken) or unknown_ids(rec, known)
        if reason:
            out.refused.append(Refusal(case_id=case.case_id, reason=reason))
            continue
        taken.append(rec)
        out.records.append(rec)
        out.retrieved[case.case_id] = case.retrieved_ids[:10]
    return out


def apply(grow: GrowPlan) -> Path:
    """Append the planned records to the target (JSONL; a JSON list stays a list)."""
    path = Path(grow.target)
    text = read_text(path) if path.is_file() else ""
    if text.lstrip().startswith("["):
        rows = [r for _, r in iter_records(path)] + grow.written()
        return write_atomic(path, json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    if text and not text.endswith("\n"):
        text += "\n"
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in grow.written())
    return write_atomic(path, text + lines)


def expected_ids(values: list[str], case_ids: list[str]) -> dict[str, list[str]]:
    """``--expected CASE=id1,id2`` by case (or ``--expected id1,id2`` with a single
    ``--case``)."""
    out: dict[str, list[str]] = {}
    for value in values:
        case, sep, ids = value.partition("=")
        if not sep:
            if len(case_ids) != 1:
                raise InputError(
                    "with several cases write --expected CASE=id1,id2", field="expected"
                )
            case, ids = case_ids[0], value
        if case_ids and case not in case_ids:  # with --failed the plan checks it
            raise InputError(f"case {case!r} is not among --case", field="expected")
        out[case] = [part.strip() for part in ids.split(",") if part.strip()]
        if not out[case]:
            raise InputError(
                f"no chunk ids for {case!r}: an unanswerable case is added without --expected",
                field="expected",
            )
    return out


def run_add(config: AddConfig) -> GrowPlan:
    """``golden add``: plan the new cases and, unless ``dry_run``, append them (when
    there is any to add)."""
    expected = expected_ids(config.expected, config.case)  # before any file is read
    planned = plan(
        load_audit(config.results),
        config.results,
        config.to,
        config.case,
        config.failed,
        expected,
        config.tag,
        config.note,
        config.columns,
    )
    if planned.records and not config.dry_run:
        apply(planned)
    return planned
