"""The composer's guide: which sentences give the writer away and why, and other wordings for one.

    analysis.py      guide(ident, text, cache) -> GuideReport: per sentence its contribution, weight,
                     share, the attacker families it feeds, reasons in words; GuideCache (analysis:
                     style/ and wording only, never the engine or rewrite/)
    alternatives.py  sentence_alternatives(...): the rewrite search's rule edits and the model's
                     candidates confined to one sentence, through the rewrite's guards
    service.py       what the host keeps and loads for it: one GuideCache per process, the engine the
                     alternatives use (or why none)

The host's `guide` and `guide.alternatives` (host/handlers/guiding.py) call it; `fantasma eval --guide`
(eval/guide_vs_attackers.py) measures it against the real attackers.
"""
