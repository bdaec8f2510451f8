"""Koog's constructor order, custom keys as a ToolCallJsonConfig, and strict settings."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from toolfix import (
    FixConfig,
    Limits,
    LLMBasedToolCallFixProcessor,
    ManualToolCallFixProcessor,
    Response,
    ToolRegistry,
)
from toolfix.config import ToolCallJsonConfig
from toolfix.errors import ConfigurationError
from toolfix.processors import FixerPrompts
from toolfix.temporal import ActivityOptions, RetrySettings

DEFAULT_NAME_KEYS = ToolCallJsonConfig.DEFAULT_NAME_KEYS
DEFAULT_ARGUMENT_KEYS = ToolCallJsonConfig.DEFAULT_ARGUMENT_KEYS


def get_weather(city: str) -> str:
    """Current weather of a city."""
    return f"sunny in {city}"


TOOLS = ToolRegistry.from_functions(get_weather)
CUSTOM = '{"command": "get_weather", "payload": {"city": "Paris"}}'


def calls(resp: Response) -> list[tuple[str, dict[str, Any] | None]]:
    return [(c.name, c.arguments) for c in resp.tool_calls]


# ---- constructors: registry first, config second ------------------------------------------


def test_the_manual_fixer_takes_the_registry_first_as_in_koog() -> None:
    fixer = ManualToolCallFixProcessor(TOOLS)
    assert fixer.registry.names == ["get_weather"]
    out = fixer.fix(Response.text_only('{"name": "get_weather", "arguments": {"city": "Oslo"}}'))
    assert calls(out) == [("get_weather", {"city": "Oslo"})]


def test_custom_keys_as_a_bare_tool_call_json_config_for_both_fixers() -> None:
    keys = ToolCallJsonConfig(
        name_keys=(*DEFAULT_NAME_KEYS, "command"), argument_keys=(*DEFAULT_ARGUMENT_KEYS, "payload")
    )
    manual = ManualToolCallFixProcessor(TOOLS, keys)
    assert manual.config == FixConfig(json_keys=keys)
    assert calls(manual.fix(Response.text_only(CUSTOM))) == [("get_weather", {"city": "Paris"})]
    llm = LLMBasedToolCallFixProcessor(TOOLS, keys)
    assert isinstance(llm.preprocessor, ManualToolCallFixProcessor)
    assert llm.preprocessor.config.json_keys == keys
    assert llm.preprocessor.registry is llm.registry
    # the defaults alone do not know these keys
    assert calls(ManualToolCallFixProcessor(TOOLS).fix(Response.text_only(CUSTOM))) == []


def test_default_key_constants_are_the_defaults() -> None:
    from toolfix._config import DEFAULT_ID_KEYS, DEFAULT_WRAPPER_KEYS

    assert ToolCallJsonConfig.DEFAULT_ID_KEYS == DEFAULT_ID_KEYS
    assert ToolCallJsonConfig.DEFAULT_WRAPPER_KEYS == DEFAULT_WRAPPER_KEYS
    cfg = ToolCallJsonConfig()
    assert (cfg.name_keys, cfg.argument_keys) == (DEFAULT_NAME_KEYS, DEFAULT_ARGUMENT_KEYS)
    assert cfg.extend(name_keys=["command"]).name_keys == (*DEFAULT_NAME_KEYS, "command")


@pytest.mark.parametrize("cls", [ManualToolCallFixProcessor, LLMBasedToolCallFixProcessor])
@pytest.mark.parametrize("config", [FixConfig(), ToolCallJsonConfig()], ids=type)
def test_a_config_passed_first_says_the_new_order(cls: type[Any], config: BaseModel) -> None:
    with pytest.raises(ConfigurationError, match=r"registry first and the configuration second"):
        cls(config)
    with pytest.raises(ConfigurationError, match=r"registry first"):
        cls(config, TOOLS)


@pytest.mark.parametrize("cls", [ManualToolCallFixProcessor, LLMBasedToolCallFixProcessor])
def test_a_config_of_another_type_is_refused(cls: type[Any]) -> None:
    with pytest.raises(ConfigurationError, match="FixConfig or a ToolCallJsonConfig"):
        cls(TOOLS, {"json_keys": {}})


# ---- strict settings ----------------------------------------------------------------------

MISSPELT = [
    (ToolCallJsonConfig, "name_json_keys", ("command",), "name_keys"),
    (FixConfig, "json_key", ToolCallJsonConfig(), "json_keys"),
    (FixConfig, "reasoning_call", "promote", "reasoning_calls"),
    (Limits, "max_call", 3, "max_calls"),
    (FixerPrompts, "sytem", "x", "system"),
    (ActivityOptions, "start_to_close_timeout", 3.0, "start_to_close_timeout_s"),
    (RetrySettings, "maximum_attempt", 2, "maximum_attempts"),
]


@pytest.mark.parametrize(("cls", "field", "value", "nearest"), MISSPELT)
def test_a_misspelt_setting_raises_naming_the_nearest(
    cls: type[BaseModel], field: str, value: object, nearest: str
) -> None:
    with pytest.raises(ConfigurationError) as info:
        cls(**{field: value})
    assert repr(field) in str(info.value)
    assert f"did you mean {nearest!r}" in str(info.value)


def test_a_misspelt_nested_setting_raises_too() -> None:
    with pytest.raises(ConfigurationError, match="did you mean 'name_keys'"):
        FixConfig.model_validate({"json_keys": {"name_key": ["command"]}})


def test_a_wrong_literal_value_already_raises() -> None:
    with pytest.raises(ValidationError, match="'ignore', 'promote' or 'when_no_answer'"):
        FixConfig(reasoning_calls="promot")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        FixConfig(truncated="keep")  # type: ignore[arg-type]


@given(st.sampled_from([ToolCallJsonConfig, FixConfig, Limits, FixerPrompts]), st.text(min_size=1))
def test_no_unknown_name_is_ever_accepted(cls: type[BaseModel], name: str) -> None:
    if name in cls.model_fields:
        return
    with pytest.raises(ConfigurationError, match="has no setting"):
        cls.model_validate({name: 1})
