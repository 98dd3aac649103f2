"""How many correct-but-shorter answers ``incomplete`` fails, before and after issue 50.

    PYTHONPATH=src python benchmarks/incomplete_backing.py

The model-free audit (BM25, extractive answers, lexical judge) of the two shipped golden
sets. Printed per set: the labels, the generation causes, the answers ``incomplete``
(each backed by the question or by a calibrated answer check: which decided), and the
passes carrying notes (reference facts the question does not ask for). Then every
``incomplete`` case of the handbook, and a sample of ClapNQ's notes, with the fact named.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig

ROOT = Path(__file__).resolve().parents[1]


def _audit(name: str, cache: Path):
    config = AuditConfig(
        golden=ROOT / "golden_sets" / name, generator="extractive", judge="lexical", cache=cache
    )
    return audit_flow.run(config)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("handbook", "clapnq"):
            result = _audit(name, Path(tmp) / "cache.sqlite")
            causes = Counter(c.cause.value for c in result.cases if c.cause is not None)
            backed = Counter(
                e.backed_by for c in result.cases for e in c.causes[:1] if c.cause == "incomplete"
            )
            noted = [c for c in result.cases if c.notes]
            print(f"{name}: {len(result.cases)} cases; labels {dict(result.counts)}")
            print(f"  generation causes {dict(causes)}; incomplete backed by {dict(backed)}")
            print(f"  passes with notes (facts not asked for): {len(noted)}")
            print(f"  answer matrix: {result.answer_matrix}")
            for case in [c for c in result.cases if c.cause == "incomplete"][:25]:
                print(f"  incomplete {case.case_id}: {case.query!r} -> {case.reason[:230]}")
            for case in noted[:: max(1, len(noted) // 8)]:
                facts = "; ".join(repr(n.span) for n in case.notes[:2])
                print(f"  note {case.case_id}: {case.query!r}: not asked: {facts[:200]}")


if __name__ == "__main__":
    main()
