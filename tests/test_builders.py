"""The repair engine's part builders (``toolfix._messages``) validate through the models'
own validators: each gives the very object the public constructor gives, and refuses
what it refuses."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from toolfix._messages import (
    FailureKind,
    InvalidToolCallPart,
    RepairRecord,
    TextPart,
    ToolCallPart,
    invalid_call,
    recovered_call,
    repair_record,
    text_part,
)

_TEXT = st.text(max_size=8)
_ARGS = st.dictionaries(_TEXT, st.none() | st.integers() | _TEXT | st.lists(_TEXT, max_size=2))
_KINDS = st.sampled_from([*FailureKind, "blocked", "truncated"])


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT, _TEXT, _ARGS, st.lists(st.tuples(_KINDS, _TEXT), max_size=2))
def test_builders_equal_the_constructors(
    call_id: str, name: str, raw: str, args: dict[str, Any], recs: list[tuple[str, str]]
) -> None:
    records = tuple(repair_record(k, d) for k, d in recs)  # type: ignore[arg-type]
    assert records == tuple(RepairRecord(kind=k, detail=d) for k, d in recs)
    for built, made in [
        (
            recovered_call(call_id, name, raw, args, records),
            ToolCallPart(id=call_id, name=name, arguments_raw=raw, arguments=args, repairs=records),
        ),
        (
            invalid_call(call_id, name or None, raw, "bad", "truncated", args or None, records),
            InvalidToolCallPart(
                id=call_id,
                name=name or None,
                raw=raw,
                error="bad",
                kind="truncated",
                arguments=args or None,
                repairs=records,
            ),
        ),
        (text_part(raw), TextPart(text=raw)),
    ]:
        assert type(built) is type(made)
        assert built == made
        assert built.model_dump() == made.model_dump()


def test_builders_refuse_what_the_constructors_refuse() -> None:
    with pytest.raises(ValidationError):
        recovered_call("c", "n", "{}", ["not", "a", "dict"], ())  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        text_part(3)  # type: ignore[arg-type]
    assert repair_record(FailureKind.TRUNCATED, "x").kind is FailureKind.TRUNCATED
