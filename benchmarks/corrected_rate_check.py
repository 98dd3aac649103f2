"""Why an audit withholds the bias-corrected rate: the figures quoted in the README and
docs/ci-gate.md.

    python benchmarks/corrected_rate_check.py

Runs the model-free audit (BM25, extractive answers, lexical judge) of the shipped sets:
clapnq with the shipped lexical calibration given explicitly (so the correction is
computed, then withheld because it lands outside [0, 1]), and handbook with the
calibration found by fingerprint (a shipped record: withheld because its grades are not a
sample of these answers). Before 44d92de the first printed 1.000 [1.000, 1.000].
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig

ROOT = Path(__file__).resolve().parents[1]


def _line(name: str, calibration: Path | None, cache: Path) -> str:
    config = AuditConfig(
        golden=ROOT / "golden_sets" / name,
        generator="extractive",
        judge="lexical",
        calibration=calibration,
        cache=cache,
    )
    result = audit_flow.run(config)
    gen, counts = result.generation, result.counts
    naive = gen.naive_faithful_rate
    rate = f"{naive.estimate:.4f} [{naive.low:.4f}, {naive.high:.4f}]" if naive else "-"
    passed = f"pass {counts.get('pass', 0)} of {len(result.cases)}"
    corrected = gen.corrected_note or gen.corrected_faithful_rate
    return f"{name}: {passed}; faithful (judge) {rate}; corrected: {corrected}"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache.sqlite"
        print(_line("clapnq", ROOT / "calibrations" / "lexical.json", cache))
        print(_line("handbook", None, cache))


if __name__ == "__main__":
    main()
