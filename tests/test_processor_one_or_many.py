"""Every processor's ``process`` accepts one response or a sequence of them."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from tooldefs import WEATHER_CITY

from toolfix import (
    LLMBasedToolCallFixProcessor,
    ManualToolCallFixProcessor,
    Prompt,
    PromptExecutor,
    Response,
    ResponseProcessor,
    ToolRegistry,
)
from toolfix._pipeline.processor import ToolsLike, as_responses
from toolfix.errors import UnsupportedInputError
from toolfix.processors import ChainProcessor, IdentityProcessor
from toolfix.testing import ScriptedExecutor

TOOLS = ToolRegistry.from_openai([WEATHER_CITY])
PROMPT = Prompt.of("Weather in Paris?")
CALL_TEXT = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


class Seen(ResponseProcessor):
    """A user's processor written against sequences only: records what it received."""

    def __init__(self) -> None:
        self.received: list[object] = []

    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],  # a user processor typed for sequences only
    ) -> list[Response]:
        self.received.append(responses)
        return [r.model_copy(update={"id": "seen"}) for r in responses]


class Child(Seen):
    """A subclass of a subclass, overriding process again."""

    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],  # a user processor typed for sequences only
    ) -> list[Response]:
        out = await super().process(executor, prompt, model, tools, responses)
        return [r.model_copy(update={"model": "child"}) for r in out]


def processors() -> list[ResponseProcessor]:
    return [
        IdentityProcessor(),
        ManualToolCallFixProcessor(),
        LLMBasedToolCallFixProcessor(),
        ManualToolCallFixProcessor() + Seen(),
        Seen(),
        Child(),
    ]


@pytest.mark.parametrize("processor", processors(), ids=repr)
async def test_one_response_gives_one_and_a_list_gives_a_list(processor: ResponseProcessor) -> None:
    one = Response.text_only(CALL_TEXT)
    single = await processor.process(ScriptedExecutor([]), PROMPT, "m", TOOLS, one)
    many = await processor.process(ScriptedExecutor([]), PROMPT, "m", TOOLS, [one])
    assert isinstance(single, Response)
    assert isinstance(many, list)
    assert many == [single]
    assert processor.process_sync(None, PROMPT, "m", TOOLS, one) == single
    assert processor.process_sync(None, PROMPT, "m", TOOLS, (one,)) == many


async def test_the_manual_fixer_repairs_a_single_response() -> None:
    out = await ManualToolCallFixProcessor().process(
        None, PROMPT, "m", TOOLS, Response.text_only(CALL_TEXT)
    )
    assert [(c.name, c.arguments) for c in out.tool_calls] == [("get_weather", {"city": "Paris"})]


async def test_subclasses_always_receive_a_list() -> None:
    seen = Child()
    one = Response.text_only("hello")
    out = await seen.process(None, PROMPT, "m", TOOLS, one)
    assert (out.id, out.model) == ("seen", "child")
    assert seen.received == [[one]]
    chain = ChainProcessor([IdentityProcessor(), seen])
    assert await chain.process(None, PROMPT, "m", TOOLS, one) == out
    assert await chain.process(None, PROMPT, "m", TOOLS, [one]) == [out]


class Twice(ResponseProcessor):
    """Turns each response into two (as a fallback may)."""

    async def process(
        self,
        executor: PromptExecutor | None,
        prompt: Prompt,
        model: str,
        tools: ToolsLike,
        responses: Sequence[Response],  # a user processor typed for sequences only
    ) -> list[Response]:
        return [r for r in responses for _ in range(2)]


async def test_one_response_that_becomes_several_must_be_asked_as_a_list() -> None:
    one = Response.text_only("hello")
    assert await Twice().process(None, PROMPT, "m", TOOLS, [one]) == [one, one]
    with pytest.raises(UnsupportedInputError, match="turned one response into 2"):
        await Twice().process(None, PROMPT, "m", TOOLS, one)


def test_as_responses() -> None:
    one = Response.text_only("x")
    assert as_responses(one) == [one]
    assert as_responses((one, one)) == [one, one]
    assert as_responses([]) == []
