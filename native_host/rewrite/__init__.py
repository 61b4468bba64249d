"""The rewrite pipeline: LLM paraphrases checked by guards, with the neutralizer as the safe fallback.

from native_host.rewrite import RewriteOptions, rewrite
result = rewrite(text, RewriteOptions(strength="strong"), on_progress=print, cancel=event)
result.to_json()  # text, edits, markers_before/after, similarity, path, reason, timings, ...
"""

from native_host.models import model_status
from native_host.rewrite.options import STRENGTHS, RewriteOptions, RewriteResult
from native_host.rewrite.pipeline import rewrite

__all__ = ["STRENGTHS", "RewriteOptions", "RewriteResult", "model_status", "rewrite"]
