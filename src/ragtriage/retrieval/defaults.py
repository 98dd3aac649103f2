"""Default metrics and cutoffs, in a module light enough for the CLI to import at start-up."""

__all__ = ["DEFAULT_KS", "DEFAULT_METRICS"]

DEFAULT_METRICS = ("recall", "hit_rate", "precision", "mrr", "ndcg@10", "map")
DEFAULT_KS = (1, 3, 5, 10)
