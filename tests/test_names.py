"""Names and keys change only in how they are written (docs/design.md#the-admission-gate,
G4): case, separators, a namespace prefix, markup glued to the name, configured aliases.
A name or key that differs in its letters is never renamed: opposite pairs, typos,
look-alike letters."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolfix import FixConfig, InvalidToolCallPart, ToolCallPart, repair
from toolfix._repair.names import (
    MAX_NAME_CHARS,
    NameMatch,
    edit_distance,
    normalise_name,
    resolve_name,
)

TOOLS = ["get_weather", "search_documents", "send_email", "list_files"]

#: Opposite pairs: with only the first offered, a call to the second is never renamed
#: to it (and the other way round).
OPPOSITES = [
    ("install_package", "uninstall_package"),
    ("enable_feature", "disable_feature"),
    ("lock_account", "unlock_account"),
    ("encrypt_file", "decrypt_file"),
    ("import_data", "export_data"),
    ("get_config", "set_config"),
    ("add_user", "remove_user"),
    ("min_value", "max_value"),
    ("include_path", "exclude_path"),
    ("allow_host", "deny_host"),
    ("start_server", "stop_server"),
    ("open_door", "close_door"),
    ("show_panel", "hide_panel"),
    ("upload_file", "download_file"),
    ("increase_limit", "decrease_limit"),
    ("activate_account", "deactivate_account"),
    ("mount_volume", "unmount_volume"),
    ("follow_user", "unfollow_user"),
    ("pause_job", "resume_job"),
    ("grant_role", "revoke_role"),
    ("approve", "disapprove"),
    ("load", "unload"),
    ("push", "pull"),
    ("on", "off"),
]
#: The same words as argument keys.
KEY_OPPOSITES = [
    ("min", "max"),
    ("include", "exclude"),
    ("allow", "deny"),
    ("enable", "disable"),
    ("encrypt", "decrypt"),
    ("start", "stop"),
    ("show", "hide"),
    ("lock", "unlock"),
    ("to", "cc"),
    ("content", "contents"),
    ("source", "target"),
    ("upload", "download"),
    ("increase", "decrease"),
]


@pytest.mark.parametrize(("offered", "called"), [*OPPOSITES, *[(b, a) for a, b in OPPOSITES]])
def test_opposite_tool_names_are_never_renamed(offered: str, called: str) -> None:
    m = resolve_name(called, [offered])
    assert m.name is None
    assert m.repair is None
    assert m.candidates == (offered,)  # listed for the LLM fixer's feedback, never taken
    msg = {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": called, "arguments": "{}"}}
        ],
    }
    tool = {"type": "function", "function": {"name": offered, "parameters": {"type": "object"}}}
    (part,) = repair(msg, [tool]).parts
    assert isinstance(part, InvalidToolCallPart)
    assert part.kind == "unknown_name"
    assert part.name == called
    assert offered in part.error  # the feedback lists the tools


@pytest.mark.parametrize("closed", [True, False])
@pytest.mark.parametrize(
    ("declared", "written"), [*KEY_OPPOSITES, *[(b, a) for a, b in KEY_OPPOSITES]]
)
def test_opposite_argument_keys_are_never_renamed(
    declared: str, written: str, closed: bool
) -> None:
    params = {
        "type": "object",
        "properties": {declared: {"type": "string"}},
        "required": [declared],
    }
    if closed:
        params["additionalProperties"] = False
    tool = {"type": "function", "function": {"name": "f", "parameters": params}}
    text = f'<tool_call>{{"name": "f", "arguments": {{"{written}": "v"}}}}</tool_call>'
    parts = repair(text, [tool]).parts
    calls = [p for p in parts if isinstance(p, ToolCallPart | InvalidToolCallPart)]
    assert len(calls) == 1
    assert isinstance(calls[0], InvalidToolCallPart)
    assert calls[0].kind in ("missing_required", "extra_keys")


def test_key_written_differently_is_renamed() -> None:
    params = {
        "type": "object",
        "properties": {"file_path": {"type": "string"}},
        "required": ["file_path"],
    }
    tool = {"type": "function", "function": {"name": "f", "parameters": params}}
    for written in ("filePath", "File-Path", "FILE_PATH", "file path"):
        text = f'<tool_call>{{"name": "f", "arguments": {{"{written}": "v"}}}}</tool_call>'
        (call,) = [p for p in repair(text, [tool]).parts if isinstance(p, ToolCallPart)]
        assert call.arguments == {"file_path": "v"}
        assert any(r.kind == "key_alias" for r in call.repairs)


def test_exact_match_has_no_repair_and_no_candidates() -> None:
    assert resolve_name("get_weather", TOOLS) == NameMatch("get_weather", None, ())


def test_case_and_separators() -> None:
    m = resolve_name("getWeather", TOOLS)
    assert m.name == "get_weather"
    assert m.repair is not None
    assert m.repair.kind == "unknown_name"
    assert m.repair.detail == "renamed 'getWeather' to 'get_weather' (case/separators)"
    assert m.candidates == ("get_weather",)


def test_separator_variants() -> None:
    for variant in ("Get-Weather", "get weather", "GET.WEATHER", "get__weather"):
        assert resolve_name(variant, TOOLS).name == "get_weather", variant


def test_namespace_prefix() -> None:
    for prefixed in ("functions.get_weather", "tools.get_weather", "default_api.get_weather"):
        m = resolve_name(prefixed, TOOLS)
        assert m.name == "get_weather"
        assert m.repair is not None
        assert m.repair.detail == f"renamed {prefixed!r} to 'get_weather' (namespace prefix)"


def test_namespace_prefix_kept_when_registry_has_it() -> None:
    assert resolve_name("tools.search", ["tools.search"]) == NameMatch("tools.search", None, ())
    m = resolve_name("Tools.Search", ["tools.search"])
    assert m.name == "tools.search"
    assert m.repair is not None
    assert m.repair.detail.endswith("(case/separators)")


def test_markup_glued_to_the_name() -> None:
    m = resolve_name("get_weather</arg_value>", TOOLS)
    assert m.name == "get_weather"
    assert m.repair is not None
    assert "markup tags" in m.repair.detail
    assert resolve_name("<|tool|>getWeather", TOOLS).name == "get_weather"


def test_configured_alias() -> None:
    m = resolve_name("weather", TOOLS, aliases={"weather": "get_weather"})
    assert m.name == "get_weather"
    assert m.repair is not None
    assert m.repair.detail.endswith("(configured alias)")
    # an alias to a tool not offered is no match
    assert resolve_name("weather", ["list_files"], aliases={"weather": "get_weather"}).name is None
    config = FixConfig(name_aliases=(("weather", "get_weather"),))
    tool = {
        "type": "function",
        "function": {"name": "get_weather", "parameters": {"type": "object"}},
    }
    out = repair(
        '<tool_call>{"name": "weather", "arguments": {}}</tool_call>', [tool], config=config
    )
    (call,) = [p for p in out.parts if isinstance(p, ToolCallPart)]
    assert call.name == "get_weather"


@pytest.mark.parametrize(
    "name",
    [
        "get_wether",  # one letter missing
        "get_waether",  # two letters swapped
        "serch_documents",
        "g\u0435t_weather",  # Cyrillic ie
        "\u212a",  # KELVIN SIGN: lower() would make it a "k"
        "ｇｅｔ_ｗｅａｔｈｅｒ",  # full-width letters: other characters
        "get_weather_get_weather",
        "get_weatherget_weather",  # written twice
    ],
)
def test_names_with_other_letters_are_unknown(name: str) -> None:
    m = resolve_name(name, [*TOOLS, "k"])
    assert m.name is None
    assert m.repair is None


def test_two_registry_names_with_same_normal_form_give_no_match() -> None:
    m = resolve_name("GETWEATHER", ["get_weather", "getWeather"])
    assert m.name is None
    assert set(m.candidates[:2]) == {"get_weather", "getWeather"}


def test_far_name_is_refused_with_candidates() -> None:
    m = resolve_name("delete_everything", TOOLS)
    assert m.name is None
    assert m.repair is None
    assert set(m.candidates) == set(TOOLS)


def test_candidates_at_most_five() -> None:
    tools = [f"tool_{c}" for c in "abcdefgh"]
    m = resolve_name("tool_zz", tools)
    assert m.name is None
    assert len(m.candidates) == 5


def test_empty_and_separator_only_names() -> None:
    assert resolve_name("", TOOLS).name is None
    assert resolve_name("__", TOOLS).name is None
    assert resolve_name("functions.", TOOLS).name is None


def test_long_name_is_bounded() -> None:
    long_name = "get_weather" * 1000
    m = resolve_name(long_name, ["get_weather" * 1000, *TOOLS])
    assert m.name == "get_weather" * 1000  # exact match is still exact
    m2 = resolve_name(long_name + "x", ["get_weather" * 1000])
    assert m2 == NameMatch(None, None, ())
    assert resolve_name("x" * (MAX_NAME_CHARS + 1), ["x" * MAX_NAME_CHARS]).name is None


def test_normal_form_folds_ascii_only() -> None:
    assert normalise_name("Get-Weather") == "getweather"
    assert normalise_name("\u212a") == "\u212a"
    assert normalise_name("İ") == "İ"


def test_edit_distance_function() -> None:
    assert edit_distance("kitten", "sitting", 5) == 3
    assert edit_distance("kitten", "sitting", 2) == 3
    assert edit_distance("abcdefghij", "bacdefghji", 2) == 2
    assert edit_distance("", "abc", 3) == 3
    assert edit_distance("ab", "ba", 5) == 1
    assert edit_distance("abc", "abc", 0) == 0


# ---- generators ------------------------------------------------------------------------

_WORD = st.from_regex(r"[a-z]{2,8}", fullmatch=True)
_NAME = st.lists(_WORD, min_size=1, max_size=3).map("_".join)


def _letters(name: str) -> str:
    return normalise_name(name)


@settings(max_examples=300, deadline=None)
@given(_NAME, st.lists(_NAME, max_size=6), st.data())
def test_letter_edits_are_never_renamed(
    target: str, others: list[str], data: st.DataObject
) -> None:
    """Random letter edits (substitute, insert, delete, swap, a prefix like ``un``/``de``,
    a look-alike letter): the edited name is never renamed to another registry name."""
    edit = data.draw(st.sampled_from(["sub", "ins", "del", "swap", "prefix", "homoglyph"]))
    letters = [i for i, c in enumerate(target) if c.isalpha()]
    i = data.draw(st.sampled_from(letters))
    c = data.draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz"))
    if edit == "sub":
        edited = target[:i] + c + target[i + 1 :]
    elif edit == "ins":
        edited = target[:i] + c + target[i:]
    elif edit == "del":
        edited = target[:i] + target[i + 1 :]
    elif edit == "swap":
        edited = target[:i] + target[i + 1 : i + 2] + target[i] + target[i + 2 :]
    elif edit == "prefix":
        edited = data.draw(st.sampled_from(["un", "de", "dis", "re", "non_"])) + target
    else:
        edited = (
            target[:i]
            + {"a": "\u0430", "e": "\u0435", "o": "\u043e"}.get(target[i], "\u0456")
            + target[i + 1 :]
        )
    tools = [target, *others]
    m = resolve_name(edited, tools)
    if m.name is not None:  # only a registry name with the very same letters
        assert _letters(m.name) == _letters(edited)


@settings(max_examples=300, deadline=None)
@given(_NAME, st.lists(_NAME, max_size=6), st.data())
def test_written_differently_always_renamed(
    target: str, others: list[str], data: st.DataObject
) -> None:
    """Random case/separator/prefix variants of the one tool's name always resolve to it."""
    tools = [target, *[o for o in others if _letters(o) != _letters(target)]]
    words = target.split("_")
    sep = data.draw(st.sampled_from(["_", "-", ".", " ", "", "__"]))
    case = data.draw(st.sampled_from(["lower", "upper", "title", "camel"]))
    if case == "upper":
        words = [w.upper() for w in words]
    elif case == "title":
        words = [w.title() for w in words]
    elif case == "camel":
        words = [words[0], *[w.title() for w in words[1:]]]
    variant = sep.join(words)
    prefix = data.draw(st.sampled_from(["", "functions.", "tools.", "default_api.", "Functions."]))
    glued = data.draw(st.sampled_from(["", "</arg_value>", "<|tool_call_end|>"]))
    written = prefix + variant + glued
    m = resolve_name(written, tools)
    assert m.name == target
    assert (m.repair is None) == (written == target)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30), st.lists(st.text(min_size=1, max_size=20), max_size=8))
def test_result_is_none_or_a_registry_name_with_the_same_letters(
    name: str, tools: list[str]
) -> None:
    m = resolve_name(name, tools)
    assert m.name is None or m.name in tools
    assert (m.repair is None) == (m.name is None or m.name == name)
    assert all(c in tools for c in m.candidates)
    assert len(m.candidates) <= 5


@given(st.lists(st.from_regex(r"[a-z]{3,12}(_[a-z]{3,12}){0,2}", fullmatch=True), max_size=8))
def test_exact_names_always_resolve_to_themselves(tools: list[str]) -> None:
    for name in tools:
        assert resolve_name(name, tools) == NameMatch(name, None, ())


@settings(max_examples=150, deadline=None)
@given(_NAME, st.data())
def test_argument_keys_follow_the_same_rule(key: str, data: st.DataObject) -> None:
    """A key with a letter edit is never read as the parameter; the parameter written
    differently (case, separators) always is."""
    params = {
        "type": "object",
        "properties": {key: {"type": "string"}},
        "required": [key],
        "additionalProperties": False,
    }
    tool = {"type": "function", "function": {"name": "f", "parameters": params}}
    i = data.draw(st.sampled_from([j for j, c in enumerate(key) if c.isalpha()]))
    c = data.draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz"))
    edited = data.draw(
        st.sampled_from(
            [key[:i] + c + key[i + 1 :], key[:i] + c + key[i:], key[:i] + key[i + 1 :], "un" + key]
        )
    )
    out = repair(
        f'<tool_call>{{"name": "f", "arguments": {{"{edited}": "v"}}}}</tool_call>', [tool]
    )
    calls = [p for p in out.parts if isinstance(p, ToolCallPart)]
    if _letters(edited) != _letters(key):
        assert calls == []
    variant = "-".join(w.upper() for w in key.split("_"))
    out = repair(
        f'<tool_call>{{"name": "f", "arguments": {{"{variant}": "v"}}}}</tool_call>', [tool]
    )
    (call,) = [p for p in out.parts if isinstance(p, ToolCallPart)]
    assert call.arguments == {key: "v"}
