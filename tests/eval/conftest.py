"""Eval fixtures: the default language model (for the perplexity ratio), shared with the host tests'
export cache so a run exports it once."""

from __future__ import annotations

from tests.host.conftest import host_llm_dir

__all__ = ["host_llm_dir"]
