"""The trace loader lives in the reader registry (``data/formats/traces.py``); these names
stay importable from here for callers of the triage layer."""

from __future__ import annotations

from ragtriage.data.formats.traces import TraceFile, load_traces, parse_trace, read_traces

__all__ = ["TraceFile", "load_traces", "parse_trace", "read_traces"]
