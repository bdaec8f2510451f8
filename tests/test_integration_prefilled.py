"""The adapters set ``reasoning_prefilled`` from the model they wrap (issue 29).

A model whose template opens ``<think>`` in the prompt answers ``reasoning</think>answer``;
with a call quoted in that reasoning, the adapters must not run it for such a model,
must run it for any other (the text is then not known to be reasoning), and a
processor whose config sets ``reasoning_prefilled`` keeps its own value. (The
pydantic-ai adapter's case is in ``tests/test_integration_pydantic_ai.py``, with the
adapter's other tests: its extra needs Python 3.11.)
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import FixConfig, ManualToolCallFixProcessor, Response, repair
from toolfix._messages import TextPart
from toolfix.formats import reasoning_prefilled_for
from toolfix.integrations._common import processor_for_model, template_kwargs, with_prefilled

RAW = (
    'Maybe <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    " fits, but the city is unclear.</think>Which city do you mean?"
)
REASONING = RAW.split("</think>")[0]
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}
OFF = FixConfig(reasoning_prefilled=False)


def test_the_shared_helper_keeps_a_config_that_decided() -> None:
    own = ManualToolCallFixProcessor(config=OFF)
    assert processor_for_model(own, "deepseek-r1") is own
    unset = ManualToolCallFixProcessor()
    twin = processor_for_model(unset, "deepseek-r1")
    assert isinstance(twin, ManualToolCallFixProcessor)
    assert twin.config.reasoning_prefilled is True
    assert processor_for_model(unset, "deepseek-r1") is twin  # kept, not rebuilt
    assert processor_for_model(unset, "gpt-4o") is unset
    default = processor_for_model(None, "qwq-32b")
    assert isinstance(default, ManualToolCallFixProcessor)
    assert default.config.reasoning_prefilled is True
    off = processor_for_model(None, "qwq-32b", {"chat_template_kwargs": {"enable_thinking": False}})
    assert isinstance(off, ManualToolCallFixProcessor)
    assert off.config.reasoning_prefilled is False
    assert isinstance(with_prefilled(None, None), ManualToolCallFixProcessor)
    nested = {"extra_body": {"chat_template_kwargs": {"thinking": True}}}
    assert template_kwargs(nested) == {"thinking": True}
    assert template_kwargs({"extra_body": None}) is None


# ---- LangChain -----------------------------------------------------------------------


def _tool() -> dict[str, Any]:
    return {"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}


@pytest.mark.parametrize(
    ("kw", "runs"),
    [
        ({"model": "deepseek-r1"}, False),
        ({"model": "gpt-4o"}, True),
        ({"model": "deepseek-r1", "request": {"chat_template_kwargs": {"thinking": False}}}, True),
        ({}, False),  # the model_name in the message's response_metadata
    ],
)
def test_langchain_reads_the_model_name(kw: dict[str, Any], runs: bool) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage

    from toolfix.integrations.langchain import repair_ai_message

    message = AIMessage(content=RAW, response_metadata={"model_name": "deepseek-r1"})
    fixed = repair_ai_message(message, [_tool()], **kw)
    assert [(c["name"], c["args"]) for c in fixed.tool_calls] == (
        [("get_weather", {"city": "Paris"})] if runs else []
    )
    if not runs:
        assert fixed.content == "Which city do you mean?"
        assert fixed.additional_kwargs["reasoning_content"] == REASONING


def test_langchain_chat_model_wrapper_passes_its_model_name() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage

    from toolfix.integrations.langchain import ToolfixChatModel

    class Named(FakeMessagesListChatModel):
        model_name: str = "qwq-32b"

    inner = Named(responses=[AIMessage(content=RAW)])
    out = ToolfixChatModel(model=inner, tools=[_tool()]).invoke("weather?")
    assert isinstance(out, AIMessage)
    assert out.tool_calls == []
    assert out.content == "Which city do you mean?"


# ---- OpenAI Agents SDK ---------------------------------------------------------------


def _agents_response() -> Any:
    pytest.importorskip("agents")
    from agents import ModelResponse, Usage
    from openai.types.responses import ResponseOutputMessage, ResponseOutputText

    text = ResponseOutputText(type="output_text", text=RAW, annotations=[])
    message = ResponseOutputMessage(
        id="m1", type="message", role="assistant", status="completed", content=[text]
    )
    return ModelResponse(output=[message], usage=Usage(), response_id=None)


def _agents_tool() -> Any:
    from agents import function_tool

    @function_tool
    def get_weather(city: str) -> str:
        """Weather forecast for a city."""
        return city

    return get_weather


@pytest.mark.parametrize(
    ("model", "extra_body", "runs"),
    [
        ("deepseek-r1", None, False),
        ("gpt-4o", None, True),
        ("deepseek-v3.1", {"chat_template_kwargs": {"thinking": True}}, False),
        ("deepseek-v3.1", None, True),  # thinking off by default: not prefilled
    ],
)
async def test_openai_agents_reads_the_wrapped_model_name(
    model: str, extra_body: Any, runs: bool
) -> None:
    response = _agents_response()
    from agents import ModelSettings
    from openai.types.responses import ResponseFunctionToolCall

    from toolfix.integrations.openai_agents import repair_model_response

    settings = ModelSettings(extra_body=extra_body)
    fixed = await repair_model_response(
        response, [_agents_tool()], None, None, model=model, settings=settings
    )
    calls = [i.name for i in fixed.output if isinstance(i, ResponseFunctionToolCall)]
    assert calls == (["get_weather"] if runs else [])
    if not runs:
        assert fixed is response  # nothing run; the text stays as the model wrote it


def test_openai_agents_wrapper_takes_the_inner_model_name() -> None:
    pytest.importorskip("agents")
    from agents import OpenAIChatCompletionsModel
    from openai import AsyncOpenAI

    from toolfix.integrations.openai_agents import ToolfixModel

    client = AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="k")
    inner = OpenAIChatCompletionsModel(model="deepseek-r1", openai_client=client)
    assert ToolfixModel(inner).model_name == "deepseek-r1"
    assert ToolfixModel(inner, model_name="qwq").model_name == "qwq"


# ---- properties ----------------------------------------------------------------------

PIECES = ["a", " ", "\n", "</think>", "<think>", RAW.split("</think>")[0][6:], "Which?"]
MODELS = ["deepseek-r1", "QwQ-32B", "deepseek-v3.1", "gpt-4o", "", "qwen3-8b-thinking"]
KWARGS = st.sampled_from(
    [None, {}, {"enable_thinking": False}, {"thinking": True}, {"thinking": False}]
)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=10).map("".join),
    st.sampled_from(MODELS),
    KWARGS,
    st.booleans(),
    st.sampled_from([None, True, False]),
)
def test_adapters_and_the_hook_repair_as_the_table_says(
    text: str, model: str, kwargs: Any, nested: bool, own: bool | None
) -> None:
    """Whatever the text, model and request, the repair an adapter or the proxy hook runs
    is ``repair()`` with the config's own value, else the table's answer."""
    from toolfix.integrations.litellm_proxy import ToolfixProxyHook

    request: dict[str, Any] = {"model": model}
    if kwargs is not None:
        request.update(
            {"extra_body": {"chat_template_kwargs": kwargs}}
            if nested
            else {"chat_template_kwargs": kwargs}
        )
    table = reasoning_prefilled_for(model, kwargs)
    want = table if own is None else own
    user = (
        None
        if own is None
        else ManualToolCallFixProcessor(config=FixConfig(reasoning_prefilled=own))
    )
    chosen = processor_for_model(user, model, request)
    assert isinstance(chosen, ManualToolCallFixProcessor)
    assert chosen.config.reasoning_prefilled == want
    assert ToolfixProxyHook(user).prefilled_for(request) == table
    hooked = ToolfixProxyHook(user).processor_for(request)
    assert isinstance(hooked, ManualToolCallFixProcessor)
    assert hooked.config.reasoning_prefilled == want
    tools = [_tool()]
    got = chosen.fix(Response(parts=(TextPart(text=text),)), tools)
    expected = repair(text, tools, config=FixConfig(reasoning_prefilled=want))
    assert (got.reasoning, got.text) == (expected.reasoning, expected.text)
    assert [(c.name, c.arguments) for c in got.tool_calls] == [
        (c.name, c.arguments) for c in expected.tool_calls
    ]
