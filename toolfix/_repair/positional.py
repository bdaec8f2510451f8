"""Positional arguments: a call written ``read_file("gradle.properties")``, its value by
position, not by name, bound to a parameter only where the tool's declaration leaves
one reading.

Families whose grammar allows positions (pythonic calls: Llama 3.x, Gemma's Python-style
calls, a DeepSeek ``invoke read_file("x")``: devoxx/DevoxxGenieIDEAPlugin issue 1288;
Gemma 4 writing ``BEGIN_ARG:`` with no name: ollama/ollama issue 18275) carry values with no
key. A JSON schema's ``properties`` promise no order (they are a mapping, and tools are
often written by hand), so a position is never matched to the n-th property. The one
binding taken is the one no order decides:

* **one value**, a scalar (a string, a number, a boolean): a dict or a list written
  by position is the arguments object's own shape and other readers take it;
* **one parameter it can be**: the tool declares exactly one parameter, or exactly one
  required parameter (a call must carry every required parameter, so a lone value
  given to an optional one could never be an admissible call).

A lone **object** written by position (``exec({"command": "pwd", "description":
"…"})``) is the call's arguments object when it holds that one parameter as a key
(:func:`bind_object`): it cannot then be that parameter's value too, so no order decides
it either. Its keys are kept as written, undeclared ones included (promise 5: a schema
that does not forbid them keeps them); a key written twice is noted for the gate (G3).
The schema-anchored reader binds it (:mod:`toolfix._repair.posread`), the reader of
objects of arguments; the family readers leave it (with the reader off, an invalid
call with its raw text, as before).
An object without that key (``set_config({"theme": "dark"})`` for a tool whose one
parameter is ``config``) may be the parameter's value: not bound. Sources: Kimi K2.5 in
OpenClaw (openclaw/openclaw issue 41297), Qwen3.5 in vllm-mlx (issue 146), Llama 3.3 on
Groq in pydantic-ai (issue 1714), DeepSeek in openclaw-zh (issue 201).

Anything else (two positions, a position beside keywords, a tool with no required
parameter and several optional ones) stays what it was: an invalid call with its raw
text, for the LLM fixer. A bound call carries a ``positional_arguments`` repair record
naming the parameter, so users can count and audit it; the gate then validates the
value against the parameter's schema as for every call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._messages import FailureKind
from .._tools import ToolRegistry

__all__ = ["bind_object", "bind_positional", "lone_parameters", "positional_note"]

#: The repair kind a bound call carries.
KIND = FailureKind.POSITIONAL_ARGUMENTS.value


def lone_parameters(registry: ToolRegistry) -> dict[str, str]:
    """Each tool with the one parameter a lone positional value binds to: the tool's
    only parameter, or its only required one."""
    out: dict[str, str] = {}
    for name in registry:
        tool = registry.lookup(name)
        if tool is None:
            continue
        props = tool.properties
        if len(props) == 1:
            out[name] = next(iter(props))
        elif len(tool.required) == 1 and tool.required[0] in props:
            out[name] = tool.required[0]
    return out


def positional_note(param: str) -> tuple[str, str]:
    """The ``(kind, detail)`` note a bound call carries."""
    return (KIND, f"bound the value written by position to {param!r}, the one parameter it can be")


def bind_positional(
    name: str, values: tuple[Any, ...], keywords: int, lone: Callable[[str], str | None]
) -> tuple[dict[str, Any], tuple[str, str]] | None:
    """``values`` (written by position, beside ``keywords`` keyword arguments) bound to
    tool ``name``'s lone parameter (``lone``: :meth:`ScanContext.lone_param
    <toolfix._repair.formats.ScanContext.lone_param>`), with the note to record;
    ``None`` when the binding is not the only reading (module docstring)."""
    if len(values) != 1 or keywords:
        return None
    (value,) = values
    if not isinstance(value, str | int | float | bool):
        return None
    param = lone(name)
    if param is None:
        return None
    return {param: value}, positional_note(param)


def bind_object(
    name: str, members: dict[str, Any], lone: Callable[[str], str | None]
) -> tuple[dict[str, Any], tuple[str, str]] | None:
    """The object ``members`` written by position as tool ``name``'s arguments, with the
    note to record, when it holds the tool's lone parameter (``lone``) as a key;
    ``None`` otherwise (module docstring)."""
    param = lone(name)
    if param is None or param not in members:
        return None
    return members, (
        KIND,
        f"read the object written by position as the arguments: it holds {param!r}, "
        "the parameter every call carries",
    )
