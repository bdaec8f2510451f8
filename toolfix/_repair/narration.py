"""Text that tells about a call instead of making one (issue 28's negative corpus).

Tutorials, glossaries, diagrams and worked examples show calls to explain how tool
calling works. Each class here is named by what the text does, and comes from at least
two independent public pages (``benchmarks/corpora/prose_negatives.jsonl``, ids
``prose3-``, ``prose4-``, ``fresh2-`` and ``fresh3``):

- **narrated**: the call is the object of a sentence about what a third party (the
  model, the LLM, the assistant) emits, or follows an example marker (``like``,
  ``such as``, ``e.g.``, ``for example``) ending the sentence's lead-in: "…decides which
  to call, and emits {…}. The runtime parses…" (runlocalai.co), "2. Model emits a
  function call: {…}." (heyitskundan.com), "it writes something like: {…}"
  (theneuralbase.com), "it returns something like:\\n{…}" (meaningfool.net), "A function
  call from the model is, fundamentally, JSON:\\n{…}" (build-agents.dev). The third
  party may be the pronoun ``it`` when what it emits is named as a call ("If it wants a
  tool, it outputs a JSON object: {…}": insiderllm.com; "it outputs JSON like {…}":
  theneuralbase.com): a model never calls its own call "it". An example named at the
  end of a lead-in that ends with ``:`` ("an example query:", "Example call:", "a
  sample call:") is one too: "So, crafting an example query: {…}" (a model's thinking
  pasted in lmstudio-ai/lmstudio-bug-tracker#825), "Here is an example call: {…}. Note
  that you must use this format." (a text Gitlawb/openclaude's call parser must not
  read as a call). A lead-in written in the first person ("I'll call it like: …") is the model's
  own, never narration. Decided by the text before the call only (:func:`narrated`).
  Four more ways (branch prec2), each from two pages or more:

  - *quoted*: the call is inside a quotation attributed to a third party, opened after
    ``:``, ``,`` or a verb of saying, with prose (no code) before the quote: "the model
    mixing the two: \"Sure, I'll read the file: {…}\"" (news.ycombinator.com
    item 48207313), "le modèle peut dire : « J'ai besoin d'appeler get_weather(…) »"
    (lcarli.github.io). A closed quotation in the lead-in is someone else's words, so
    its "I" is not the writer's first person ("…a model that says: \"I want to use…\"
    …it outputs a JSON object: {…}": theneuralbase.com).
  - *looks like*: a lead-in that ends by saying how a call looks ("A typical call looks
    like this:": toolswift.com; "…look like, on the wire…": ajinkya.ai).
  - *another language*: an example or expected output named on the lead-in's last line
    in French, Spanish, Portuguese, German, Italian or Chinese ("Exemple de sortie
    attendue :": forum.hacf.fr; "第一次回傳的結果如下:": dotblogs.com.tw). A call "from
    model" without the article is a call from the model ("Tool call from model:":
    gemma4-research's notes of Google's Gemma 4 docs).
  - *nested*: the call is inside a larger JSON document (an expected output's
    ``actions``, a response's ``output`` items) whose opener starts its own line and is
    itself told about (the same two pages): the document's lead-in decides.
- **counterfactual**: the call is one that was not made, or should have been: the
  lead-in ends with ``instead of``/``rather than`` and a verb of emitting or calling
  ("Instead of returning {…}, the model writes…": aitoolsguidebook.com), with ``should
  have``/``would have``/``was supposed to`` and such a verb ("it should have output
  {…}"), or names the call that would have been right ("The correct call would be:
  {…}", "Expected output:"). What such a lead-in introduces is a call held up against
  what happened; the first person does not change that ("I should have called …"), so
  this is decided before the first-person test (:data:`_COUNTERFACTUAL_RE`).
- **diagram**: the call is the label of a sequence-diagram message line
  (``Script->>Tools: get_weather(city="Paris")``: jeffrey-groneberg.github.io,
  backbenchlearner.com, langchain-ai/docs#1222).
- **assigned**: the call is the value assigned to a variable in code
  (``model_output = {…}``: grubenwald.com; ``example = \"\"\"…\"\"\"``: a ReAct
  transcript in bsamud/learn-ai-engineering).
- **tabled**: the call is in a body row of a Markdown table, a line starting with ``|``
  after the ``|---|---|`` line under the header (a table of error patterns, ai-manual.ru; a
  table of protocol blocks in ilyakosilov/tec_agent_project's report): a cell shown,
  not sent. Decided by what precedes the row (the header row itself is not read).
- **recorded**: the call is inside a chat message record, an object with a
  ``"role": "assistant"`` key, first or after others (an API response or message quoted
  in documentation: keugenek.github.io/plantuml-ent-kit, the laminate crate's
  ``openai_tool_calls.json`` and ``anthropic_tool_use.json``, the kindo.ai Messages API
  tool-use page).
- **answered** and **turn-framed**: a call displayed in a session transcript, answered
  by its result (a ReAct ``Action`` whose ``Observation`` follows it: lkim0402.github.io's
  worked example, bsamud/learn-ai-engineering; a call and its output label) or between
  a user's turn and the agent's prose (:mod:`.transcripts`). Decided by what follows
  the call, so only for calls that wait for the end of a stream (a call holding a
  family's closer may leave a stream at it).
- **fenced together**: a call inside a fenced block (its opener has an info string) whose
  lead-in before the fence tells about it, wherever in the fence the call is: a fence
  shows one example however many calls it holds (two ``<tool_call>`` blocks in one
  fence under a heading about calls: the LynnCen/ResumeBuilder notes; Kimi's two calls
  in one fence under "#### Example 2: Multiple Tool Calls": the Athena spec).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .._errors import LimitExceededError
from .catalogue import in_catalogue
from .formatlabels import label_names_family
from .history import history_spans
from .leadins import (
    CONDITIONAL_RE,
    EQUIVALENT_RE,
    HYPOTHETICAL_RE,
    documents_markup,
    heading_names_calls,
    heading_names_example,
    heading_names_section,
    heading_over,
    io_pair,
    label_names,
)
from .shelldata import command_data_spans
from .text import escaped, find_bracket_end
from .transcripts import labels_result, shown_spans

__all__ = ["answered_spans", "narrated", "told_spans"]

Span = tuple[int, int]

#: How far back a lead-in is looked for (one sentence, at most).
_LEAD_CHARS = 240
#: The longest label before a call on its line (``Action Input: ``) read past.
_LABEL_CHARS = 40
#: What a lead-in of either kind holds, as written (lower case, or capitalised).
_HINTS = (
    "model", "Model", "LLM", "llm", "ssistant", "like", "Like", "such as", "Such as",
    "e.g.", "or example", "or instance", "it ", "It ", "xample", "ample ", "ypothetical",
    "nstead", "ather than", "have ", "upposed", "xpected", "ould ", "emit", "output",
    "return", "enerat", "roduc", "write", "send", "respond", "repl", "throws", "prints",
    "dumps", "spits", "espons", "bserved", "ctual ", "aw ", "xemp", "jemp", "eispiel",
    "sempi", "\u5982\u4e0b", "\u4f8b", "user", "User", "ormat", "emplate", "yntax",
    "sage", "quivalent", "same ", "orrespond", "ranslate", "uppose", "magine", "say ",
    "would", "nput", "uery", "rompt", "uestion", " if ", "If ", "\u7528\u6237",
    "\u8f93\u5165", "\u95ee\u9898",
)  # fmt: skip
#: What ends a lead-in that introduces a call: a colon (ASCII or full-width) or a dash.
_LEAD_END = ":\u2014\uff1a"
#: Where a sentence ends: ``.``/``!``/``?`` before a space or a line break, a blank line.
_SENTENCE_ENDS = (". ", ".\n", "! ", "!\n", "? ", "?\n", "\n\n")
#: A third party that emits the call: the model, the LLM, the assistant (the subject,
#: then an emitting verb later in the same lead-in), or a call "from the model" (read
#: in lower case).
_SUBJECT_RE = re.compile(
    r"\b(?:models?|llms?|assistants?|gpt-?\d[\w.-]*|claude|llama|qwen\d*|gemma\d*|mistral"
    r"|deepseek|gemini|kimi|glm)\b"
)
#: The verbs of emitting a call (read in lower case).
_EMITTING = (
    r"(?:emits?|outputs?|returns?|generates?|produces?|writes?|sends?|responds with"
    r"|replies(?: with)?|throws|prints|dumps|spits out)"
)
_EMITS_RE = re.compile(rf"\b{_EMITTING}\b")
_FROM_MODEL_RE = re.compile(
    r"\b(?:calls?|outputs?|responses?|requests?) (?:from|by) (?:the )?(?:model|llm)\b"
)
#: The pronoun ``it`` (the model, named before), or a model named by its name ("Llama
#: 3.2 emits a bare JSON object where 3.1 used the ``<function=F>`` envelope:":
#: kekzl/imp#1088), emitting a call: an emitting verb, then what it emits named as a call
#: (``it outputs a JSON object``); read in lower case.
_IT_EMITS_RE = re.compile(
    rf"(?:\bit|[a-z][\w.-]*(?: \d[\w.]*)?) (?:then |instead |simply |just )?{_EMITTING} "
    r"(?:back )?(?:an? |the )?(?:[\w-]+ )?(?:json|(?:function |tool )?calls?|objects?|requests?)\b"
)
#: An example named at the end of a lead-in that ends with ``:`` ("an example query:",
#: "Example call:", "a sample call:"): indefinite, or the only words on the lead-in's
#: last line ("Fallback A: strict JSON block\nExample:\n{…}": agentplaybooks.xyz).
_EXAMPLE_NAMED_RE = re.compile(
    r"(?:(?:^|(?<=\n))[ \t]*(?:[-*]|\d{1,3}[.)])?[ \t]*|\ban? |\banother )"
    r"(?:examples?(?: (?:tool|function))?(?: (?:calls?|query|request|invocation))?"
    r"|(?:sample|hypothetical)(?: (?:tool|function))? (?:calls?|query|request|invocation))\Z"
)
#: An output quoted as evidence, named at the start of a lead-in that ends with ``:``
#: ("Observed output in the UI for the query …:": atwmarshall/dead-reckoning#30; "Its
#: response was:": ollama/ollama#5976): what a model returned, shown.
_REPORTED_RE = re.compile(
    r"^(?:[-*]\s*)?(?:observed|actual|sample|raw|its|their|the model's|the llm's)"
    r" (?:model )?(?:outputs?|responses?|repl(?:y|ies)|completions?)\b"
)
#: An example or expected output named in another language on the lead-in's last line,
#: which ends with ``:`` ("Exemple de sortie attendue :": forum.hacf.fr; "第一次回傳的結果如下:",
#: 'the first result returned is as follows:': dotblogs.com.tw): read in lower case.
_FOREIGN_EXAMPLE_RE = re.compile(
    r"^(?:[-*]\s*)?(?:exemples?|ejemplos?|exemplos?|beispiele?|beispiel|esempi[oi])\b"
    r"|(?:\u5982\u4e0b|\u793a\u4f8b|\u8303\u4f8b|\u7bc4\u4f8b|\u4f8b\u5982|\u4f8b\u5b50)$"
)
#: Example lead-ins that end with how a call looks ("A typical call looks like this:":
#: toolswift.com; "This is what Anthropic and OpenAI look like, on the wire, for the same
#: request:": ajinkya.ai), read in lower case on the lead-in's tail.
_LOOKS_LIKE_RE = re.compile(
    r"\b(?:(?:would|will|might|could|should|may) )?look(?:s|ed)? like(?: this| so)?$"
    r"|\bsomething like (?:this|so)$"
)
#: A quotation's closed spans (straight, curly and French quotes): what someone else
#: says, not the writer (the first-person test skips them).
_CLOSED_QUOTE_RE = re.compile(
    r'"[^"\n]{0,240}"|\u201c[^\u201d]{0,240}\u201d|\u00ab[^\u00bb]{0,240}\u00bb'
)
#: What a quotation is introduced by: a ``:`` or ``,``, or a verb of saying.
_QUOTE_INTRO_RE = re.compile(
    r"(?:[:,]|\b(?:says?|said|saying|writes|wrote|replies|replied|like))\s*\Z"
)
#: A third party a quotation is attributed to, beyond :data:`_SUBJECT_RE` (lower case).
_QUOTER_RE = re.compile(r"\b(?:users?|examples?|e\.g\.)(?!\w)")
#: Example markers that end a lead-in (the call follows at once, after ``:`` or a break).
_EXAMPLE_ENDS = (
    "like", "such as", "e.g.", "e.g.,", "for example", "for example,", "for instance",
    "for instance,",
)  # fmt: skip
#: A lead-in that ends by naming a call not made, or one that should have been (read
#: in lower case, on the lead-in's tail: the call follows at once).
_COUNTERFACTUAL_RE = re.compile(
    r"(?:\b(?:instead of|rather than)(?: (?:just |simply )?(?:emitting|outputting|returning"
    r"|generating|producing|writing|sending|calling|invoking|making|responding with"
    r"|replying with))?"
    r"|\b(?:should|would|could|ought to) have (?:emitted|output|outputted|returned|generated"
    r"|produced|written|sent|called|invoked|made|responded with|replied with)"
    r"|\b(?:was|were) supposed to (?:emit|output|return|generate|produce|write|send|call"
    r"|invoke|make|respond with|reply with)"
    r"|\b(?:correct|expected|right|proper|intended) (?:tool |function )?(?:call|output"
    r"|response|request|invocation|json)s? (?:would be|should be|should have been"
    r"|would have been|would look like)"
    r"|\bexpected (?:tool |function )?(?:call|output|response|result|behaviou?r)s?)"
    r"(?: (?:something )?like)?(?: (?:an?|the|this) [\w-]+(?: (?:tool |function )?calls?)?)?$"
)
#: The first person: the model speaking of its own call (never narration).
_FIRST_PERSON_RE = re.compile(
    r"\bI(?:'(?:ll|m|ve|d))?\b|\b[Ll]et(?:'s|\s+me)\b|\b[Ww]e\b|\b[Mm]y\b"
)


#: A code fence's opening line (with its info string), as the call's own line ends it.
_FENCE_OPENER_RE = re.compile(r"(?:^|(?<=\n))[ \t]*(?:`{3,}|~{3,})[\w+-]{0,20}[ \t]*\r?\n[ \t]*")


def narrated(text: str, start: int, end: int | None = None) -> bool:
    """Is the call starting at ``start`` told, not made: the object of a sentence about a
    third party emitting it, or an example after ``like``/``such as``/``e.g.``? Only the
    sentence before ``start`` is read, or before the call's line when a short label
    opens that line (``Action: get_weather``: the name is not where the call starts), or
    the lead-in of the block the call is in (:func:`_block_told`; the call's own text,
    up to ``end`` when the caller knows it, for the markup that prose names: never what
    follows the call, so a stream decides it when the call is complete), or an example
    under an item of a list of the tools the writer has (:func:`.catalogue.in_catalogue`)."""
    at = start
    fence = _FENCE_OPENER_RE.search(text, max(0, start - _LABEL_CHARS), start)
    if fence is not None and fence.end() == start:
        start = fence.start()  # (a call opening a fence: the lead-in is before the fence)
    if _told_before(text, start):
        return True
    prev = text[max(0, start - _LABEL_CHARS) : start].rstrip()[-1:]
    if prev and prev in "[{,:" and _told_documents(text, start):
        return True  # (nested in a larger document that is told about)
    bol = text.rfind("\n", 0, start) + 1
    while bol < start and text[bol] in " \t":
        bol += 1
    label = text[bol:start]
    if (
        0 < len(label) <= _LABEL_CHARS
        and not any(end in label for end in ".!?")
        and (
            _told_before(text, bol)
            or io_pair(text, bol, label.strip().rstrip(":").rstrip().lower())
        )
    ):
        return True
    if 0 < len(label) <= _LABEL_CHARS and _family_label(label):
        return True  # (``GLM5: <call>``: the format a model writes, shown)
    return (
        _block_told(text, bol, start, end) or in_catalogue(text, at) or _fence_told(text, at, end)
    )


#: A fence line: its marks, then an info string (an opener's) or nothing (either).
_FENCE_LINE_RE = re.compile(r"[ \t]*`{3,}([\w+-]*)[ \t]*\r?$")


def _fence_told(text: str, at: int, end: int | None) -> bool:
    """Is the call at ``at`` inside a fenced block (the last fence line above it, within
    :data:`_DOCUMENT_CHARS`, is an opener: it has an info string) whose lead-in, before
    the fence, tells about it? A fence shows one example, however many calls it holds
    (two ``<tool_call>`` blocks in one ```` ```python ```` fence under "### 4.2 连续多个工具调用":
    h9cn's ``fresh9cn-gaoding-…``); the first call of a fence is read so already."""
    k = text.rfind("```", max(0, at - _DOCUMENT_CHARS), at)
    if k == -1:
        return False
    bol = text.rfind("\n", 0, k) + 1
    eol = text.find("\n", k)
    m = _FENCE_LINE_RE.fullmatch(text, bol, len(text) if eol == -1 else eol)
    if m is None or not m.group(1) or eol == -1 or eol >= at:
        return False
    return _block_told(text, bol, at, end)


def _family_label(label: str) -> bool:
    """Is ``label``, the text before a call on its line, a label naming a model or a
    family (``GLM5: ``, ``DeepSeek-V3.1: functools``: a name glued to the call is its
    markup, read past)?"""
    head = label.rstrip()
    while head and (head[-1].isalnum() or head[-1] == "_"):
        head = head[:-1]
    head = head.rstrip()
    return head[-1:] == ":" and label_names_family(head[:-1])


#: How many lines above a call its block's lead-in is looked for.
_BLOCK_LINES = 24


def _block_told(text: str, bol: int, start: int, end: int | None) -> bool:
    """Is the call whose line starts at ``bol`` inside a block that a lead-in tells about?
    The lines above it are read up to the nearest lead-in, which decides: a line ending
    with ``:`` (in the block, or the last line before the blank lines that open it: an
    "Expect output like:", "Example:", "Valid call format for X:" whose example runs
    over several lines), a Markdown heading that names an example (or a heading as a page
    renders it, a short plain line alone: :func:`_plain_heading`), or, past a blank line,
    a paragraph that names in inline code the markup the call (``text[start:end]``, when
    ``end`` is known) uses (:func:`~toolfix._repair.leadins.documents_markup`). A block
    that ends with a result label (an ``Observation:`` line) is a step of the same trace,
    answered: the search goes on past it, to the trace's lead-in. A paragraph of other
    prose ends the search: the call is the text's own. At most
    :data:`_BLOCK_LINES` lines and :data:`_DOCUMENT_CHARS` characters are read."""
    lo = max(0, bol - _DOCUMENT_CHARS)
    eol = bol - 1
    blank = False
    call_end = start if end is None else min(end, start + _DOCUMENT_CHARS)
    for _ in range(_BLOCK_LINES):
        if eol <= lo:
            return False
        start = text.rfind("\n", lo, eol) + 1
        line = text[start:eol].strip()
        if not line:
            blank = True
        elif line[-1] in ":\uff1a":
            return (
                label_names_family(line[:-1])
                or _told_before(text, eol + 1)
                or heading_over(text, lo, start)
            )
        elif line[0] == "#":
            return heading_names_section(line) or (blank and heading_names_calls(line))
        elif blank and labels_result(line):
            blank = False  # (a step of the same trace, answered: its lead-in decides)
        elif blank and _plain_heading(text, lo, start, line):
            return heading_names_example(line)
        elif blank:
            para = text.rfind("\n\n", lo, start)
            prose = text[lo if para == -1 else para : eol]
            return _FIRST_PERSON_RE.search(prose) is None and documents_markup(
                prose, text, start, call_end
            )
        eol = start - 1
    return False


#: The most words a heading written as a plain line holds.
_HEADING_WORDS = 5


def _plain_heading(text: str, lo: int, bol: int, line: str) -> bool:
    """Is ``line`` (stripped, starting at ``bol``) a heading as a page's text renders it,
    without its ``#``: a short line with no closing punctuation, alone between blank
    lines (or the text's start) and the block under it ("Example trace" over a ReAct
    trace: jcamilomacias.github.io; "Example", "Concrete Example" over a worked example:
    lkim0402.github.io, besthub.dev)?"""
    line = line.rstrip("\u00b6 \t")
    if not line or line[-1] in ".!?:;,)]}>\"'" or len(line.split()) > _HEADING_WORDS:
        return False
    if bol <= lo:
        return True  # (the text's start)
    above = text.rfind("\n", lo, bol - 1) + 1
    return not text[above : bol - 1].strip()


#: How far back the opener of a document holding a call is looked for, and how many
#: openers are tried.
_DOCUMENT_CHARS = 2000
_DOCUMENT_TRIES = 4


def _told_documents(text: str, start: int) -> bool:
    """Is the call at ``start`` inside a JSON document that is told about: a ``{`` or
    ``[`` opening its own line before it (an expected output whose ``actions`` hold a
    call-shaped object, a response quoted with its ``output`` items), still open at
    ``start`` and after a lead-in that tells about it? The nearest few such openers
    within :data:`_DOCUMENT_CHARS` are tried; brackets are counted as written."""
    lo = max(0, start - _DOCUMENT_CHARS)
    k = start
    for _ in range(_DOCUMENT_TRIES):
        k = max(text.rfind("\n{", lo, k), text.rfind("\n[", lo, k))
        if k == -1:
            return False
        seg = text[k + 1 : start]
        opened = seg.count("{") + seg.count("[") - seg.count("}") - seg.count("]")
        if opened > 0 and _told_before(text, k + 1):
            return True
    return False


def _told_before(text: str, start: int) -> bool:
    lead = text[max(0, start - _LEAD_CHARS) : start]
    for hint in _HINTS:  # (substring tests first: most calls follow no such words)
        if hint in lead:
            break
    else:
        return False
    glued = len(lead)  # (a name glued to the call is its markup: ``functools[``)
    while glued and (lead[glued - 1].isalnum() or lead[glued - 1] == "_"):
        glued -= 1
    body = len(lead[:glued].rstrip(" \t\r\n"))
    if body and lead[body - 1] in _LEAD_END:
        glued = body  # (a lead-in ending with ``:``/``—`` introduces a call after a blank)
    cut = 0
    for end in _SENTENCE_ENDS:
        at = lead.rfind(end, 0, glued)
        if at != -1 and at + len(end) > cut:
            cut = at + len(end)
    lead = lead[cut:glued]
    low = lead.lower()
    tail = low.rstrip(" \t\n" + _LEAD_END)
    if _COUNTERFACTUAL_RE.search(tail) is not None:
        return True
    if _quoted_from(lead):
        return True
    if HYPOTHETICAL_RE.match(low.lstrip()) is not None:
        return True  # (a case supposed: its "we" is the writer's, not a model's)
    if CONDITIONAL_RE.search(tail) is not None:
        return True  # (a call under a condition not met: its "i could" is an offer)
    if '"' in lead or "\u201c" in lead or "\u00ab" in lead:
        lead = _CLOSED_QUOTE_RE.sub(" ", lead)  # (a quotation: someone else's first person)
    if not lead.strip() or _FIRST_PERSON_RE.search(lead) is not None:
        return False
    low = lead.lower()
    tail = low.rstrip(" \t\n" + _LEAD_END)
    if _LOOKS_LIKE_RE.search(tail[-40:]) is not None:
        return True
    for marker in _EXAMPLE_ENDS:
        if tail.endswith(marker) and not tail[-len(marker) - 1 : -len(marker)].isalnum():
            return True
    last = tail[tail.rfind("\n") + 1 :].strip()
    if low.rstrip(" \t\n").endswith(tuple(_LEAD_END)) and (
        _EXAMPLE_NAMED_RE.search(tail.strip())
        or _REPORTED_RE.search(low.lstrip())
        or _FOREIGN_EXAMPLE_RE.search(last)
        or label_names(last.lstrip("-*# \t"))
        or EQUIVALENT_RE.search(tail) is not None
        or io_pair(text, start, tail)
    ):
        return True
    subject = _SUBJECT_RE.search(low)
    return (
        (subject is not None and _EMITS_RE.search(low, subject.end()) is not None)
        or _FROM_MODEL_RE.search(low) is not None
        or _IT_EMITS_RE.search(low) is not None
    )


def _quoted_from(lead: str) -> bool:
    """Does ``lead`` end inside a quotation attributed to a third party (the model, the
    user, an example), opened after a ``:``, a ``,`` or a verb of saying: "the model
    mixing the two: \"Sure, I'll read the file: {…}\"" (news.ycombinator.com/item?id=
    48207313), "le modèle peut dire : « J'ai besoin d'appeler get_weather(…) »"
    (lcarli.github.io)? The call is inside what someone is said to say."""
    opened = -1
    if lead.count('"') % 2 == 1:
        opened = lead.rfind('"')
    for left, right in (("\u201c", "\u201d"), ("\u00ab", "\u00bb")):
        at = lead.rfind(left)
        if at > opened and lead.find(right, at) == -1:
            opened = at
    if opened <= 0:
        return False
    before = lead[:opened]
    if any(ch in before for ch in "{[<=|\\"):
        return False  # (code before the quote: a string opened in it is no quotation)
    low = before.lower()
    return (
        _QUOTE_INTRO_RE.search(before) is not None
        and _FIRST_PERSON_RE.search(before) is None
        and (_SUBJECT_RE.search(low) is not None or _QUOTER_RE.search(low) is not None)
    )


#: A sequence-diagram message line up to its label (``A->>B:``, ``T-->>M:``), as Mermaid
#: writes it: a participant, the arrow, a participant, a colon.
_DIAGRAM_LINE_RE = re.compile(r"[ \t]*[\w .\-]{1,40}-{1,2}>>[+\-]?[ \t]*[\w .\-]{1,40}:")
#: A variable assigned a literal at a line's start (``model_output = {``, ``x = \"\"\"``).
_ASSIGNED_RE = re.compile(
    r"^[ \t]*[A-Za-z_][\w.]{0,63}[ \t]*=[ \t]*(?:[{\[]|\"\"\"|''')", re.MULTILINE
)
#: What an assignment of a literal holds (a substring test before the search).
_ASSIGN_MARKERS = ("= {", "= [", "={", "=[", '= """', "= '''", '="""')
#: The separator line under a Markdown table's header (``|---|---|``, ``| :-- | --: |``):
#: the rows after it are cells shown in a table.
_TABLE_RULE_RE = re.compile(
    r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$", re.MULTILINE
)
#: The role key of a chat message object of the assistant (``{"role": "assistant", ...}``,
#: or after other keys: ``{"id": "msg_01", "type": "message", "role": "assistant", ...}``):
#: a record of a message, its ``tool_calls`` or ``tool_use`` blocks included.
_RECORD_RE = re.compile(r'"role"\s*:\s*"assistant"')
#: How far back the opener of the object holding a role key is looked for, and for how
#: many role keys (past them, only an opener right before the key: the role first).
_RECORD_CHARS = 600
_RECORD_TRIES = 64


def told_spans(
    text: str,
    has: Callable[[str], bool] | None = None,
    positions: Callable[[str], list[int] | None] | None = None,
) -> list[Span]:
    """Sorted spans of ``text`` where a call is shown, decided by what precedes it: the
    labels of sequence-diagram message lines, literals assigned to a variable, the body
    rows of Markdown tables, assistant message records, records of past calls
    (:mod:`.history`) and the data of shell commands (:mod:`.shelldata`) (substring tests first,
    through ``has``: ``marker in text`` unless the caller knows a faster answer, as the
    scan's marker index does for a long text; ``positions``, that index's every index of
    a character, lets the shell commands be looked for only where a quote opens JSON)."""
    has = text.__contains__ if has is None else has
    spans: list[Span] = []
    if has("->>"):
        k = text.find("->>")
        while k != -1:
            bol = text.rfind("\n", 0, k) + 1
            eol = text.find("\n", k)
            eol = len(text) if eol == -1 else eol
            m = _DIAGRAM_LINE_RE.match(text, bol, eol)
            if m is not None and m.end() > k:
                spans.append((m.end(), eol))
            k = text.find("->>", eol)
    if has("=") and any(has(m) for m in _ASSIGN_MARKERS):
        for m in _ASSIGNED_RE.finditer(text):
            opener = m.end() - 1
            if text[opener] in "{[":
                try:
                    end = find_bracket_end(text, opener).end
                except LimitExceededError:
                    end = len(text)  # (too deep to match: shown to the end)
                spans.append((opener, end))
            else:
                close = text.find(text[opener - 2 : opener + 1], opener + 1)
                spans.append((opener - 2, len(text) if close == -1 else close + 3))
    if has("|") and has("---"):
        spans.extend(_table_rows(text))
    if has('"role"'):
        spans.extend(_records(text))
    spans.extend(history_spans(text, has))
    spans.extend(command_data_spans(text, has, positions))
    spans.sort()
    return spans


def _records(text: str) -> list[Span]:
    """The assistant message objects of ``text``: each object that holds a ``"role":
    "assistant"`` key among its own keys, first or after others (an API response quoted
    whole: the kindo.ai Messages API page, the laminate crate's
    ``anthropic_tool_use.json``), from its opener to its closer."""
    spans: list[Span] = []
    for tries, m in enumerate(_RECORD_RE.finditer(text)):
        reach = _RECORD_CHARS
        if tries >= _RECORD_TRIES:  # (only the role first: blanks, then the opener)
            k = m.start()
            while k > 0 and text[k - 1] in " \t\r\n":
                k -= 1
            reach = m.start() - k + 1
        opener = _object_opener(text, m.start(), reach)
        if opener == -1 or (spans and opener < spans[-1][1]):
            continue  # (not a key of an object, or inside a record already found)
        try:
            end = find_bracket_end(text, opener).end
        except LimitExceededError:
            end = len(text)
        spans.append((opener, end))
    return spans


def _object_opener(text: str, at: int, reach: int) -> int:
    """The ``{`` of the object whose own key starts at ``at`` (the brackets between
    counted outside JSON strings, at most ``reach`` characters back); -1 when the
    innermost open bracket is a ``[`` or none is found."""
    lo = max(0, at - reach)
    depth = 0
    i = at - 1
    while i >= lo:
        ch = text[i]
        if ch == '"':  # (a string, read back to its opening quote)
            i = text.rfind('"', lo, i)
            while i > lo and escaped(text, i, lo):
                i = text.rfind('"', lo, i)
            if i == -1:
                return -1
        elif ch in "}]":
            depth += 1
        elif ch in "{[":
            if depth == 0:
                return i if ch == "{" else -1
            depth -= 1
        i -= 1
    return -1


def _table_rows(text: str) -> list[Span]:
    """The body rows of each Markdown table: the lines that start with ``|`` after a
    separator line, up to the first line that does not (each line read once: a call on
    the line after a table is not in it, even when its arguments hold a ``|``)."""
    rows: list[Span] = []
    m = _TABLE_RULE_RE.search(text)
    while m is not None:
        bol = m.end() + 1
        while bol < len(text):
            eol = text.find("\n", bol)
            eol = len(text) if eol == -1 else eol
            if not text[bol:eol].lstrip(" \t").startswith("|"):
                break
            rows.append((bol, eol))
            bol = eol + 1
        m = _TABLE_RULE_RE.search(text, min(bol, len(text)))
    return rows


def answered_spans(text: str, has: Callable[[str], bool] | None = None) -> list[Span]:
    """Sorted spans of calls displayed in a session transcript: a block answered by its
    result (a ReAct action and its observation, a call and its output), a turn-framed
    transcript (:mod:`.transcripts`; ``has`` as for :func:`told_spans`)."""
    return shown_spans(text, has)
