"""LangChain adapter: a real create_agent (langchain 1.x) and the chat-model wrapper."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("langchain")

from langchain.agents import create_agent
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.messages.tool import invalid_tool_call
from langchain_core.runnables import Runnable
from langchain_core.tools import tool
from pydantic import Field

from toolfix.integrations.langchain import ToolfixChatModel, ToolfixMiddleware, repair_ai_message

TEXT_CALL = (
    "Let me check.\n<tool_call>\n"
    "{'name': 'get_weather', 'arguments': {'city': 'Paris', 'days': '3',}}"
)


class ToolModel(FakeMessagesListChatModel):
    """LangChain's scripted fake chat model, plus the bind_tools an agent needs."""

    bound: list[Any] = Field(default_factory=list)

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        self.bound.append([getattr(t, "name", t) for t in tools])
        return self.bind(tools=[getattr(t, "name", str(t)) for t in tools], **kwargs)


def _weather(ran: list[tuple[str, int]]) -> Any:
    @tool
    def get_weather(city: str, days: int = 1) -> str:
        """Weather forecast for a city."""
        ran.append((city, days))
        return f"sunny in {city} for {days} days"

    return get_weather


def _tool_messages(messages: list[BaseMessage]) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(AIMessage(content=TEXT_CALL), id="call-in-text"),
        pytest.param(
            AIMessage(
                content="",
                invalid_tool_calls=[
                    invalid_tool_call(
                        name="get_weather",
                        args="{'city': 'Paris', 'days': '3',}",
                        id="c1",
                        error="bad JSON",
                    )
                ],
            ),
            id="broken-json",
        ),
    ],
)
def test_agent_middleware_runs_the_right_tool(reply: AIMessage) -> None:
    ran: list[tuple[str, int]] = []
    model = ToolModel(responses=[reply, AIMessage(content="Sunny in Paris.")])
    agent = create_agent(model, [_weather(ran)], middleware=[ToolfixMiddleware()])
    out = agent.invoke({"messages": [{"role": "user", "content": "weather in Paris, 3 days?"}]})
    assert ran == [("Paris", 3)]
    (result,) = _tool_messages(out["messages"])
    assert result.content == "sunny in Paris for 3 days"
    call_msg = out["messages"][1]
    assert isinstance(call_msg, AIMessage)
    assert [(c["name"], c["args"]) for c in call_msg.tool_calls] == [
        ("get_weather", {"city": "Paris", "days": 3})
    ]
    assert call_msg.invalid_tool_calls == []
    assert call_msg.response_metadata["toolfix_repairs"]
    assert out["messages"][-1].content == "Sunny in Paris."


async def test_agent_middleware_async() -> None:
    ran: list[tuple[str, int]] = []
    model = ToolModel(responses=[AIMessage(content=TEXT_CALL), AIMessage(content="done")])
    agent = create_agent(model, [_weather(ran)], middleware=[ToolfixMiddleware()])
    await agent.ainvoke({"messages": [{"role": "user", "content": "weather?"}]})
    assert ran == [("Paris", 3)]


def test_without_the_middleware_the_text_call_is_not_run() -> None:
    ran: list[tuple[str, int]] = []
    model = ToolModel(responses=[AIMessage(content=TEXT_CALL)])
    agent = create_agent(model, [_weather(ran)])
    out = agent.invoke({"messages": [{"role": "user", "content": "weather?"}]})
    assert ran == []
    assert "<tool_call>" in out["messages"][-1].content


def test_unrepairable_call_stays_invalid() -> None:
    ran: list[tuple[str, int]] = []
    reply = AIMessage(
        content='<tool_call>{"name": "launch_rocket", "arguments": {"x": 1}}</tool_call>'
    )
    model = ToolModel(responses=[reply])
    agent = create_agent(model, [_weather(ran)], middleware=[ToolfixMiddleware()])
    out = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
    assert ran == []
    last = out["messages"][-1]
    assert isinstance(last, AIMessage)
    assert last.tool_calls == []
    (bad,) = last.invalid_tool_calls
    assert bad["name"] == "launch_rocket"
    assert "unknown tool 'launch_rocket'" in (bad["error"] or "")


def test_plain_answer_is_the_same_object() -> None:
    msg = AIMessage(content="Paris is in France.")
    assert repair_ai_message(msg, [_weather([])]) is msg


def test_content_blocks_keep_their_non_text_blocks() -> None:
    msg = AIMessage(
        content=[
            {"type": "reasoning", "reasoning": "the user wants weather"},
            {"type": "text", "text": TEXT_CALL},
        ]
    )
    fixed = repair_ai_message(msg, [_weather([])])
    assert [(c["name"], c["args"]) for c in fixed.tool_calls] == [
        ("get_weather", {"city": "Paris", "days": 3})
    ]
    assert isinstance(fixed.content, list)
    assert fixed.content[0] == {"type": "reasoning", "reasoning": "the user wants weather"}
    assert "<tool_call>" not in fixed.text


def test_chat_model_wrapper_for_older_code() -> None:
    ran: list[tuple[str, int]] = []
    get_weather = _weather(ran)
    inner = ToolModel(responses=[AIMessage(content=TEXT_CALL)])
    llm = ToolfixChatModel(model=inner).bind_tools([get_weather])
    msg = llm.invoke("weather in Paris?")
    assert inner.bound[-1] == ["get_weather"]
    (call,) = msg.tool_calls
    assert (call["name"], call["args"]) == ("get_weather", {"city": "Paris", "days": 3})
    get_weather.invoke(call)  # a hand-written loop runs the call as LangChain gives it
    assert ran == [("Paris", 3)]


async def test_chat_model_wrapper_async() -> None:
    inner = ToolModel(responses=[AIMessage(content=TEXT_CALL)])
    llm = ToolfixChatModel(model=inner).bind_tools([_weather([])])
    msg = await llm.ainvoke("weather in Paris?")
    assert [c["args"] for c in msg.tool_calls] == [{"city": "Paris", "days": 3}]
