"""A call answered by the Chinese "returned result" label is a transcript's, not made.

Chinese skill examples and demo pages show a call and then its result under 返回结果
("returned result"): ``返回结果：`` on a line of its own (a skill's examples file on
skill.seembox.com), ``// 返回结果`` as a comment line (an MCP demo page on demoos.fun).
The call's block above the label is answered (``toolfix/_repair/transcripts.py``, the
"answered" class: rule G2, promise 3), for every family whose calls wait for the end
of a stream; the same call followed by other text is still a call.
"""

from __future__ import annotations

from call_names import names, streamed_names
from hostile import TOOLS, WRITERS, inner_call
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix._repair.textscan import _CLOSER
from toolfix._repair.transcripts import labels_result

FAMILIES = sorted(WRITERS)
OPEN_FAMILIES = [f for f in FAMILIES if _CLOSER.search(inner_call(f, "")) is None]
LABELS = ("返回结果：", "返回结果:", "// 返回结果", "返回结果", "- 返回结果：")
RESULTS = ('{"ok": true}', "已发送", "sent")
#: Lines after a call that are no result label (a question, prose with the words inside).
OTHER = ("好的，邮件已经发出。", "请确认返回结果是否正确。", "下一步：查看返回结果")


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(OPEN_FAMILIES),
    st.sampled_from(LABELS),
    st.sampled_from(RESULTS),
    st.sampled_from(["", "\n"]),
)
def test_a_call_answered_by_a_chinese_result_label_is_text(
    family: str, label: str, result: str, gap: str
) -> None:
    text = f"用户：给 x@y 发邮件\nAI调用：\n{inner_call(family, '')}\n{gap}{label}\n{result}"
    assert names(text, TOOLS) == [], text
    assert streamed_names(text, TOOLS, 9) == [], text


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(FAMILIES), st.sampled_from(OTHER), st.sampled_from(["", "\n"]))
def test_the_same_call_followed_by_other_text_is_a_call(family: str, other: str, gap: str) -> None:
    text = f"我来发送邮件。\n{inner_call(family, '')}\n{gap}{other}"
    assert names(text, TOOLS) == ["send_email"], text


@given(st.sampled_from(LABELS))
def test_the_labels_are_read(label: str) -> None:
    assert labels_result(label)


@given(st.sampled_from(OTHER))
def test_a_sentence_holding_the_words_is_no_label(line: str) -> None:
    assert not labels_result(line)
