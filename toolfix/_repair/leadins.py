"""What makes a text an example or documentation of a call format, not an answer.

Model cards, READMEs, engine docs, tutorials and echoed system prompts show a call to
explain a format; the call is shown, not made (issue 28's negative corpus,
``benchmarks/corpora/prose_negatives.jsonl``, ids ``prec5-``). :mod:`.narration` reads
the lead-in before a call; this module holds the classes of lead-in it learned from the
fifth prose harvest, each from two public pages or more:

- **a label naming an example or a format** on the lead-in's last line, with more
  words than "Example:" ("Example Tool Call Output:": ggml-org/llama.cpp#15012; "Example
  Training Row:": shshell.com; "Output format:": the roshangrewal Gemma 4 cards; "Valid
  call format for local_file_read:": an echoed system prompt in deepseek-pp#578), or a
  Markdown heading that names one (``## Example``): :data:`LABEL_NAMES_RE`,
  :func:`heading_names_example`;
- **an input/output pair**: the call follows an output label (``Output:``, ``Model:``,
  ``Response:``) and an input label (``Input:``, ``User:``, ``Query:``) opens a line
  shortly before it: an example exchange, shown ("Input: \\"What's the weather in
  Tokyo?\\"\\nOutput: call:get_weather{…}": roshangrewal/gemma4-e4b-toolcall-v01; "-
  Input: \\"…\\" - Output:\\n{…}": shshell.com): :func:`io_pair`;
- **a hypothetical**: the lead-in's sentence supposes a case or says what "we" would do
  in it ("Let's say we want to call the get_weather function … We would call the
  function twice…": iranjankumar.com; "Suppose we ask the agent…": besthub.dev), or
  opens with "For example," and introduces the call with its ``:`` ("For example, to
  use the attempt_completion tool:": Roo-Code's prompt in Roo#4900; "For example, to
  get the current weather for 'London', you would use:": smollm3's recording in
  MikeVeerman/tool-calling-benchmark); its "we" is the writer and the reader, not a
  model making a call: :data:`HYPOTHETICAL_RE`;
- **a conditional**: the lead-in puts the call under a condition on the reader's or the
  query's need ("In the meantime, if this query requires a tool call, here's how you can
  proceed:": smollm3 in MikeVeerman/tool-calling-benchmark, held out in the seventh
  round; "Here is a call to a hypothetical tool if you needed real-time data:", the same
  benchmark's Round 3 runs; "If you choose to call a function ONLY reply in the following
  format": an echoed prompt in QwenLM/Qwen3-Coder#475; "if the LLM wants to check the
  weather …, it returns something like:": agent-frameworks-report.meaningfool.net), or
  a case the writer does not hold ("if I had access to …"); a condition on the world
  ("if the file exists, …") is not one: :data:`CONDITIONAL_RE`;
- **the same call in another format**: the lead-in says what follows is equivalent to a
  call shown before ("This is equivalent to the JSON:": roshangrewal/gemma4-e4b-toolcall
  -v02-gguf; "the same call … in OpenAI format"): :data:`EQUIVALENT_RE`;
- **the format's own markup in inline code**: the paragraph before the call names, in
  backticks, a marker the call then uses (`` `<|constrain|>` `` before a harmony call:
  openai/openai-cookbook#2048; `` `[TOOL_CALLS]` `` before a Mistral call: LocalAI's
  Mistral parser docstring): prose about the syntax, then the syntax shown:
  :func:`documents_markup`;
- **a heading over the lead-in**: the lead-in's line (ending with ``:``) sits right
  under a Markdown heading that names an example, a format or a model's family, with
  no blank line between: the sentence opens that section's example, whatever it says
  ("### Parsed Tool Call Format (OpenAI-compatible)\nAfter parsing the special tokens,
  convert to:": the Athena proxy's provider-formats spec, h9cn's
  ``fresh9cn-athena-…-whole-section-special-tokens``; "## Examples\nHere are some
  example data points from this dataset:": joey00072's dataset card,
  ``prec5-joey00072-dataset-card-example-points``; "### Native Ollama behavior" is no
  such heading): :func:`heading_over`;
- **a heading about calls**: a Markdown heading over the call's block, a blank line
  between, whose words name tool calls as its topic ("### 4.2 连续多个工具调用":
  the LynnCen/ResumeBuilder notes on an image agent, ``fresh9cn-gaoding-…``; "####
  Multiple Tool Calls": the Athena spec; "### 2. **qwen-coder-function-v2** - Function
  Calling": llamaloop's marker-formats doc; "# Tool Call Formats Explained": a vLLM
  guide), not a marker written as a heading (``### TOOL_CALL_START ###``, one token:
  llama.cpp#12153's renamed markers, a real call) nor a code comment right above the
  call: :func:`heading_names_calls`. Headings naming an example or a format in Chinese
  (``示例``, ``格式``, ``用法``: "### 模型输出格式" in a MiniMax-M2 guide, "#### 特殊文本格式"
  in openakita's docs, the spent ``fresh8cn-minimax-m2-cn-guide-…`` and
  ``fresh9cn-openakita-docs-…``) count as the English ones do.
"""

from __future__ import annotations

import re

from .formatlabels import heading_names_family

__all__ = [
    "CONDITIONAL_RE",
    "EQUIVALENT_RE",
    "HYPOTHETICAL_RE",
    "documents_markup",
    "heading_names_calls",
    "heading_names_example",
    "heading_names_section",
    "heading_over",
    "io_pair",
    "label_names",
]

#: The words of a label line (the lead-in's last line, before its ``:``) that name an
#: example or a format, read in lower case on a line of at most :data:`_LABEL_WORDS`
#: words that does not open with a verb of doing ("Using the right format:", "Running
#: the example:", "Checking the examples folder:" are a model's own lead-ins).
LABEL_NAMES_RE = re.compile(
    r"^(?![-*#\d.)\s]*(?:\w+ing|with|now|here)\b)"
    r"[^:]*\b(?:examples?|samples?|templates?|syntax|usage|illustration|demo"
    r"|(?:output|call|response|request|reply|message|invocation) formats?"
    r"|formats? (?:for|of)|format)\b"
)
#: The most words a label line holds.
_LABEL_WORDS = 8
#: A hypothetical at the start of the lead-in's sentence (read in lower case): a case
#: supposed ("let's say we…", "suppose the user…") or a conditional "we/you would".
HYPOTHETICAL_RE = re.compile(
    r"^(?:[-*]\s*)?(?:(?:let'?s say|let us say|suppose|imagine|say)(?: that)?"
    r" (?:we|you|the|a|an|our|your|i|someone|somebody)\b|(?:we|you|one) would\b"
    r"|for (?:example|instance),[^\n]{0,160}:\s*$)"
)
#: The condition of a conditional lead-in: the reader's or the query's need or wish, or a
#: case the writer does not hold ("if this query requires a tool call", "if you needed
#: real-time data", "if you choose to call a function", "if i had access"), read in lower
#: case. A condition on the world ("if the file exists") is not one.
_CONDITION = (
    r"if (?:(?:you|we|one)(?:'d| would)? (?:need|needed|want|wanted|wish|like|choose|chose"
    r"|decide|require|prefer)|(?:this|the|your) (?:query|request|question|task|case)"
    r" (?:requires|needs|calls for)|(?:i|we) had\b|(?:we|you) assume)"
)
#: A conditional lead-in (read in lower case, on the lead-in's tail: the call follows):
#: the condition, then a clause that shows how ("…, here's how you can proceed", "…, you
#: would call", "…, i could call", "…, reply in the following format"), or a clause that
#: shows, then the condition ("here is a call to a hypothetical tool if you needed
#: real-time data", "use the following command if i had access to …").
CONDITIONAL_RE = re.compile(
    rf"\b{_CONDITION}[^.!?\n]{{0,140}}?(?:,|\bthen\b)[ \t]*(?:here'?s|here is|this is|that is"
    r"|you (?:can|could|would|should|may)|i (?:could|would|might)"
    r"|(?:just |only )?(?:follow|reply|respond|proceed|use|call))\b[^.!?\n]{0,100}$"
    rf"|\b(?:here'?s|here is|this is|use)\b[^.!?\n]{{0,80}}\b{_CONDITION}[^.!?\n]{{0,80}}$"
)
#: A lead-in naming what follows as the same call in another format (lower case).
EQUIVALENT_RE = re.compile(
    r"\b(?:equivalent|equivalently|the same (?:call|request|tool call)|corresponds? to"
    r"|translates? to)\b"
)
#: An output label ending the lead-in, or written on the call's line (lower case).
_OUTPUT_LABEL_RE = re.compile(
    r"(?:^|[\s\-*\"'])(?:(?:target|expected|model|sample|example) )?"
    r"(?:output|response|answer|assistant|model|ai|completion)$"
    r"|(?:^|\s)(?:ai|\u6a21\u578b|\u52a9\u624b)(?:\u8c03\u7528|\u8f93\u51fa|\u56de\u590d|\u56de\u7b54)?$"
)
#: An input label opening a line (lower case).
_INPUT_LABEL_RE = re.compile(
    r"(?:^|\n)[ \t]*(?:[-*][ \t]*)?(?:input|user|query|question|prompt|human)[ \t]*:"
    r"|(?:^|\n)[ \t]*(?:[-*][ \t]*)?(?:\u7528\u6237|\u8f93\u5165|\u95ee\u9898)[ \t]*[:\uff1a]"
)
#: How far back an input label is looked for.
_PAIR_CHARS = 240
#: Inline code holding markup: a special token, a tag or a bracketed token.
_CODE_MARKUP_RE = re.compile(r"`(<\|?[\w./:-]{1,30}\|?>|\[[A-Z_]{2,30}\])`")
#: A heading that names an example or a format (lower case, the ``#`` marks removed).
_HEADING_RE = re.compile(
    r"\b(?:examples?|samples?|usage|format|syntax|demo)\b"
    r"|\u793a\u4f8b|\u683c\u5f0f|\u8303\u4f8b|\u7bc4\u4f8b|\u7528\u6cd5|\u4f8b\u5b50"
)
#: A Markdown heading (``#`` marks, then a blank) whose words name tool calls as its topic
#: (lower case): "Multiple Tool Calls", "Function Calling", "连续多个工具调用". A marker
#: written as a heading (``### TOOL_CALL_START ###``: one token, its words joined by
#: ``_``) names nothing.
_CALLS_HEADING_RE = re.compile(
    r"#{1,6}[ \t][^\n]*?(?:(?<!\w)(?:tool|function)[ -]?(?:calls?|calling|use|invocations?)"
    r"(?!\w)|\u5de5\u5177\u8c03\u7528|\u51fd\u6570\u8c03\u7528|\u5de5\u5177\u8abf\u7528"
    r"|\u51fd\u6578\u8abf\u7528)"
)


def label_names(line: str) -> bool:
    """Is ``line`` (lower case, its ``:`` removed) a short label naming an example or a
    format ("example tool call output", "valid call format for local_file_read")?"""
    return len(line.split()) <= _LABEL_WORDS and LABEL_NAMES_RE.search(line) is not None


def io_pair(text: str, label_start: int, label: str) -> bool:
    """Is ``label`` (lower case, stripped of blanks and ``:``), the words that end a
    lead-in or open the call's line at ``label_start``, an output label with an input
    label opening a line in the :data:`_PAIR_CHARS` before it?"""
    if _OUTPUT_LABEL_RE.search(label) is None:
        return False
    window = text[max(0, label_start - _PAIR_CHARS) : label_start].lower()
    return _INPUT_LABEL_RE.search(window) is not None


def heading_names_example(line: str) -> bool:
    """Is the Markdown heading ``line`` (``## Example``) one that names an example or a
    format?"""
    return _HEADING_RE.search(line.lstrip("#").lower()) is not None


def heading_names_section(line: str) -> bool:
    """Is ``line`` (a Markdown heading) the title of a section that shows an example, a
    format or a model family's markup?"""
    return heading_names_example(line) or heading_names_family(line)


def heading_names_calls(line: str) -> bool:
    """Is ``line`` a Markdown heading whose words name tool calls as its topic ("### 4.2
    连续多个工具调用", "#### Multiple Tool Calls"): a section of documentation about calls
    (the module docs)?"""
    return _CALLS_HEADING_RE.match(line.lower()) is not None


def heading_over(text: str, lo: int, bol: int) -> bool:
    """Is the line right above the line at ``bol`` (no blank line between, not before
    ``lo``) a Markdown heading that names an example, a format or a model's family? The
    lead-in under it ("After parsing the special tokens, convert to:") opens that
    section's example (the module docs: a heading over the lead-in)."""
    if bol - 1 <= lo:
        return False
    above = text.rfind("\n", lo, bol - 1) + 1
    line = text[above : bol - 1].strip()
    return line.startswith("#") and heading_names_section(line)


def documents_markup(paragraph: str, text: str, start: int, end: int) -> bool:
    """Does ``paragraph`` (the prose before a call) name in inline code a marker that
    the call at ``start`` uses in its first ``end - start`` characters? The paragraph
    explains the format's syntax; the call after it shows that syntax."""
    if "`" not in paragraph:
        return False
    found = (text.find(m.group(1), start, end) for m in _CODE_MARKUP_RE.finditer(paragraph))
    return any(at != -1 for at in found)
