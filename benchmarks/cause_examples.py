"""One example of each cause of a generation failure, audited by the default judge: the
examples on the docs page (docs/triage-causes.md).

    python benchmarks/cause_examples.py

Answers written for the shipped handbook golden set (the demo's) and for the cargo-bike
set of the tests (``tests/fixtures/causes``), each with the context a BM25 retriever would
pass on; printed: the label, the primary cause and its evidence (the answer sentence, the
chunk, golden or not, the span), as results.json holds them.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from ragtriage.data.golden import load_golden
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig

ROOT = Path(__file__).resolve().parents[1]
HANDBOOK = ROOT / "golden_sets" / "handbook"
BIKE = ROOT / "tests" / "fixtures" / "causes"

EXAMPLES = [  # (golden set, case, context ids, answer)
    (
        HANDBOOK,
        "hb-05",
        ["raid-rebuild", "n2-100-specs", "nas-overview"],
        "To replace the failed disk in your N2-100, hot-swap the drive while the pool is "
        "running. The rebuild starts automatically and takes about 2 hours per TB.",
    ),
    (
        HANDBOOK,
        "hb-01",
        ["n4-300-specs", "nas-overview", "n8-900-specs"],
        "The N4-300 has six drive bays.",
    ),
    (
        HANDBOOK,
        "hb-11",
        ["n4-300-specs", "n8-900-specs", "nas-overview"],
        "The N8-900 has 32 GB of ECC RAM expandable to 128 GB and four 10 GbE ports.",
    ),
    (
        BIKE,
        "ok",
        ["bike-service", "bike-specs", "bike-warranty"],
        "Have the bike serviced every 2000 km or once a year. The first service is free at "
        "any Porter dealer.",
    ),
    (
        BIKE,
        "w",
        ["bike-specs", "bike-accessories", "bike-service"],
        "The Porter cargo bike has a 250 W mid-drive motor and a range of 60 km on one charge.",
    ),
    (
        BIKE,
        "h",
        ["bike-warranty", "bike-specs", "bike-service"],
        "The frame has a ten-year warranty.",
    ),
    (
        BIKE,
        "f",
        ["bike-charging", "bike-specs", "bike-service"],
        "Never charge the battery below 0 °C [2]. Bring it indoors and let it warm up first [2].",
    ),
    (
        HANDBOOK,
        "hb-07",
        ["raid-setup", "nas-overview", "raid-rebuild"],
        "RAID 5 needs at least three drives [4].",
    ),
]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for golden_dir, case_id, context, answer in EXAMPLES:
            corpus = load_golden(golden_dir).corpus or {}
            trace = {
                "query_id": case_id,
                "retrieved": [{"id": c, "text": corpus[c].passage} for c in context],
                "answer": answer,
            }
            path = Path(tmp) / f"{case_id}.jsonl"
            path.write_text(json.dumps(trace) + "\n")
            config = AuditConfig(golden=golden_dir, traces=path, cache=Path(tmp) / "c.sqlite")
            result = audit_flow.run(config)
            case = next(c for c in result.cases if c.case_id == case_id)
            print(f"## {golden_dir.name} {case_id}: {case.query}")
            print(f"context: {', '.join(context)}; expected: {', '.join(case.expected)}")
            print(f"answer: {answer}")
            print(f"label {case.label.value}, cause {case.cause}; {case.reason}")
            for e in case.causes:
                chunk = "no chunk" if e.chunk_id is None else (
                    f"{e.chunk_id} ({'golden' if e.golden else 'not golden'})"
                )  # fmt: skip
                print(f"  {e.cause.value}: sentence {e.sentence!r}; {chunk}; span {e.span!r}")
                print(f"    {e.note}")
            print()


if __name__ == "__main__":
    main()
