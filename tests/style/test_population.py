"""The population the identifiability model compares against (native_host.style.population): small,
counts only, every chunk tagged with its corpora, and `without` drops a corpus as if never built in."""

from __future__ import annotations

from native_host.style.population import Population, default_population_path


def test_population_is_small_and_every_chunk_is_tagged_with_its_corpora():
    path = default_population_path()
    assert path.stat().st_size < 3_000_000  # counts only, never text
    pop = Population.load(path)
    assert len(set(pop.authors)) >= 30
    # the eval's corpora are in it (its surrogate drops the corpus under test), each chunk tagged
    assert {"federalist_papers", "bronte_sisters", "aaac_problem_c", "state_of_the_union"} <= set(pop.corpora)
    assert (pop.chunk_corpora > 0).all()
    corpus_of_label = {a.split(":", 1)[0] for a in pop.authors}
    assert corpus_of_label <= set(pop.corpora)
    # labels that are no author are left out
    assert not any(
        a.endswith((":Iliad", ":Odyssey", ":Pastoral", ":unknown")) or "&" in a for a in pop.authors
    )


def test_without_drops_every_chunk_of_a_corpus_and_the_grams_it_alone_held():
    pop = Population.load(default_population_path())
    less = pop.without(["federalist_papers"])
    bit = 1 << pop.corpora.index("federalist_papers")
    assert len(less.authors) == int(((pop.chunk_corpora & bit) == 0).sum()) < len(pop.authors)
    assert not (less.chunk_corpora & bit).any()
    assert not any(a.startswith("federalist_papers:") for a in less.authors)
    assert ((less.char_counts > 0).sum(axis=0) >= 2).all()  # as if built without it
    assert less.char_counts.shape == (len(less.authors), len(less.char_vocab))
    assert pop.without(["no_such_corpus"]) is pop
