"""Name-keyed calls listed inside a wrapper object: an agent's output whose actions are
a list of ``{tool_name: {arguments}}`` objects beside its other fields.

browser-use asks its model for an object with its state and a list of actions, each
keyed by the action's name, and small models write it as the whole message:
``{"current_state": {...}, "action": [{"click_element": {"index": 14}}]}``
(browser-use/web-ui issue 620, Hunyuan) or ``{"action_sequence": [{"click_element":
{...}}, {"scroll_down": {...}}]}`` in a fence (browser-use/browser-use issue 488,
deepseek-r1:14b). The actions are the calls, in order; every other field of the
wrapper (the state, a memory, a goal) is data, never arguments.

Read by what the tools declare, never by the shape alone:

- the object is the message's whole payload (bare or fenced, the text holding nothing
  but it) and is no call itself (no name key holds a name: browser-use's list is under
  ``action``, which names the tool where it holds a string);
- exactly one of its values is a non-empty list whose every element is a call
  :func:`~toolfix._repair.namekeyed.name_keyed` reads: one key, an offered tool's
  name, whose value holds only parameters the tool declares. One element that is
  anything else (a tool name keying a description, a config entry with an undeclared
  key) and the list is data: none of its elements becomes a call;
- an empty list is no call (``"action": []``: browser-use issue 192).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._tools import ToolRegistry
from .namekeyed import name_keyed
from .names import NameMatch

__all__ = ["listed_actions"]


def listed_actions(
    obj: Mapping[str, Any],
    registry: ToolRegistry,
    resolve: Callable[[str], NameMatch],
    name_keys: tuple[str, ...],
    argument_keys: tuple[str, ...],
) -> tuple[str, list[Mapping[str, Any]]] | None:
    """The key of the list of name-keyed calls in ``obj`` and the calls (see the
    module), or ``None`` when it holds no such list, or more than one."""
    if any(isinstance(obj.get(k), str) for k in name_keys):
        return None  # (an object with a name is a call)
    found: tuple[str, list[Mapping[str, Any]]] | None = None
    for key, value in obj.items():
        if not isinstance(value, list) or not value:
            continue
        if not all(
            isinstance(v, Mapping) and name_keyed(v, registry, resolve, argument_keys) is not None
            for v in value
        ):
            continue  # (name_keyed: one key, an offered name, declared parameters only)
        if found is not None:
            return None  # two lists of calls: which are the actions is not said
        found = (key, value)
    return found
