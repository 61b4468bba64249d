#!/usr/bin/env python3
"""Build the edit proposers' data from WordNet 3.0 + wordfreq (offline; the runtime reads only the output).

Writes native_host/rewrite/edits/data/:
- pos.tsv      word, zipf, part-of-speech shares (n/v/a/r from WordNet tagged-sense counts over every
               lemma the word can inflect from; f for closed-class words). Lets the families tell
               "the close of day" from "they close".
- lexicon.tsv  surface form -> substitute in the same inflection, its POS, whether it needs the LM's
               check in context, and the lemma pair. Curated: see `pairs()` for the rules and
               data/lexicon_deny.txt (hand-written, read here) for what reading the output threw out.

Input: the Debian package `wordnet-base` (/usr/share/wordnet: data.*, index.*, *.exc, cntlist.rev).
    apt-get install wordnet-base
    PYTHONPATH=. .venv/bin/python scripts/build_lexicon.py [--wordnet /usr/share/wordnet]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

from wordfreq import zipf_frequency

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "native_host" / "rewrite" / "edits" / "data"
POS_NAMES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
SS_NUM = {"n": "1", "v": "2", "a": "3", "r": "4", "s": "5"}

# Thresholds (docs/anonymization-edits.md explains them).
MIN_SOURCE_ZIPF = 2.8  # words rarer than this are too few in real text to be worth a table row
MIN_SUBSTITUTE_ZIPF = 3.0  # a substitute a reader meets at least ~1.6 times per million words
MAX_ZIPF_DROP = 1.0  # a substitute may be at most this much rarer than the word it replaces
MAX_ZIPF_RISE = 1.8  # ... and not so much commoner that it is a different register (e.g. "get")
# The same limits on each inflected form, tighter (the eval's samples, docs/anonymization-edits.md, fifth
# pass): a form much rarer than the one it replaces reads as a mass noun pluralized or an odd word
# ("materials" -> "stuffs" 1.6 rarer, "animals" -> "beasts" 1.1); one much commoner is a vaguer,
# polysemous word ("avert" -> "avoid" 1.7 commoner, "correspond" -> "match" 1.6, "receive" -> "get").
MAX_FORM_DROP = 1.0
MAX_FORM_RISE = 1.2
DOMINANT_SENSE = 0.6  # share of a word's tagged uses its first sense needs to skip the LM check
MIN_TAGGED = 5  # below this many tagged uses WordNet's sense order is a guess
POS_TABLE_MIN_ZIPF = 2.5
MIN_SENSE_SHARE = 0.2  # a sense used less than this is not worth an LM call
SUBSTITUTE_SENSES = 3  # the shared sense must be among the substitute's first this many
MAX_SUBSTITUTES = 4  # per source word and part of speech: the search's LM budget is finite
# Adjective clusters ("necessary" ~ "essential") also give "the utmost verge" -> "the intense verge":
# kept, but only in the "lex-wide:" tier the search trusts least (docs/anonymization-edits.md).
SIMILAR_ADJECTIVES = True

# Verb + preposition pairs WordNet lacks, read as one unit ("admit of no cure" is not "acknowledge of").
EXTRA_IDIOMS = {
    f"{form} {prep}"
    for verb, prep in (
        ("admit", "of"),
        ("consist", "of"),
        ("depend", "on"),
        ("rely", "on"),
        ("account", "for"),
    )
    for form in (
        verb,
        verb + "s",
        verb + "ted" if verb == "admit" else verb + "ed",
        verb + "ting" if verb == "admit" else verb + "ing",
    )
} | {
    # fixed phrases read in the eval's samples: "the laws of nations" (international law), "in the gift
    # of the government" (at its disposal)
    "law of nations",
    "laws of nations",
    "in the gift of",
}

# Closed-class words: never substituted, marked 'f' in pos.tsv.
FUNCTION_WORDS = set(
    """a about above after again against all almost along also although always am among amongst an and
    another any anybody anyone anything anyway are around as at be because been before being below beneath
    beside besides between beyond both but by can cannot could did do does doing done down during each
    either else enough even ever every everybody everyone everything except few for from further had has
    have having he her here hers herself him himself his how however i if in indeed into is it its itself
    just least less like many may me might mine more moreover most much must my myself neither never no
    nobody none nor not nothing now of off often on once one only onto or other others otherwise ought
    our ours ourselves out over own per perhaps quite rather same shall she should since so some somebody
    someone something such than that the their theirs them themselves then there therefore these they
    this those though through throughout thus till to too toward towards under unless until unto up upon
    us very was we well were what whatever when whenever where whereas wherever whether which while whilst
    who whoever whom whose why will with within without would yet you your yours yourself yourselves
    thereby hence whereby amid amidst via concerning regarding considering according following including
    given provided granted respecting touching excepting barring pending save""".split()
)

# Verbs and nouns so polysemous that no single substitute holds across their uses (the prototype's
# worst sentences came from these), plus words whose WordNet synonyms are a different register.
STOP_LEMMAS = set(
    """be have do make get go take give come put set let say see know think look want use find tell ask
    work seem feel try leave call keep hold turn bring begin run move live believe happen write provide
    sit stand lose pay meet include continue learn change lead understand watch follow stop create speak
    read allow add spend grow open walk win offer remember love consider appear buy wait serve die send
    expect build stay fall cut reach kill remain suggest raise pass sell require report decide pull
    thing things way ways time times man men woman women people person day days year years part parts
    place case point fact number state world life hand eye head side kind sort lot bit deal matter mind
    head face end order form line body word words course sense rest power point view mean means like
    well right back still even just only good bad new old great little long high own other last next
    first few same sure such certain whole real free full clear able late early young hard""".split()
)


def zipf(word: str) -> float:
    return zipf_frequency(word, "en")


class WordNet:
    def __init__(self, root: Path) -> None:
        self.root = root
        # synsets[(pos, offset)] = (lex_filenum, ss_type, [(lemma, lex_id), ...])
        self.synsets: dict[tuple[str, int], tuple[str, str, list[tuple[str, str]]]] = {}
        self.index: dict[str, dict[str, list[int]]] = {p: {} for p in POS_NAMES}
        self.exc: dict[str, dict[str, list[str]]] = {p: defaultdict(list) for p in POS_NAMES}
        self.inverse_exc: dict[str, dict[str, list[str]]] = {p: defaultdict(list) for p in POS_NAMES}
        self.counts: dict[tuple[str, str, str, str, str, str], int] = {}
        self.heads: dict[int, int] = {}  # adjective satellite synset -> its head synset
        self.satellites: dict[int, list[int]] = defaultdict(list)  # head synset -> satellite synsets
        for pos, name in POS_NAMES.items():
            self._read_data(pos, root / f"data.{name}")
            self._read_index(pos, root / f"index.{name}")
            for line in (root / f"{name}.exc").read_text(encoding="latin-1").splitlines():
                parts = line.split()
                if len(parts) >= 2:
                    for base in parts[1:]:
                        self.exc[pos][parts[0]].append(base)
                        self.inverse_exc[pos][base].append(parts[0])
        for line in (root / "cntlist.rev").read_text(encoding="latin-1").splitlines():
            key, _num, cnt = line.split()
            lemma, rest = key.split("%")
            ss, lexfile, lex_id, head, head_id = rest.split(":")[:5]
            self.counts[(lemma, ss, lexfile, lex_id, head, head_id)] = int(cnt)

    def _read_data(self, pos: str, path: Path) -> None:
        for line in path.read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):
                continue
            f = line.split(" ")
            offset, lexfile, ss_type, w_cnt = int(f[0]), f[1], f[2], int(f[3], 16)
            words = []
            for k in range(w_cnt):
                raw = re.sub(r"\(.*\)$", "", f[4 + 2 * k])
                # A capitalized member is a name ("Abraham" in the synset of "abraham"): kept as
                # "?" so it matches no lower-case word.
                words.append((raw if raw.islower() else "?" + raw.lower(), f[5 + 2 * k]))
            self.synsets[(pos, offset)] = (lexfile, ss_type, words)
            if ss_type == "s":  # the sense key of a satellite names its cluster's head ("&" pointer)
                p = 4 + 2 * w_cnt
                for k in range(int(f[p])):
                    if f[p + 1 + 4 * k] == "&":
                        self.heads[offset] = int(f[p + 2 + 4 * k])
                        self.satellites[int(f[p + 2 + 4 * k])].append(offset)
                        break

    def _read_index(self, pos: str, path: Path) -> None:
        for line in path.read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):
                continue
            f = line.split()
            lemma, synset_cnt, p_cnt = f[0], int(f[2]), int(f[3])
            offsets = f[6 + p_cnt : 6 + p_cnt + synset_cnt]
            self.index[pos][lemma] = [int(o) for o in offsets]

    def sense_count(self, pos: str, lemma: str, offset: int) -> int:
        lexfile, ss_type, words = self.synsets[(pos, offset)]
        head, head_id = "", ""
        if ss_type == "s" and offset in self.heads:
            head_word, head_lex = self.synsets[(pos, self.heads[offset])][2][0]
            head, head_id = head_word.lstrip("?"), f"{int(head_lex, 16):02d}"
        for w, lex_id in words:
            if w == lemma:
                key = (lemma, SS_NUM[ss_type], lexfile, f"{int(lex_id, 16):02d}", head, head_id)
                return self.counts.get(key, 0)
        return 0

    def sense_counts(self, pos: str, lemma: str) -> list[int]:
        return [self.sense_count(pos, lemma, o) for o in self.index[pos].get(lemma, [])]

    def lemmas(self, pos: str, surface: str) -> set[str]:
        """WordNet's morphy: the lemmas `surface` can be an inflection of in `pos`."""
        out = set(self.exc[pos].get(surface, []))
        if surface in self.index[pos]:
            out.add(surface)
        for suffix, ending in _MORPHY[pos]:
            if surface.endswith(suffix) and len(surface) > len(suffix) + 1:
                base = surface[: len(surface) - len(suffix)] + ending
                if base in self.index[pos]:
                    out.add(base)
        return out


_MORPHY = {
    "n": [
        ("s", ""),
        ("ses", "s"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ],
    "v": [
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}

# Irregular verbs whose past and participle differ (or are not "-ed"): verb.exc gives the forms but
# not which is which, and "began" for "started" needs to know.
IRREGULAR = {
    v[0]: (v[1], v[2])
    for v in (
        line.split()
        for line in """arise arose arisen|awake awoke awoken|bear bore borne|beat beat beaten|become became become
        begin began begun|bend bent bent|bet bet bet|bind bound bound|bite bit bitten|bleed bled bled|blow blew blown
        break broke broken|breed bred bred|bring brought brought|build built built|burn burned burned|buy bought bought
        catch caught caught|choose chose chosen|cling clung clung|come came come|cost cost cost|creep crept crept
        cut cut cut|deal dealt dealt|dig dug dug|draw drew drawn|dream dreamed dreamed|drink drank drunk
        drive drove driven|eat ate eaten|fall fell fallen|feed fed fed|feel felt felt|fight fought fought
        find found found|flee fled fled|fling flung flung|fly flew flown|forbid forbade forbidden|forget forgot forgotten
        forgive forgave forgiven|freeze froze frozen|get got got|give gave given|go went gone|grind ground ground
        grow grew grown|hang hung hung|hear heard heard|hide hid hidden|hit hit hit|hold held held|hurt hurt hurt
        keep kept kept|kneel knelt knelt|know knew known|lay laid laid|lead led led|lean leaned leaned|leap leapt leapt
        leave left left|lend lent lent|let let let|lie lay lain|light lit lit|lose lost lost|make made made
        mean meant meant|meet met met|pay paid paid|put put put|quit quit quit|read read read|ride rode ridden
        ring rang rung|rise rose risen|run ran run|say said said|see saw seen|seek sought sought|sell sold sold
        send sent sent|set set set|shake shook shaken|shed shed shed|shine shone shone|shoot shot shot
        show showed shown|shrink shrank shrunk|shut shut shut|sing sang sung|sink sank sunk|sit sat sat
        sleep slept slept|slide slid slid|sling slung slung|speak spoke spoken|speed sped sped|spend spent spent
        spin spun spun|spit spat spat|split split split|spread spread spread|spring sprang sprung|stand stood stood
        steal stole stolen|stick stuck stuck|sting stung stung|stink stank stunk|stride strode stridden
        strike struck struck|string strung strung|strive strove striven|swear swore sworn|sweep swept swept
        swell swelled swollen|swim swam swum|swing swung swung|take took taken|teach taught taught|tear tore torn
        tell told told|think thought thought|throw threw thrown|thrust thrust thrust|tread trod trodden
        understand understood understood|wake woke woken|wear wore worn|weave wove woven|weep wept wept
        win won won|wind wound wound|withdraw withdrew withdrawn|wring wrung wrung|write wrote written
        overcome overcame overcome|undertake undertook undertaken|undergo underwent undergone|withhold withheld withheld
        uphold upheld upheld|mislead misled misled|foresee foresaw foreseen|behold beheld beheld|forsake forsook forsaken
        slay slew slain|smite smote smitten|abide abode abode|beseech besought besought|dwell dwelt dwelt
        spell spelled spelled|spoil spoiled spoiled|learn learned learned|burst burst burst|cast cast cast
        forecast forecast forecast|hurt hurt hurt|rid rid rid|sew sewed sewn|sow sowed sown|stave staved staved""".replace(
            "\n", "|"
        ).split("|")
        if line.strip()
    )
}


def _regular_plural(n: str) -> str:
    if re.search(r"(s|x|z|ch|sh)$", n):
        return n + "es"
    if re.search(r"[^aeiou]y$", n):
        return n[:-1] + "ies"
    return n + "s"


def _regular_3sg(v: str) -> str:
    if re.search(r"(s|x|z|ch|sh|o)$", v):
        return v + "es"
    if re.search(r"[^aeiou]y$", v):
        return v[:-1] + "ies"
    return v + "s"


def _doubles(v: str, wn: WordNet, pos: str, suffix: str) -> str | None:
    """The doubled-consonant form ("stopped") when WordNet's exception list knows it."""
    if re.search(r"[^aeiou][aeiou][bdgklmnprt]$", v):
        cand = v + v[-1] + suffix
        if v in wn.exc[pos].get(cand, []):
            return cand
    return None


def _regular_ed(lemma: str) -> str:
    if lemma.endswith("e"):
        return lemma + "d"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ied"
    return lemma + "ed"


def forms(pos: str, lemma: str, wn: WordNet) -> dict[str, str]:
    """Inflected forms of `lemma` by slot (base, pl, 3sg, past, pp, ing, er, est); only attested ones."""
    out = {"base": lemma}
    inverse = wn.inverse_exc[pos].get(lemma, [])
    if pos == "n":
        plural = max(inverse, key=zipf) if inverse else _regular_plural(lemma)
        out["pl"] = plural
    elif pos == "v":
        out["3sg"] = _regular_3sg(lemma)
        if lemma in IRREGULAR:
            out["past"], out["pp"] = IRREGULAR[lemma]
        elif inverse and not _doubles(lemma, wn, pos, "ed") and _regular_ed(lemma) not in inverse:
            pass  # irregular but not in our table: past/participle unknown, left out
        else:
            # verb.exc also lists regular "-ied" forms ("replied"): those are not irregular
            out["past"] = out["pp"] = _doubles(lemma, wn, pos, "ed") or _regular_ed(lemma)
        ing = _doubles(lemma, wn, pos, "ing")
        if not ing:
            if lemma.endswith("ie"):
                ing = lemma[:-2] + "ying"
            elif lemma.endswith("e") and not lemma.endswith(("ee", "ye", "oe")) and len(lemma) > 2:
                ing = lemma[:-1] + "ing"
            else:
                ing = lemma + "ing"
        out["ing"] = ing
    elif pos == "a":
        er = [f for f in inverse if f.endswith("er")]
        est = [f for f in inverse if f.endswith("est")]
        if er and est:
            out["er"], out["est"] = er[0], est[0]
        else:
            stem = lemma[:-1] if lemma.endswith("e") else lemma
            if re.search(r"[^aeiou]y$", lemma):
                stem = lemma[:-1] + "i"
            elif re.search(r"^[^aeiou]*[aeiou][bdgmnpt]$", lemma):
                stem = lemma + lemma[-1]
            out["er"], out["est"] = stem + "er", stem + "est"
    # A form nobody writes ("informations", "more bigger") is dropped, and so is every form
    # of a word whose inflections we cannot trust.
    floor = {"pl": 1.5, "3sg": 1.5, "past": 1.5, "pp": 1.5, "ing": 1.5, "er": 2.3, "est": 2.0}
    return {slot: f for slot, f in out.items() if slot == "base" or zipf(f) >= floor[slot]}


# Rough share of a lemma's uses that each form takes: "building" is the verb's -ing form (a small share
# of all uses of "build") but the noun's base form, so the noun wins, as it does in real text.
SLOT_WEIGHT = {
    "base": 0.35,
    "pl": 0.35,
    "3sg": 0.1,
    "past": 0.2,
    "pp": 0.2,
    "ing": 0.15,
    "er": 0.07,
    "est": 0.03,
}
BASE_WEIGHT = {"n": 0.65, "v": 0.35, "a": 0.9, "r": 1.0}


def pos_shares(wn: WordNet, word: str) -> dict[str, float]:
    weights: dict[str, float] = {}
    for pos in POS_NAMES:
        w = 0.0
        for lemma in wn.lemmas(pos, word):
            counts = wn.sense_counts(pos, lemma)
            slots = [slot for slot, form in forms(pos, lemma, wn).items() if form == word] or ["base"]
            share = sum(BASE_WEIGHT[pos] if slot == "base" else SLOT_WEIGHT[slot] for slot in slots)
            w += (sum(counts) + 0.2 * len(counts)) * min(share, 1.0)
        if w > 0:
            weights[pos] = w
    total = sum(weights.values())
    return {p: w / total for p, w in weights.items()} if total else {}


def read_deny(path: Path) -> tuple[set[str], set[tuple[str, str]], set[tuple[str, str]]]:
    """Denied words, denied lemma pairs ("a > b": every form), denied form pairs ("form: a > b": only the
    surface form a, so "form: country > nation" keeps "countries" -> "nations")."""
    words: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    form_pairs: set[tuple[str, str]] = set()
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if ">" in line:
                is_form = line.startswith("form:")
                a, b = (x.strip() for x in line.removeprefix("form:").split(">", 1))
                (form_pairs if is_form else pairs).add((a, b))
            else:
                words.update(line.split())
    return words, pairs, form_pairs


def usable(word: str) -> bool:
    return word.isalpha() and word.islower() and len(word) >= 3 and word not in FUNCTION_WORDS


def _spelling_variant(a: str, b: str) -> bool:
    """ "favorable"/"favourable", "realize"/"realise", "center"/"centre": the same word, spelt twice."""
    norm = [
        re.sub(r"our", "or", re.sub(r"is(e|ing|ed|ation)", r"iz\1", re.sub(r"re$", "er", x))) for x in (a, b)
    ]
    return norm[0] == norm[1] or a.replace("-", "") == b.replace("-", "")


def _inflects_other(wn: WordNet, pos: str, w: str) -> bool:
    """ "greatest" is a lemma of its own in WordNet ("sterling") but in text it is great's superlative."""
    return pos == "a" and w.endswith(("er", "est")) and bool(wn.lemmas("a", w) - {w})


def pairs(wn: WordNet, deny_words: set[str], deny_pairs: set[tuple[str, str]]):
    """(pos, source lemma, substitute lemma, needs_lm_check, rank) for the curated synonym pairs.

    Two tiers. Sure (no LM check): the substitute shares the source's first sense, that sense holds at
    least DOMINANT_SENSE of the source's tagged uses, it is also the substitute's own first sense and
    tagged at least once for it, both words are mostly used in this part of speech, their frequencies
    are close. Plausible (LM check): the shared sense is any sense holding a quarter of the source's
    uses (or the first, when untagged) and one of the substitute's two first senses.
    """
    for pos in POS_NAMES:
        for w, offsets in wn.index[pos].items():
            if not usable(w) or w in STOP_LEMMAS or w in deny_words or _inflects_other(wn, pos, w):
                continue
            zw = zipf(w)
            if zw < MIN_SOURCE_ZIPF:
                continue
            w_pos = pos_shares(wn, w).get(pos, 0.0)
            if w_pos < 0.2:
                continue
            counts = wn.sense_counts(pos, w)
            total = sum(counts)
            found: dict[str, tuple[bool, tuple]] = {}
            for rank, offset in enumerate(offsets):
                share = counts[rank] / total if total else (1.0 if rank == 0 else 0.0)
                if share < MIN_SENSE_SHARE and not (rank == 0 and total < MIN_TAGGED):
                    continue
                _, _, words = wn.synsets[(pos, offset)]
                if all(x != w for x, _ in words):  # w is a name in this sense ("Will", "Bill")
                    continue
                # Adjectives: also the words of the synsets "similar to" this one (head <-> satellites):
                # "necessary" ~ "essential"; never the tier without the LM check.
                similar = []
                if pos == "a" and rank == 0 and SIMILAR_ADJECTIVES:
                    for other in [wn.heads.get(offset), *wn.satellites.get(offset, [])]:
                        if other is not None:
                            similar += [(x, other) for x, _ in wn.synsets[(pos, other)][2]]
                for s, s_offset in [(x, offset) for x, _ in words] + similar:
                    if s == w or s in found or not usable(s) or s in STOP_LEMMAS or s in deny_words:
                        continue
                    if (w, s) in deny_pairs or _spelling_variant(w, s) or w.startswith(s) or s.startswith(w):
                        continue
                    if _inflects_other(wn, pos, s):
                        continue  # "bigger" is a lemma of its own in WordNet's clusters
                    zs = zipf(s)
                    if zs < MIN_SUBSTITUTE_ZIPF or zs < zw - MAX_ZIPF_DROP or zs > zw + MAX_ZIPF_RISE:
                        continue
                    s_offsets = wn.index[pos].get(s, [])
                    if s_offset not in s_offsets[: 1 if s_offset != offset else SUBSTITUTE_SENSES]:
                        continue
                    s_rank = s_offsets.index(s_offset) + (s_offset != offset)
                    s_tagged = wn.sense_count(pos, s, s_offset)
                    s_pos = pos_shares(wn, s).get(pos, 0.0)
                    s_total = sum(wn.sense_counts(pos, s))
                    if s_pos < 0.4 or (s_tagged == 0 and (s_total > 0 or zs < 3.5)):
                        continue  # the substitute is used in another sense or part of speech (or never seen)
                    if pos == "n" and s.endswith("s") and wn.lemmas("n", s) - {s}:
                        continue  # "authorities" for "government": a plural-only sense
                    sure = (
                        rank == 0
                        and s_rank == 0
                        and total >= MIN_TAGGED
                        and share >= DOMINANT_SENSE
                        and s_tagged >= max(1.0, DOMINANT_SENSE * s_total)
                        and w_pos >= 0.7
                        and s_pos >= 0.7
                        and abs(zs - zw) <= 0.8
                    )
                    # "Close" pairs (both words' first senses, the source's dominant) are proposed as
                    # "lex:"; the rest as "lex-wide:" so the search can trust them less.
                    close = (
                        rank == 0
                        and s_rank <= 1
                        and s_offset == offset
                        and (total < MIN_TAGGED or share >= 0.4)
                    )
                    found[s] = (not sure, (not sure, not close, rank, s_rank, -zs))
            best = sorted(found.items(), key=lambda kv: kv[1][1])[:MAX_SUBSTITUTES]
            for s, (check, order) in best:
                yield pos, w, s, check, "~" if order[1] else ">"


def read_curated(path: Path):
    """(a, b, pos, needs_lm_check, condition) from data/lexicon_curated.tsv, both directions where marked."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t") + [""] * 6
        a, b, pos, direction, check, cond = (c.strip() for c in cells[:6])
        yield a, b, pos, check == "1", cond
        if direction == "<>":
            yield b, a, pos, check == "1", cond


def phrase_forms(pos: str, phrase: str, wn: WordNet) -> dict[str, str]:
    """forms() of a phrase's first word, the rest appended ("come into" -> "came into")."""
    head, _, rest = phrase.partition(" ")
    return {slot: f + (" " + rest if rest else "") for slot, f in forms(pos, head, wn).items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    ap.add_argument("--out", type=Path, default=DATA, help="where the built tables go (default: the package)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if not (args.wordnet / "data.noun").exists():
        print(f"no WordNet at {args.wordnet}: apt-get install wordnet-base", file=sys.stderr)
        return 2
    wn = WordNet(args.wordnet)
    deny_words, deny_pairs, deny_forms = read_deny(DATA / "lexicon_deny.txt")

    # pos.tsv: every word that is common enough to matter.
    vocab: set[str] = set(FUNCTION_WORDS)
    for pos in POS_NAMES:
        for lemma in wn.index[pos]:
            if lemma.isalpha() and lemma.islower():
                for f in forms(pos, lemma, wn).values():
                    vocab.add(f)
    rows = []
    for word in sorted(vocab):
        z = zipf(word)
        if z < POS_TABLE_MIN_ZIPF:
            continue
        shares = {"f": 1.0} if word in FUNCTION_WORDS else pos_shares(wn, word)
        if not shares:
            continue
        cells = ",".join(f"{p}={v:.2f}" for p, v in sorted(shares.items(), key=lambda kv: -kv[1]))
        rows.append(f"{word}\t{z:.2f}\t{cells}")
    (args.out / "pos.tsv").write_text(
        "# word\tzipf\tpart-of-speech shares (built by scripts/build_lexicon.py from WordNet 3.0 + wordfreq)\n"
        + "\n".join(rows)
        + "\n",
        encoding="utf-8",
    )

    # lexicon.tsv: surface -> substitute, same slot. Curated pairs first (they win a tie).
    out: dict[tuple[str, str, str], tuple[bool, str, str]] = {}
    n_pairs = 0
    curated = [
        (pos, a, b, check, cond) for a, b, pos, check, cond in read_curated(DATA / "lexicon_curated.tsv")
    ]
    curated = [(pos, a, b, check, cond, ">") for pos, a, b, check, cond in curated]
    wordnet = [(pos, w, s, check, "", sep) for pos, w, s, check, sep in pairs(wn, deny_words, deny_pairs)]
    for pos, w, s, check, cond, sep in curated + wordnet:
        hand_picked = n_pairs < len(curated)  # a curated row may lower the register on purpose
        n_pairs += 1
        if (w, s) in deny_pairs:
            continue  # a denied pair is denied in every form, whichever input listed it ("richest")
        fw, fs = phrase_forms(pos, w, wn), phrase_forms(pos, s, wn)
        by_surface: dict[str, set[str]] = defaultdict(set)
        for slot, form in fw.items():
            if slot in fs:
                by_surface[form].add(fs[slot])
        own = sum(wn.sense_counts(pos, w.split(" ")[0]))
        for surface, subs in by_surface.items():
            if len(subs) != 1:  # "cut" is past and participle; "chose"/"chosen" differ: ambiguous
                continue
            if " " not in w and any(
                sum(wn.sense_counts(pos, other)) > own for other in wn.lemmas(pos, surface) - {w}
            ):
                continue  # "found" is mostly find's past, not the verb "found" ("launch")
            sub = next(iter(subs))
            if sub == surface or (surface, sub) in deny_pairs or (surface, sub) in deny_forms:
                continue
            if pos == "n" and surface != w and surface in wn.index["n"]:
                continue  # a plural WordNet lists as a noun of its own has senses the singular lacks:
                # "manners" (conduct) -> "ways", "effects" (belongings), "premises", "lodgings"
            if " " not in surface + sub:
                rise = zipf(sub) - zipf(surface)
                if rise < -MAX_FORM_DROP or (rise > MAX_FORM_RISE and not hand_picked):
                    continue
            key = (surface, sub, pos)
            if key not in out:
                out[key] = (check, f"{w}{sep}{s}", cond)
    # idioms.txt: WordNet's multi-word expressions in every inflection of their first word, so the
    # lexical family leaves "found fault", "at large", "on the contrary" whole.
    idioms: set[str] = set()
    for pos in POS_NAMES:
        for lemma in wn.index[pos]:
            parts = lemma.split("_")
            if not 2 <= len(parts) <= 4 or not all(p.isalpha() and p.islower() for p in parts):
                continue
            if min(zipf(p) for p in parts) < 2.5:
                continue
            heads = set(forms(pos, parts[0], wn).values()) if pos == "v" else {parts[0]}
            for head in heads:
                idioms.add(" ".join([head, *parts[1:]]))
    idioms.update(EXTRA_IDIOMS)
    sources = {surface for surface, _sub, _pos in out}
    idioms = {i for i in idioms if any(p in sources for p in i.split(" "))}  # only those that guard a row
    (args.out / "idioms.txt").write_text(
        "# WordNet multi-word expressions, inflected (built by scripts/build_lexicon.py)\n"
        + "\n".join(sorted(idioms))
        + "\n",
        encoding="utf-8",
    )

    lines = [
        f"{surface}\t{sub}\t{pos}\t{int(check)}\t{pair}\t{cond}"
        for (surface, sub, pos), (check, pair, cond) in sorted(out.items())
    ]
    (args.out / "lexicon.tsv").write_text(
        "# surface\tsubstitute\tpos\tneeds_lm_check\tlemma pair\tcontext condition (built by scripts/build_lexicon.py)\n"
        + "\n".join(lines)
        + "\n",
        encoding="utf-8",
    )
    print(
        f"pos.tsv: {len(rows)} words; idioms.txt: {len(idioms)}; lexicon.tsv: {len(lines)} rows from {n_pairs} lemma pairs"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
