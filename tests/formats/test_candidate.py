"""Candidate's hand-written ``__init__`` (a speed path) stays the dataclass's own."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from toolfix._repair.formats._base import Candidate


def test_init_takes_the_fields_in_order_with_their_defaults() -> None:
    params = list(inspect.signature(Candidate.__init__).parameters.values())[1:]
    fields = dataclasses.fields(Candidate)
    assert [p.name for p in params] == [f.name for f in fields]
    for p, f in zip(params, fields, strict=True):
        if f.default is not dataclasses.MISSING:
            assert p.default == f.default, f.name
        elif f.default_factory is not dataclasses.MISSING:
            pytest.fail(f"{f.name}: a default factory the __init__ does not run")
        else:
            assert p.default is inspect.Parameter.empty, f.name


def test_init_sets_every_field_and_the_class_stays_frozen() -> None:
    values = {f.name: object() for f in dataclasses.fields(Candidate)}
    c = Candidate(**values)  # type: ignore[arg-type]
    assert {name: getattr(c, name) for name in values} == values
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.start = 1  # type: ignore[misc]
    moved = dataclasses.replace(Candidate(0, 1, "json", "x"), end=2)
    assert moved == Candidate(0, 2, "json", "x")
