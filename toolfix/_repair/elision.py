"""Elided values: a bare ``...`` where JSON expects a value or a member.

``{"question": "...", "choices": [...]}`` (hermes-agent#59291) and
``{"command": "glob **/server/**", ...}`` (opencode#856) are calls quoted with their
values left out: the ellipsis is a placeholder for text the writer did not show, not an
empty value. json-repair reads ``[...]`` as ``[]``, ``[1, ...]`` as ``[1]`` and
``{"a": 1, ...}`` as ``{"a": 1}``, so a call would come out with arguments nobody
wrote. :func:`elided_at` finds such a placeholder before the text is repaired, and the
caller refuses the text (promise 6: an invalid call with its raw text, never made-up
arguments).

Only a bare ellipsis counts: outside string literals (double- or single-quoted), in a
value or member position (after ``[``, ``{``, ``,`` or ``:``, before ``]``, ``}`` or
``,``). ``"..."`` is a string value like any other, with one exception: **an array whose
items are all the string ``"..."``** (``["..."]``, ``["...", "..."]``) holds no item at
all. That is how prompts and docs write "a list of strings" in a JSON template
(``"strengths": ["..."], "weaknesses": ["..."]``, ``"issues": ["..."]``, ``"keywords":
["..."]``, ``"refs": ["..."]``: prompt templates in five files of unrelated public
projects, found by exact search in the code index, which does not name their
repositories), and how a reporter elided a call's messages
(``<parameter=messages>["..."]``: jundot/omlx#2221, the one call-side source so far), so
it is the ``[...]`` placeholder with quotes. A lone ``"..."`` as a whole string value stays
data: the corpora hold four real calls that carry one as written
(``anch-free-claude-code-979-devstral-args``, ``qwen_xml-q27-24-broken-opener``...).

**Composed values** are the same refusal for another placeholder: a value written as a
call to a function (``"first Date": get_current_date (), "last_Date": birthdate ({user:
"Oliver"})``: ollama/ollama#8517, a model composing nested calls; ``"location":
get_location()``, ``"key": os.environ.get("KEY")``) holds no value yet: it names what
would compute it. json-repair reads the bare words as strings (``"get_current_date ()"``),
so a call would run with the expression as its argument. :func:`composed_at` finds a bare
identifier (dotted names too) followed by ``(`` in a value position, outside string
literals, and the caller refuses the text; the schema-anchored reader's bare values
(:func:`is_placeholder`) refuse a value that opens with one.

**Elision marks.** A quoter cuts text with an ellipsis in brackets: ``(...)``,
``[...]``, ``{...}``, ``<...>`` (``<parameter=path>\n(...)\n</parameter>`` and a
``content`` of ``{\n(...)\n }``: ggml-org/llama.cpp#24644, both values cut by the
reporter; ``<parameter=messages>\n["..."]\n``: jundot/omlx#2221). The mark is never a
value anyone wrote for a parameter: written where a value goes, in JSON (``{"a":
(...)}``) or as the whole raw text of a value in a family whose values are untyped text
(element-per-argument tags, ``key=value`` runs), or as a container holding nothing else
(``{ (...) }``), it stands for a value the text does not hold. :func:`elided_at` reads
``(...)`` as it reads a bare ``...``; :func:`elided_value` finds a value that is a mark
(raw text, or a string of a call read from text), and the admission gate refuses the
call (rule G5: the arguments are not known). A bare ``...`` as a raw value stays data,
as the quoted ``"..."`` does (the corpora hold real calls that carry one:
``qwen_xml-q27-24-broken-opener``).

**Containers of nothing but ellipses.** A list or object value whose every item, at
every depth, is an ellipsis or a mark (``[{"q": "..."}]``: Kuberwastaken/claurst#395, a
DeepSeek V4 DSML call with the question elided; ``["..."]``: jundot/omlx#2221) is the
container form of the same placeholder: it holds no item anyone wrote. The rule reads
the value once parsed (a family that types its parameters, DSML ``string="false"``,
parses the JSON before the gate sees it), so :func:`elided_value` refuses it whatever
format carried it. One ellipsis beside a real item (``["a", "..."]`` parsed, ``{"title":
"...", "content": "the body"}``) is data, as a lone ``"..."`` is.

**Slots that name their own parameter.** A call template on a tool's page writes each
value as a slot holding the parameter's own name, for the reader to replace:
``"filePath": "<filePath>"`` (glama.ai's "Tool call template … Replace each placeholder
with a value matching the input schema", ``prec7-glama-filemcp-tool-call-template``),
``"path": "<path>"`` (the knowns-dev/knowns kn-research skill, which an agent is given as
its prompt and may echo: ``prec7-knowns-kn-research-skill-slot-values``). The slot names
what goes there; it is no value anyone wrote for the parameter, so the gate refuses the
call as it refuses an elision mark (rule G5). Only the parameter's own name counts, as the
tool declares it (case, ``_``, ``-``, ``.`` and blanks aside): a slot in a value is data
otherwise, since a user may really give one (BFCL's ``simple_python_106`` asks for the
dataset ``your_dataset_name``, and the corpora hold its call).
"""

from __future__ import annotations

import re

from .slots import template_slot

__all__ = [
    "COMPOSED",
    "ELIDED",
    "composed_at",
    "elided_at",
    "elided_container",
    "elided_value",
    "is_placeholder",
    "names_own_slot",
]

#: The error a refused text carries.
ELIDED = "a value is elided (...): the arguments are not known"
#: The error a text with a composed value carries.
COMPOSED = "a value is a call to a function (name(...)): the arguments are not known"

#: An ellipsis as a JSON string's whole body (``\u2026`` written or escaped).
_DOTS = r"(?:\.{3,}|\u2026|\\u2026)"
# A string literal (consumed whole, so nothing inside it is looked at) or a bare
# ellipsis between JSON punctuation. Every alternative is an unrolled loop or bounded
# run, and a failed string match stops at the text's end once: one pass, linear.
_ELIDED = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"'
    r"|'[^'\\]*(?:\\.[^'\\]*)*'"
    r"|(?P<gap>[\[{,:][ \t\r\n]*\(?(?:\.{3,}|\u2026)\)?[ \t\r\n]*[\]},])"
    rf'|(?P<items>\[[ \t\r\n]*"{_DOTS}"(?:[ \t\r\n]*,[ \t\r\n]*"{_DOTS}")*[ \t\r\n]*\])'
)


# A string literal (consumed whole) or a bare call expression in a value position: after
# ``:``, ``[`` or ``,``, an identifier (dotted names too), blanks, then ``(``. Linear as
# :data:`_ELIDED` (the identifier's run is bounded, the blanks' run is one class).
_COMPOSED = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*"'
    r"|'[^'\\]*(?:\\.[^'\\]*)*'"
    r"|(?P<call>[\[:,][ \t\r\n]*[A-Za-z_$][\w$]{0,63}(?:\.[A-Za-z_$][\w$]{0,63}){0,7}[ \t]*\()"
)
_ELLIPSIS = re.compile(r"\.{3,}|\u2026")


#: A bare value that opens with a call expression (``get_current_date ()``,
#: ``os.environ.get("KEY")``, ``birthdate ({user: …`` read up to a closer): its head.
_CALL_HEAD = re.compile(r"[A-Za-z_$][\w$]{0,63}(?:\.[A-Za-z_$][\w$]{0,63}){0,7}[ \t]*\(")


#: The most leaves and containers :func:`_all_elided` looks at in one value.
_LEAVES = 64

#: An elision mark: an ellipsis in brackets (blanks allowed inside).
_MARK = re.compile(r"[(\[{<][ \t]*(?:\.{3,}|\u2026)[ \t]*[)\]}>]")


def is_placeholder(value: str) -> bool:
    """Is ``value`` (a bare, stripped value) an ellipsis (``...``, ``....``, ``\u2026``),
    an elision mark (``(...)``) or a call expression (``get_current_date ()``): what
    stands for a value, not one?"""
    return (
        _ELLIPSIS.fullmatch(value) is not None
        or _MARK.fullmatch(value) is not None
        or ("(" in value and _CALL_HEAD.match(value) is not None)
    )


def _is_mark(value: str) -> bool:
    """Is the raw text ``value`` an elision mark, or a container holding one (or a bare
    ellipsis) and nothing else (``{\n(...)\n }``)?"""
    text = value.strip()
    if len(text) > 64 or not text:
        return False
    if _MARK.fullmatch(text) is not None:
        return True
    if text[0] in "{[" and text[-1] in "}]":
        inner = text[1:-1].strip()
        return _MARK.fullmatch(inner) is not None or _ELLIPSIS.fullmatch(inner) is not None
    return False


def _all_elided(value: object, budget: list[int]) -> bool:
    """Is every leaf of the JSON value ``value`` (a list or dict, non-empty at every
    level) an ellipsis or a mark (``[{"q": "..."}]``)? ``budget`` bounds the leaves and
    containers looked at (one count each): past it, the answer is no."""
    budget[0] -= 1
    if budget[0] < 0:
        return False
    if isinstance(value, str):
        text = value.strip()
        return _ELLIPSIS.fullmatch(text) is not None or _MARK.fullmatch(text) is not None
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list) or not value:
        return False
    return all(_all_elided(item, budget) for item in value)


#: A template slot: a name in angle brackets, braces (one or two), square brackets or
#: ``${…}``, and nothing else.
_SLOT = re.compile(r"(?:<|\{\{?|\[|\$\{)[ \t]*([A-Za-z_][\w .-]{0,63}?)[ \t]*(?:>|\}\}?|\])")
#: The shortest parameter name a slot is read for (``<b>``, ``<p>``, ``<br>`` are tags).
_SLOT_NAME = 3
#: What a parameter's name is compared without (case folded too).
_NAME_MARKS = str.maketrans("", "", "_-. ")


def names_own_slot(key: str, value: str) -> bool:
    """Is ``value`` a template slot that names its own parameter ``key`` (``"<filePath>"``
    for ``filePath``, ``"{{path}}"`` for ``path``; case, ``_``, ``-``, ``.`` and blanks
    aside)? It names what goes there, not a value."""
    if not value or value[0] not in "<{[$" or len(value) > 72:
        return False
    m = _SLOT.fullmatch(value)
    return m is not None and len(_fold(key)) >= _SLOT_NAME and _fold(m.group(1)) == _fold(key)


def _fold(name: str) -> str:
    return name.translate(_NAME_MARKS).casefold()


def elided_value(arguments: dict[str, object]) -> str | None:
    """The first key of ``arguments`` whose value is an elision mark (a raw text value:
    :func:`_is_mark`), a template slot naming the key itself (:func:`names_own_slot`) or
    a placeholder (:func:`~toolfix._repair.slots.template_slot`), or
    a list or object whose every item is an ellipsis or a mark, at every depth
    (``[{"q": "..."}]``, ``{"a": ["..."]}``: :func:`_all_elided`), or ``None``."""
    for key, value in arguments.items():
        if isinstance(value, str):
            if ("." in value or "\u2026" in value) and _is_mark(value):
                return key
            if names_own_slot(key, value) or template_slot(key, value):
                return key
        elif isinstance(value, (list, dict)) and _all_elided(value, [_LEAVES]):
            return key
    return None


def elided_at(text: str) -> int:
    """Where the first bare ellipsis placeholder of ``text`` is, or -1 if none is."""
    if "..." not in text and "\u2026" not in text and "\\u2026" not in text:
        return -1
    for m in _ELIDED.finditer(text):
        if m.lastgroup is not None:
            return m.start()
    return -1


def elided_container(value: str) -> bool:
    """Is ``value`` a JSON array or object text (``"[...]"``, ``'["a", ...]'``) with a
    bare ellipsis in it: a placeholder, not one item of an array?"""
    return value.lstrip()[:1] in ("[", "{") and elided_at(value) >= 0


def composed_at(text: str) -> int:
    """Where the first value written as a call expression (``name(...)``, outside string
    literals, after ``:``, ``[`` or ``,``) is in ``text``, or -1 if none is."""
    if "(" not in text:
        return -1
    for m in _COMPOSED.finditer(text):
        if m.lastgroup == "call":
            return m.start("call")
    return -1
