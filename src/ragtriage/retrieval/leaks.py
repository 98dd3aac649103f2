"""Access-control and tenant-isolation checks: forbidden chunks in the top k.

A retriever that ranks well can still hand one customer another customer's data: a
relevance metric never sees it, because those chunks are simply "not relevant". So a
golden case may name chunks that must never appear in its top k (``forbidden``, or
``tenant``/``acl``); a leak is a checked case with any of them in its top k. The fields
and the output are in docs/golden-sets.md ('Access control: leaks').
"""

from __future__ import annotations

from ragtriage.data.models import Chunk, GoldenCase, GoldenSet
from ragtriage.data.tables import Qrels
from ragtriage.retrieval.models import Leak, LeakSection
from ragtriage.retrieval.ranking import RankedBatch

__all__ = ["chunk_tenants", "find_leaks", "is_checked", "is_forbidden", "leak_warnings"]


def is_checked(case: GoldenCase) -> bool:
    """Whether a case carries any access-control field."""
    return bool(case.forbidden or case.tenant or case.acl)


def is_forbidden(doc_id: str, case: GoldenCase, tenants: dict[str, str]) -> bool:
    """Explicitly forbidden, or (tenant mode) owned by a tenant the case may not read."""
    if doc_id in case.forbidden:
        return True
    allowed = set(case.acl) | ({case.tenant} if case.tenant else set())
    owner = tenants.get(doc_id)
    return bool(allowed) and owner is not None and owner not in allowed


def chunk_tenants(corpus: dict[str, Chunk] | None) -> dict[str, str]:
    return {c.id: c.tenant for c in (corpus or {}).values() if c.tenant is not None}


def find_leaks(
    batches: list[RankedBatch], qrels: Qrels, golden: GoldenSet | None, k: int
) -> LeakSection | None:
    """Leaks in the top ``k`` of every checked case; None when no case is checked. Only
    those k are looked up, so a corpus of millions of tenant-tagged chunks costs nothing
    more than a small one."""
    if golden is None:
        return None
    checked = [c for c in golden.cases if is_checked(c)]
    if not checked:
        return None
    rows = _row_of(batches, qrels)
    tenants = chunk_tenants(golden.corpus)
    leaks: list[Leak] = []
    for case in (c for c in checked if c.id in rows):
        batch, row = rows[case.id]
        for rank, doc_id in enumerate(batch.doc_ids(row, k), start=1):
            if is_forbidden(doc_id, case, tenants):
                leaks.append(Leak(query_id=case.id, forbidden_id=doc_id, rank=rank))
    return LeakSection(
        k=k,
        n_cases_checked=sum(c.id in rows for c in checked),
        n_leaking=len({leak.query_id for leak in leaks}),
        cases=leaks,
    )


def _row_of(batches: list[RankedBatch], qrels: Qrels) -> dict[str, tuple[RankedBatch, int]]:
    return {
        str(qrels.query_ids[code]): (batch, row)
        for batch in batches
        for row, code in enumerate(batch.queries)
    }


def leak_warnings(golden: GoldenSet | None) -> list[str]:
    """Tenant-mode cases cannot be checked without a corpus that says who owns what."""
    if golden is None:
        return []
    tenant_cases = [c.id for c in golden.cases if c.tenant or c.acl]
    if tenant_cases and not chunk_tenants(golden.corpus):
        return [
            f"{len(tenant_cases)} cases give a tenant/acl but no corpus chunk has a 'tenant': "
            "only their explicit 'forbidden' ids were checked"
        ]
    return []
