"""The system under test, run by ragtriage itself (a retriever and a generator, embedded or
user callables): one trace per case, as a trace file would give. Internal."""
