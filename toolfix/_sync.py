"""Running the async core from synchronous code."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["run_sync"]


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from sync code.

    With no running event loop this is ``asyncio.run``. Inside a running loop (a
    notebook, an async web handler calling a sync helper) the coroutine runs on a
    fresh loop in a worker thread, so the sync surface never deadlocks its caller.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
