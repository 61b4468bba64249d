"""A real engine with every prompt it is given and every result it returns kept (what the rewrite's
window functions do not pass on); `cache=False` makes its warm_prefix a no-op, so nothing is reused."""

from __future__ import annotations

from typing import Any


class Recording:
    def __init__(self, engine: Any, cache: bool = True) -> None:
        self.engine = engine
        self.cache = cache
        self.calls: list[tuple[list[int], Any]] = []  # (prompt ids, result), one per candidate

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def warm_prefix(self, prefix_ids: list[int]) -> None:
        if self.cache:
            self.engine.warm_prefix(prefix_ids)

    def generate(self, prompt_ids: list[int], *args: Any, **kwargs: Any) -> Any:
        result = self.engine.generate(prompt_ids, *args, **kwargs)
        self.calls.append((list(prompt_ids), result))
        return result

    def generate_batch(self, prompt_ids: list[int], *args: Any, **kwargs: Any) -> Any:
        results = self.engine.generate_batch(prompt_ids, *args, **kwargs)
        self.calls.extend((list(prompt_ids), result) for result in results)
        return results

    @property
    def results(self) -> list[Any]:
        return [result for _, result in self.calls]
