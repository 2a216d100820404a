"""The symbol ranking of hybrid search (docs/search.md#hybrid).

An agent describes what it looks for much as a docstring does ("adds the default help
command"), and in code the words that tell two siblings apart sit in their names and doc
summaries, not in their bodies: ``InitDefaultHelpCmd`` and ``InitDefaultHelpFlag`` share most
of their lines. So hybrid search fuses a third ranking with BM25 and the vectors: the
candidates ordered by BM25 over their **symbol field** alone, which is

* the symbol's own name (``InitDefaultHelpCmd`` of ``Command.InitDefaultHelpCmd``: the class
  or receiver is shared by the siblings, and its words, ``OptionParser``'s "option", would
  credit every method; a part suffix ``#2`` dropped),
* the summary sentence of the symbol the chunk starts: the first sentence of its doc summary
  (``metadata["doc"]``, see docs/data-model.md), ending at the first ``.``, ``!`` or ``?``
  followed by white space, as Javadoc and PEP 257 take a summary,
* a note's title.

Words are the keyword index's own (:meth:`ctx_tree_store.Store.index_words`: identifiers
split, Porter-stemmed). Document frequencies come from the candidates themselves, so a word
every candidate shares weighs nothing and a word one sibling has decides. ``k1`` 1.2, ``b``
0.75 (the usual BM25 defaults). Candidates whose field holds no query word are left out of
this ranking (they keep their BM25 and vector ranks).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctx_tree_schema import Node

K1 = 1.2
B = 0.75
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def summary_sentence(doc: str) -> str:
    """The first sentence of ``doc``: up to its first ``.``/``!``/``?`` followed by white
    space or the end (all of ``doc`` when there is none)."""
    end = _SENTENCE_END.search(doc)
    return doc[: end.end()] if end else doc


def symbol_field(node: Node) -> str:
    """The text of ``node``'s symbol field: the symbol's own name, its summary sentence and a
    note's title (``""`` when it has none)."""
    meta = node.metadata
    name = str(meta.get("symbol") or "").split("#", 1)[0].rsplit(".", 1)[-1]
    doc = meta.get("doc")
    parts = (name, summary_sentence(doc) if isinstance(doc, str) else None, meta.get("title"))
    return " ".join(str(p) for p in parts if p)


def rank(
    query: str, nodes: Sequence[Node], words: Callable[[str], list[str]]
) -> list[tuple[str, float]]:
    """``(id, BM25 score)`` of the ``nodes`` whose symbol field holds a word of ``query``,
    best first (ties keep the given order). ``words`` splits text into index words
    (:meth:`ctx_tree_store.Store.index_words`)."""
    wanted = set(words(query))
    if not wanted or not nodes:
        return []
    fields = [Counter(words(symbol_field(n))) for n in nodes]
    total = len(fields)
    df: Counter[str] = Counter()
    for terms in fields:
        df.update(w for w in terms if w in wanted)
    avg = sum(sum(t.values()) for t in fields) / total or 1.0
    scored: list[tuple[float, int]] = []
    for i, terms in enumerate(fields):
        length = sum(terms.values())
        score = 0.0
        for word in wanted:
            tf = terms.get(word, 0)
            if tf:
                idf = math.log(1.0 + (total - df[word] + 0.5) / (df[word] + 0.5))
                score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avg))
        if score > 0:
            scored.append((score, i))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [(nodes[i].id, score) for score, i in scored]
