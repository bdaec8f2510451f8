"""Where call ids start from: the response, and a seed unique to this repair.

A call's id is :func:`~toolfix._repair.finish.derive_id` of its position, name and
arguments and of a *basis* made here once per response. Without
``FixConfig.id_seed`` the basis is new for every response (a random salt made once per
process, and after a fork, plus a counter), so the same output in two turns, or two
identical requests, get distinct ids, as engines' random ``call_…`` ids are. With
``id_seed`` the basis is the seed and the response's id: the ids are a function of the
input (tests, golden files). A stream fixes one basis for the whole stream, so the calls
it releases early keep their ids (``accumulate(stream)`` equals ``repair()`` given the
same seed).
"""

from __future__ import annotations

import itertools
import os
import secrets

__all__ = ["id_basis", "pin", "stream_seed"]

_salt = secrets.token_hex(8)
_count = itertools.count()


def _reseed() -> None:
    """A forked worker makes its own salt (the parent's counter would repeat in it)."""
    global _salt, _count
    _salt = secrets.token_hex(8)
    _count = itertools.count()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reseed)


#: A seed for every repair given none (:func:`toolfix.testing.pinned_ids`, for test
#: suites that compare two repairs); ``None``: fresh ids.
_pinned: int | None = None


def id_basis(response_id: str | None, id_seed: int | None) -> str:
    """The text a response's call ids derive from (see the module docstring)."""
    if id_seed is None:
        id_seed = _pinned
    if id_seed is not None:
        return f"{id_seed}:{response_id or ''}"
    return f"r{_salt}{next(_count)}:{response_id or ''}"


def stream_seed() -> int:
    """The ``id_seed`` of one stream that was given none: random (63 bits), or the
    pinned seed."""
    return secrets.randbits(63) if _pinned is None else _pinned


def pin(seed: int | None) -> int | None:
    """Make ``seed`` the seed of every repair given none (``None``: fresh ids again);
    returns the seed pinned before."""
    global _pinned
    before, _pinned = _pinned, seed
    return before
