"""The quote pairs a value may be written between, read wherever a reader takes a quoted
value: ASCII double and single quotes, and the typographic pairs an editor, a chat client
or a model's own tokenizer writes in their place (``“…”``, ``‘…’``).

Models and the clients that display them write tag attributes and keys with typographic
quotes: ``<｜｜DSML｜｜invoke name=“get_pages”>`` (syt2/paper-chat-for-zotero issue 28),
``<parameter name=“file_glob”>`` (EKKOLearnAI/hermes-studio issue 942). A value opened
by one of these quotes ends at its own closer, never at another pair's.
"""

from __future__ import annotations

#: Each opening quote with its closer.
QUOTE_PAIRS: dict[str, str] = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}
