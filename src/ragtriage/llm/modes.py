"""The JSON modes a litellm endpoint may be asked for, strongest first.

Kept apart from ``litellm_model`` so that a config naming them (``flows/config.py``)
does not import the model backends, and with them asyncio and ssl.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["JSON_MODES", "JsonMode"]

JsonMode = Literal["json_schema", "json_object_schema", "json_object", "none"]
# Strongest first: a refused mode falls back to the next one ("none": text + repair).
JSON_MODES: tuple[JsonMode, ...] = ("json_schema", "json_object_schema", "json_object", "none")
