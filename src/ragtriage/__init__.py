"""ragtriage: audit a RAG system stage by stage.

Stage 1 scores retrieval in isolation (metrics equal to trec_eval's); stage 2 judges
faithfulness with a calibrated LLM judge; triage labels every failing case as a
retrieval, ranking or generation failure.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ragtriage")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

from ragtriage.retrieval.evaluate import evaluate_retrieval  # noqa: E402

__all__ = ["__version__", "evaluate_retrieval"]
