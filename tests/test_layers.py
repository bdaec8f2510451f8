"""The package's layers point one way, and its import graph has no cycle.

Every module of ``toolfix`` is parsed with ``ast`` (nothing is imported) and every
import statement counts: at the top of a module, inside a function (a lazy import that
dodges a cycle is still a dependency) or in a class body. Imports under
``if TYPE_CHECKING:`` never run, so they make no cycle; they must still not point
upward (a type from a higher layer is a dependency of the design all the same).

A module may import its own layer or a lower one. The table below names every
module's layer (by longest prefix); a new module must be placed in it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "toolfix"

MODEL, ENGINE, LLM_STREAM, FRONT, LOOP, TOP = range(6)
LAYER_NAMES = {
    MODEL: "model (messages, tools, config, errors, the processor/executor protocols)",
    ENGINE: "repair engine (fix(Response, ToolRegistry, FixConfig) -> Response)",
    LLM_STREAM: "LLM fixer's parts and the stream",
    FRONT: "processors, executors, front door",
    LOOP: "agent loop",
    TOP: "integrations, Temporal, bench, CLI",
}

#: module (or package prefix) -> layer; the longest matching prefix wins.
LAYERS: dict[str, int] = {
    # the model and its interfaces
    "toolfix._errors": MODEL,
    "toolfix._messages": MODEL,
    "toolfix._tools": MODEL,
    "toolfix._config": MODEL,
    "toolfix._convert": MODEL,
    "toolfix._cache": MODEL,
    "toolfix._patterns": MODEL,
    "toolfix._schema_check": MODEL,
    "toolfix._sync": MODEL,
    "toolfix._strenum": MODEL,  # enum.StrEnum for every supported Python
    "toolfix._tool_options": MODEL,  # which request options are about tools
    "toolfix._log": MODEL,  # the "toolfix" logger
    "toolfix._pipeline": MODEL,
    "toolfix._pipeline.processor": MODEL,  # ResponseProcessor, chains
    "toolfix._pipeline.executor": MODEL,  # PromptExecutor
    "toolfix._repair.spec": MODEL,  # FormatSpec: what FixConfig.custom_formats holds
    "toolfix.errors": MODEL,
    "toolfix.messages": MODEL,
    "toolfix.config": MODEL,
    "toolfix.tools": MODEL,
    # the pure repair engine
    "toolfix._repair": ENGINE,
    "toolfix._repair.elision": ENGINE,  # a bare ``...`` is a placeholder, not a value
    "toolfix._repair.slots": ENGINE,  # a template slot (``<specific_city>``) is no value
    "toolfix._repair.replacenote": ENGINE,  # a stand-in the text after the call asks to replace
    "toolfix._repair.leadins": ENGINE,  # what makes a text documentation of a call format
    "toolfix._repair.transcripts": ENGINE,  # calls displayed in a session transcript
    "toolfix._repair.history": ENGINE,  # records of calls already made, written back
    "toolfix._repair.rendered": ENGINE,  # calls in a rendered conversation (user turn)
    "toolfix._repair.shelldata": ENGINE,  # calls as the data of a shell command
    "toolfix._repair.keyalias": ENGINE,  # FixConfig.argument_aliases
    "toolfix._repair.keymarks": ENGINE,  # quotes glued to argument keys
    "toolfix._repair.envkeys": ENGINE,  # damaged envelope keys
    "toolfix._repair.jsonrpc": ENGINE,  # a call written as a JSON-RPC request
    "toolfix._repair.junkkeys": ENGINE,  # keys that hold JSON punctuation
    "toolfix._repair.listargs": ENGINE,  # arguments in a one-element list
    "toolfix._repair.nametable": ENGINE,  # the offered names, found by the reader and the stream
    "toolfix._repair.ending": ENGINE,  # a call closed by the end of an output the model ended
    "toolfix._repair.innerquotes": ENGINE,  # a string value's bare inner quotes
    "toolfix._repair.splicedkeys": ENGINE,  # a key written again without its colon
    "toolfix._repair.escapedjson": ENGINE,  # a JSON body written escaped
    "toolfix._repair.cutclosers": ENGINE,  # a closer cut off at the end of the text
    "toolfix._repair.namekeyed": ENGINE,  # {"tool_name": {arguments}}
    "toolfix._repair.quotes": ENGINE,  # the quote pairs a value may be written between
    "toolfix._repair.termwrap": ENGINE,  # tags broken by a terminal's line wrap
    "toolfix._repair.actionlist": ENGINE,  # name-keyed calls listed inside a wrapper object
    "toolfix._repair.catalogue": ENGINE,  # example calls under a list of the tools one has
    "toolfix._repair.formatlabels": ENGINE,  # a call under a label naming a model or family
    "toolfix._repair.formats.kimi_ids": ENGINE,  # Kimi ids written without separators
    "toolfix._repair.formats.gemma_shell": ENGINE,  # Gemma 4 calls with a damaged shell
    "toolfix._repair.stripped": ENGINE,  # tagged calls whose angle brackets were stripped
    "toolfix._repair.positional": ENGINE,  # a value written by position, bound by the schema
    "toolfix._repair.posread": ENGINE,  # the schema-anchored reader's call by position
    "toolfix._repair.delimiters": ENGINE,  # delimiters a model invented around name{json}
    # above the engine: the LLM fixer's parts, the stream
    "toolfix._llm": LLM_STREAM,
    "toolfix._stream": LLM_STREAM,
    "toolfix.streams": LLM_STREAM,
    # processors, executors, the front door
    "toolfix._llm.fixer": FRONT,
    "toolfix._llm.__init__": FRONT,
    "toolfix._repair.manual": FRONT,
    "toolfix._pipeline.litellm": FRONT,
    "toolfix._api": FRONT,
    "toolfix.testing": FRONT,
    "toolfix.processors": FRONT,
    "toolfix.formats": FRONT,
    "toolfix.convert": FRONT,
    # the loop
    "toolfix._loop": LOOP,
    "toolfix.loop": LOOP,
    # on top
    "toolfix.integrations": TOP,
    "toolfix.temporal": TOP,
    "toolfix._bench": TOP,
    "toolfix._cli": TOP,
    "toolfix._cli_options": TOP,
    "toolfix._serve": TOP,
    "toolfix._proxy_app": TOP,
    "toolfix.__main__": TOP,
    "toolfix.__init__": TOP,
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts)  # packages keep ``.__init__``: their own entry in the table


def layer_of(module: str) -> int:
    best = ""
    for prefix in LAYERS:
        if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
            best = prefix
    if not best:
        raise AssertionError(f"{module} has no layer: add it to LAYERS in {__file__}")
    return LAYERS[best]


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", "")
            if name == "TYPE_CHECKING":
                for sub in node.body:
                    ids.update(id(n) for n in ast.walk(sub))
    return ids


def _targets(module: str, node: ast.Import | ast.ImportFrom, modules: set[str]) -> set[str]:
    """The package's modules ``node`` loads (``from x import y`` loads ``x.y`` when ``y``
    is a module, else ``x``)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level == 0:
            base = node.module or ""
        else:
            parts = module.split(".")[:-1]  # the module's package (``__init__`` dropped)
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*parts, *([node.module] if node.module else [])])
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    out: set[str] = set()
    for name in names:
        if name in modules:
            out.add(name)
        elif f"{name}.__init__" in modules:
            out.add(f"{name}.__init__")
    return out


def import_graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(runtime edges, type-only edges) between the package's modules."""
    paths = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    modules = set(paths)
    runtime: dict[str, set[str]] = {m: set() for m in modules}
    typing_only: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        type_only = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                into = typing_only if id(node) in type_only else runtime
                into[module] |= _targets(module, node, modules) - {module}
    return runtime, typing_only


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


RUNTIME, TYPING_ONLY = import_graph()


def test_every_module_has_a_layer() -> None:
    for module in RUNTIME:
        layer_of(module)


@pytest.mark.parametrize("edges", [RUNTIME, TYPING_ONLY], ids=["runtime", "type-only"])
def test_no_import_points_upward(edges: dict[str, set[str]]) -> None:
    upward = [
        f"{m} ({LAYER_NAMES[layer_of(m)]}) imports {t} ({LAYER_NAMES[layer_of(t)]})"
        for m, targets in sorted(edges.items())
        for t in sorted(targets)
        if layer_of(t) > layer_of(m)
    ]
    assert upward == []


def test_no_import_cycle_lazy_imports_counted() -> None:
    assert _cycles(RUNTIME) == []


def test_the_checks_can_fail() -> None:
    """The graph is read right: known edges are there, and a cycle is found."""
    assert "toolfix._repair.engine" in RUNTIME["toolfix._repair.manual"]
    assert "toolfix._repair.engine" in RUNTIME["toolfix._stream.core"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert layer_of("toolfix._repair.textscan") == ENGINE
    assert layer_of("toolfix._repair.manual") == FRONT


def test_the_engine_imports_only_the_model() -> None:
    for module, targets in RUNTIME.items():
        if layer_of(module) == ENGINE:
            assert {layer_of(t) for t in targets} <= {MODEL, ENGINE}, module
