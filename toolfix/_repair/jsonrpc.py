"""A call written as a JSON-RPC request: the envelope MCP clients send to a server.

Models that have seen MCP traffic write their call as the request itself instead of a
tool call:

- ``{"method": "tools/call", "params": {"name": "write_file", "arguments": {...}}}``
  (the MCP ``tools/call`` request; deepseek-reasoner in NextChat, ChatGPTNextWeb/NextChat
  issue 6373);
- ``{"jsonrpc": "2.0", "method": "eval", "params": {"expression": "..."}}`` (the method
  named after the tool, the params its arguments; mistral-nemo in Ollama, ollama/ollama
  issue 5976).

Read by what the registry declares, never by the shape alone: the object holds only a
request's keys (``jsonrpc``, ``id``, ``method``, ``params``); for ``tools/call`` the
params are a call object whose name is an offered tool (written as declared, or
differently only in how it is written: promise 4); otherwise the method is an offered
tool's name and every key of the params is a parameter the tool declares (a request to
some other method, ``{"method": "tools/list"}``, an RPC of another API, stays text).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._messages import FailureKind, repair_record
from .._tools import ToolRegistry
from .finish import CallShape
from .names import NameMatch

__all__ = ["rpc_call"]

_REQUEST_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
_MCP_CALL = "tools/call"
_READ = repair_record(FailureKind.WRAPPER, "read the call from a JSON-RPC request")


def rpc_call(
    obj: Mapping[str, Any],
    registry: ToolRegistry,
    resolve: Callable[[str], NameMatch],
    shape: Callable[[Any], CallShape | None],
) -> CallShape | None:
    """The call shape of ``obj`` read as a JSON-RPC request (see the module), or
    ``None`` when it is not one. ``shape``: how a call object is read (the MCP
    request's params are one)."""
    method, params = obj.get("method"), obj.get("params")
    if not isinstance(method, str) or not isinstance(params, Mapping):
        return None
    if not obj.keys() <= _REQUEST_KEYS:
        return None
    if method == _MCP_CALL:
        inner = shape(params)
        if inner is None or not isinstance(inner.name, str) or resolve(inner.name).name is None:
            return None
        inner.repairs.insert(0, _READ)
        return inner
    name = resolve(method).name
    tool = registry.lookup(name) if name is not None else None
    if tool is None or not params or any(k not in tool.properties for k in params):
        return None
    return CallShape(method, dict(params), None, [_READ], has_args_key=True)
