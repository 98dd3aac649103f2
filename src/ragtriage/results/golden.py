"""What the ``ragtriage golden`` commands produced: a held-out :class:`Split` and the
cases ``golden add`` plans to append (:class:`GrowPlan`, with its :class:`Refusal` s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ragtriage.data.formats.columns import ColumnMap

__all__ = ["GrowPlan", "Refusal", "Split"]


class Split(BaseModel):
    held: list[str]  # ids of the held-out cases
    total: int
    written: Path
    seed: int = 0


class Refusal(BaseModel):
    case_id: str
    reason: str


class GrowPlan(BaseModel):
    target: str
    records: list[dict[str, Any]] = Field(default_factory=list)
    refused: list[Refusal] = Field(default_factory=list)
    retrieved: dict[str, list[str]] = Field(default_factory=dict)  # to help mark expected ids
    columns: dict[str, str] = Field(default_factory=dict)  # --columns: the file's own names

    def written(self) -> list[dict[str, Any]]:
        """``records`` as they go into the file: under its column names (``columns``)."""
        names = ColumnMap(self.columns)
        return [names.restore(r) for r in self.records]
