"""Labels that name a model or a tool-call family: the call under one is a format shown.

Documentation that compares tool-call formats shows one call in several families'
markup, each copy under a label or a heading that names the model or the family whose
format it is. A model answering never titles its own call with a model's name: the call
under such a label is a format shown, not made (rule G2, promise 3). Sources (each
independent): a blog post on the M×N problem of tool calling showing ``search(query=
"GPU")`` under "gpt-oss (Harmony):", "DeepSeek:" and "GLM5:" (thetypicalset.com: the
spent ``fresh8hf-thetypicalset-same-call-three-wire-formats``), and a reference of
tool-call parser patterns (ai-dynamo's tool-parser-generator skill, ``#### DeepSeek
V3.1``, ``#### Bracket Markers (Mistral-style)``, ``### 6. Harmony`` over each call:
``fix9a-dynamo-parser-patterns-format-headings``).

The names are read from the family registry (:func:`~toolfix._repair.families.
families`), never listed here: each family's name and engine aliases, and the first word
of each model it lists ("DeepSeek V3, V3.1, R1" gives ``deepseek``), except for the
families any model may write (``json``, ``react``: their models are "any …"). A label
word names one when it is a name, optionally followed by a version (``GLM5``,
``DeepSeek-V3.1``, ``Qwen3``, ``Hermes-2``) or ``-style``. Two kinds of label:

- **a label line** (the lead-in's last line, before its ``:``): every word names a model
  or a family, or is a version, at most :data:`_LABEL_WORDS` words ("gpt-oss
  (Harmony)", "DeepSeek", "GLM5"): :func:`label_names_family`;
- **a Markdown heading**: one of its words names a model or a family ("Bracket Markers
  (Mistral-style)", "DeepSeek V3"): :func:`heading_names_family`.
"""

from __future__ import annotations

import functools
import re

from .families import families

__all__ = ["heading_names_family", "label_names_family"]

#: The most words a label line naming a model holds.
_LABEL_WORDS = 4
#: The shortest name read (``hy`` of ``hy_v3`` is too short to say anything).
_NAME_CHARS = 3
#: A name opens with that many letters (a model list's ``V3.1``, ``M2.1`` are versions).
_NAME_RE = re.compile(rf"[a-z]{{{_NAME_CHARS}}}")
#: What may follow a name in a label word: a version (``5``, ``-V3.1``, ``_v4``,
#: ``3.5``), or a ``-style``/``-based`` suffix.
_SUFFIX_RE = re.compile(r"(?:[-_ .]?v?\d[\w.]*)?(?:-(?:style|based))?")
#: A label word that is only a version (``V3``, ``3.1``, ``R1``... alone).
_VERSION_RE = re.compile(r"(?:v|r|k)?\d[\w.]*")
#: Where a label splits into words: blanks, brackets, ``/``, ``,``, ``:``, emphasis.
_SPLIT_RE = re.compile(r"[\s()\[\]/,:*#`]+")
#: A list number opening a heading (``6.``, ``2)``).
_NUMBER_RE = re.compile(r"\d{1,3}[.)]?")
#: The words that open a family's model list when any model may write it.
_ANY = frozenset(("any", "many"))


@functools.cache
def _names() -> frozenset[str]:
    """The registry's names (lower case): each family's name and aliases, and the first
    word of each model it lists (the families any model may write left out)."""
    out: set[str] = set()
    for family in families():
        models = [m.strip() for m in family.models.split(",") if m.strip()]
        if not models or models[0].split()[0].lower() in _ANY:
            continue  # (a format any model writes names no model)
        out.add(family.name.lower())
        out.update(a.lower() for a in family.aliases)
        out.update(m.split()[0].lower().split("/")[0] for m in models)
    return frozenset(n for n in out if _NAME_RE.match(n) is not None and n not in _ANY)


def _names_one(word: str) -> bool:
    """Is ``word`` (lower case) a registry name, optionally followed by a version or a
    ``-style`` suffix (``glm5``, ``deepseek-v3.1``, ``mistral-style``)?"""
    names = _names()
    if word in names:
        return True
    for cut in range(_NAME_CHARS, len(word)):
        if word[:cut] in names and _SUFFIX_RE.fullmatch(word, cut) is not None:
            return True
    return False


def _words(label: str) -> list[str]:
    words = [w.strip("-_.") for w in _SPLIT_RE.split(label.lower())]
    return [w for w in words if w and _NUMBER_RE.fullmatch(w) is None]


def label_names_family(label: str) -> bool:
    """Is ``label`` (a lead-in's last line, its ``:`` removed) only names of models or
    families and versions, at most :data:`_LABEL_WORDS` words, one a name ("gpt-oss
    (Harmony)", "GLM5", "DeepSeek V3")?"""
    words = _words(label)
    if not words or len(words) > _LABEL_WORDS:
        return False
    named = [w for w in words if _names_one(w)]
    return bool(named) and all(w in named or _VERSION_RE.fullmatch(w) for w in words)


def heading_names_family(line: str) -> bool:
    """Does the Markdown heading ``line`` (``#### DeepSeek V3.1``) name a model or a
    family in one of its words?"""
    return any(map(_names_one, _words(line.lstrip("#"))))
