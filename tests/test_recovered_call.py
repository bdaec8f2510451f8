"""``recovered_call`` builds the very part the validating constructor builds."""

from __future__ import annotations

from typing import Any

import pytest

from toolfix import _messages
from toolfix._messages import (
    FailureKind,
    InvalidToolCallPart,
    RepairRecord,
    ToolCallPart,
    invalid_call,
    recovered_call,
)


class _Key(str):
    pass


def _state(model: Any) -> tuple[Any, ...]:
    return (
        type(model),
        list(model.__dict__.items()),
        [type(v) for v in model.__dict__.values()],
        model.model_fields_set,
        model.__pydantic_extra__,
        model.__pydantic_private__,
        repr(model),
        model.model_dump_json(),
    )


_RECORDS = (RepairRecord(kind="code_fence", detail="read"), RepairRecord(kind="mine", detail="x"))
_CASES: list[tuple[Any, ...]] = [
    ("call_1", "get_weather", '{"city":"Paris"}', {"city": "Paris"}, _RECORDS),
    ("call_2", "f", "{}", {}, ()),
    ("call_3", "f", '{"a":[1,{"b":null}]}', {"a": [1, {"b": None}]}, _RECORDS[:1]),
    # what the builder does not trust goes to the validating constructor
    ("call_4", "f", '{"k":1}', {_Key("k"): 1}, ()),
    ("call_5", "f", "{}", {}, list(_RECORDS)),
]


@pytest.mark.parametrize("case", _CASES)
def test_recovered_call_is_the_validating_constructors_part(case: tuple[Any, ...]) -> None:
    call_id, name, raw, args, repairs = case
    built = recovered_call(call_id, name, raw, dict(args), repairs)
    checked = ToolCallPart(
        id=call_id, name=name, arguments_raw=raw, arguments=dict(args), repairs=repairs
    )
    assert built == checked
    assert _state(built) == _state(checked)


def test_the_trusted_builder_is_in_use_with_this_pydantic() -> None:
    assert _messages._TRUSTED
    args = {"a": 1}
    first = recovered_call("c", "f", '{"a":1}', args, ())
    second = recovered_call("c", "f", '{"a":1}', dict(args), ())
    assert first.arguments is args  # the caller's fresh dict, not a copy
    assert first == second
    assert first.model_fields_set is not second.model_fields_set
    with pytest.raises(Exception, match="frozen"):
        first.name = "g"  # type: ignore[misc]


@pytest.mark.parametrize("text", ["", " ", "prose", "line\n\u2028é", "x" * 5000])
def test_text_part_is_the_validating_constructors_part(text: str) -> None:
    built = _messages.text_part(text)
    checked = _messages.TextPart(text=text)
    assert built == checked
    assert _messages.same_model(built, checked)
    with pytest.raises(Exception, match="frozen"):
        built.text = "other"  # type: ignore[misc]


_INVALID_CASES: list[tuple[Any, ...]] = [
    ("call_1", "get_weather", "<tool_call>{}", "why", FailureKind.MISSING_REQUIRED, {"a": 1}),
    ("call_2", None, "", "", FailureKind.INVALID_JSON, None),
    ("call_3", "f", "raw", "why", FailureKind.TRUNCATED, {"a": [1, {"b": None}]}),
    # what the builder does not trust goes to the validating constructor
    ("call_4", "f", "raw", "why", "truncated", None),
    ("call_5", "f", "raw", "why", "blocked", None),
    ("call_6", "f", "raw", "why", FailureKind.TRUNCATED, {_Key("k"): 1}),
]


@pytest.mark.parametrize("case", _INVALID_CASES)
@pytest.mark.parametrize("repairs", [(), _RECORDS, list(_RECORDS)])
def test_invalid_call_is_the_validating_constructors_part(
    case: tuple[Any, ...], repairs: Any
) -> None:
    call_id, name, raw, error, kind, args = case
    given = None if args is None else dict(args)
    built = invalid_call(call_id, name, raw, error, kind, given, repairs)
    checked = InvalidToolCallPart(
        id=call_id,
        name=name,
        raw=raw,
        error=error,
        kind=str(kind),
        arguments=None if args is None else dict(args),
        repairs=repairs,
    )
    assert built == checked
    assert _state(built) == _state(checked)
    assert given is None or built.arguments is not given  # a copy, as validation makes


@pytest.mark.parametrize(
    "update",
    [
        {"id": "other"},
        {"id": "other", "provider_data": {"k": [1]}},
        {"id": "x", "raw": "r", "provider_data": None, "repairs": _RECORDS},
    ],
)
def test_copied_with_is_model_copy(update: dict[str, Any]) -> None:
    parts: list[Any] = [
        recovered_call("c", "f", '{"a":1}', {"a": 1}, _RECORDS),
        invalid_call("c", "f", "raw", "why", FailureKind.TRUNCATED, {"a": 1}, ()),
        InvalidToolCallPart(raw="r", error="e"),
    ]
    for part in parts:
        given = {k: v for k, v in update.items() if k in type(part).model_fields}
        built = _messages.copied_with(part, given)
        assert _state(built) == _state(part.model_copy(update=given))
        assert built.__dict__ is not part.__dict__
        assert built.model_fields_set is not part.model_fields_set


def test_the_check_refuses_a_builder_that_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _messages._trusted_agrees()
    defaults = dict(_messages.CALL_DEFAULTS)
    monkeypatch.setitem(_messages.CALL_DEFAULTS, "provider_data", {})  # shared mutable default
    assert not _messages._trusted_agrees()
    monkeypatch.setattr(_messages, "CALL_DEFAULTS", {**defaults, "provider_executed": True})
    assert not _messages._trusted_agrees()
    monkeypatch.setattr(_messages, "CALL_DEFAULTS", defaults)
    monkeypatch.setattr(_messages, "_RECOVERED_SET", {"id", "name"})
    assert not _messages._trusted_agrees()
    monkeypatch.setattr(_messages, "_RECOVERED_SET", set(_messages._RECOVERED_FIELDS))
    monkeypatch.setattr(_messages, "_TEXT_SET", set())  # fields set differs: caught
    assert not _messages._trusted_agrees()
    monkeypatch.setattr(_messages, "_TEXT_SET", {"text"})
    monkeypatch.setattr(_messages, "_INVALID_SET", {"raw", "error"})
    assert not _messages._trusted_agrees()


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, 2.5, None, True, 'é\n"\u2028'], "b": {}, "c": 10**30},
        [],
        "x",
        {1: 2, None: 3, 1.5: "k"},
    ],
)
def test_canonical_json_matches_the_encoder(value: Any) -> None:
    assert _messages.canonical_json(value) == _messages._CANONICAL_ENCODER.encode(value)


def test_canonical_json_reports_a_circular_value_as_json_does() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        _messages.canonical_json({"a": loop})
    with pytest.raises(TypeError):
        _messages.canonical_json({"a": object()})


@pytest.mark.parametrize("kind", list(_messages.FailureKind))
def test_repair_record_is_the_validated_record(kind: _messages.FailureKind) -> None:
    built = _messages.repair_record(kind, "'days': \"5\" → 5 (integer)")
    assert _state(built) == _state(RepairRecord(kind=kind.value, detail=built.detail))
    assert built.model_fields_set == {"kind", "detail"}
    assert hash(built) == hash(RepairRecord(kind=kind, detail=built.detail))


def test_repair_record_validates_what_it_cannot_trust() -> None:
    assert _messages.repair_record("custom", "d").kind == "custom"  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="detail"):
        _messages.repair_record(_messages.FailureKind.WRAPPER, 3)  # type: ignore[arg-type]
