"""`fantasma eval`: how well authorship attackers do on original vs rewritten text (see docs/eval.md)."""

from native_host.eval.run import EvalDependencyMissing, EvalOptions, format_table, run_eval

__all__ = ["EvalDependencyMissing", "EvalOptions", "format_table", "run_eval"]
