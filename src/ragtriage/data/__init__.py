"""Stage-independent data: the golden set, corpora, runs and qrels, and their loaders."""

from ragtriage.data.golden import load_golden
from ragtriage.data.models import Chunk, GoldenCase, GoldenSet
from ragtriage.data.tables import Qrels, Run

__all__ = ["Chunk", "GoldenCase", "GoldenSet", "Qrels", "Run", "load_golden"]
