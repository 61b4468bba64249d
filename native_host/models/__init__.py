"""Everything about models: which are installed, which one answers, how one is installed, how big it is,
the warm ones in memory and what a rewrite costs with each. The CLI (`fantasma setup`, `fantasma
models`, `fantasma rewrite`) and the host call it; rewrite/ takes its engines and its size class here.

    registry.py    what is installed (the per-user models dir) and which one the `model` setting names
    choice.py      which model answers a rewrite: the registry's, or the embedded default when it fails
                   to load; `hello.model`, the `models` reply, switching, the preload at host start
    cache.py       the loaded engines and embedder, one per dir, kept warm (re-exported here)
    size_class.py  what the pipeline asks of a model by its size: prompt, window length, LLM windows
    cost.py        what a rewrite costs with each model on this computer, measured from the host's own
    embedded.py    the embedded models `fantasma setup` makes, each an atomic step
    install.py     `fantasma setup --model SPEC`: source, checks, int4 export, proof, provenance

    from native_host import models
    engine = models.get_engine(model_dir, threads=2)   # models.ModelUnavailable says why not
"""

from native_host.models.cache import (
    ModelUnavailable,
    forget,
    get_embedder,
    get_engine,
    load_failure,
    model_status,
    release_engines,
    unusable_model_errors,
)

__all__ = [
    "ModelUnavailable",
    "forget",
    "get_embedder",
    "get_engine",
    "load_failure",
    "model_status",
    "release_engines",
    "unusable_model_errors",
]
