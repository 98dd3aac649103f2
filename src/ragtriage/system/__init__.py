"""The system under test, run by ragtriage itself: retrieve for every golden query (the
embedded BM25 or a user callable, ``retrieval.retrievers``), pass the top chunks on and
generate answers (the embedded model, an extractive baseline or a user callable); the
output is one trace per case, as a trace file would give. Internal."""
