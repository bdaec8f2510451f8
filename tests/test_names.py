"""Tool-name repair: exact, normalised, edit distance, and the refusals."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolfix._repair.names import (
    MAX_NAME_CHARS,
    NameMatch,
    edit_distance,
    normalise_name,
    resolve_name,
    within_one_edit,
)

TOOLS = ["get_weather", "search_documents", "send_email", "list_files"]


def test_exact_match_has_no_repair_and_no_candidates() -> None:
    assert resolve_name("get_weather", TOOLS) == NameMatch("get_weather", None, ())


def test_case_and_separators() -> None:
    m = resolve_name("getWeather", TOOLS)
    assert m.name == "get_weather"
    assert m.repair is not None
    assert m.repair.kind == "unknown_name"
    assert m.repair.detail == "renamed 'getWeather' to 'get_weather' (case/separators)"
    assert m.candidates[0] == "get_weather"


def test_separator_variants() -> None:
    for variant in ("Get-Weather", "get weather", "GET.WEATHER", "get__weather"):
        assert resolve_name(variant, TOOLS).name == "get_weather", variant


def test_fullwidth_letters_fold_through_nfkc() -> None:
    m = resolve_name("ｇｅｔ_ｗｅａｔｈｅｒ", TOOLS)
    assert m.name == "get_weather"
    assert m.repair is not None
    assert m.repair.detail.endswith("(case/separators)")


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


def test_edit_distance_one() -> None:
    m = resolve_name("get_wether", TOOLS)
    assert m.name == "get_weather"
    assert m.repair is not None
    assert m.repair.detail == "renamed 'get_wether' to 'get_weather' (edit distance 1)"


def test_transposition_counts_one() -> None:
    m = resolve_name("get_waether", TOOLS)
    assert m.name == "get_weather"
    assert m.repair is not None
    assert m.repair.detail.endswith("(edit distance 1)")


def test_edit_distance_two_on_long_name() -> None:
    m = resolve_name("serch_documnts", TOOLS)
    assert m.name == "search_documents"
    assert m.repair is not None
    assert m.repair.detail.endswith("(edit distance 2)")


def test_edit_distance_two_rejected_on_short_name() -> None:
    # 'sendemail' has 9 letters: floor(0.2 * 9) = 1 edit allowed.
    m = resolve_name("sand_emial", TOOLS)
    assert m.name is None
    assert m.repair is None
    assert m.candidates[0] == "send_email"


def test_max_distance_caps_long_names() -> None:
    assert resolve_name("serch_documnts", TOOLS, max_distance=1).name is None


def test_ratio_rejects_short_names() -> None:
    m = resolve_name("ab", ["ac", "zzzz"], max_ratio=0.2)
    assert m == NameMatch(None, None, ("ac", "zzzz"))


def test_ratio_allows_short_names_when_generous() -> None:
    assert resolve_name("ab", ["ac", "zzzz"], max_ratio=0.5).name == "ac"


def test_tie_gives_no_match() -> None:
    m = resolve_name("get_dat", ["get_data", "get_date"])
    assert m.name is None
    assert m.repair is None
    assert set(m.candidates[:2]) == {"get_data", "get_date"}


def test_two_registry_names_with_same_normal_form_give_no_match() -> None:
    m = resolve_name("GETWEATHER", ["get_weather", "getWeather"])
    assert m.name is None
    assert m.candidates[:2] == ("get_weather", "getWeather")


def test_homoglyph_does_not_resolve_through_normalisation() -> None:
    cyrillic = "g\u0435t_weather"  # Cyrillic small letter ie
    assert normalise_name(cyrillic) != normalise_name("get_weather")
    m = resolve_name(cyrillic, TOOLS)
    assert m.name == "get_weather"
    assert m.repair is not None
    assert m.repair.detail == (
        f"renamed {cyrillic!r} to 'get_weather' (edit distance 1; look-alike non-ASCII "
        "characters: 'е' U+0435 CYRILLIC SMALL LETTER IE)"
    )


def test_homoglyph_on_short_name_is_refused() -> None:
    assert resolve_name("l\u0455", ["ls"]).name is None  # Cyrillic dze for 's'


def test_far_name_is_refused_with_candidates() -> None:
    m = resolve_name("delete_everything", TOOLS)
    assert m.name is None
    assert m.repair is None
    assert len(m.candidates) == 4
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
    assert len("x" * (MAX_NAME_CHARS + 1)) > MAX_NAME_CHARS
    assert resolve_name("x" * (MAX_NAME_CHARS + 1), ["x" * MAX_NAME_CHARS]).name is None


def test_many_near_identical_tools_pick_the_unique_closest() -> None:
    # 300 near-identical names (worst case: no early exit); real registries hold <= 128.
    tools = [f"tool_number_{i}_with_a_longish_name" for i in range(300)]
    m = resolve_name("tool_number_299_with_a_longish_nam", tools)
    assert m.name == "tool_number_299_with_a_longish_name"


def test_edit_distance_function() -> None:
    assert edit_distance("kitten", "sitting", 5) == 3
    assert edit_distance("kitten", "sitting", 2) == 3
    assert edit_distance("abcdefghij", "bacdefghji", 2) == 2
    assert edit_distance("", "abc", 3) == 3
    assert edit_distance("ab", "ba", 5) == 1
    assert edit_distance("abc", "abc", 0) == 0
    assert edit_distance("abcdef", "uvwxyz", 2) == 3
    assert edit_distance("a", "abcdefgh", 2) == 3


@given(
    st.text(max_size=30),
    st.lists(st.text(min_size=1, max_size=20), max_size=8),
    st.integers(min_value=0, max_value=4),
    st.floats(min_value=0.0, max_value=1.0),
)
def test_result_is_none_or_a_registry_name(
    name: str, tools: list[str], max_distance: int, max_ratio: float
) -> None:
    m = resolve_name(name, tools, max_distance=max_distance, max_ratio=max_ratio)
    assert m.name is None or m.name in tools
    assert (m.repair is None) == (m.name is None or m.name == name)
    assert all(c in tools for c in m.candidates)
    assert len(m.candidates) <= 5


@given(st.lists(st.from_regex(r"[a-z]{3,12}(_[a-z]{3,12}){0,2}", fullmatch=True), max_size=8))
def test_exact_names_always_resolve_to_themselves(tools: list[str]) -> None:
    for name in tools:
        assert resolve_name(name, tools) == NameMatch(name, None, ())


@given(a=st.text(alphabet="abc", max_size=6), b=st.text(alphabet="abc", max_size=6))
def test_within_one_edit_is_edit_distance_at_most_one(a: str, b: str) -> None:
    """The direct reading agrees with the banded table (a small alphabet makes near
    strings, swaps and repeats common)."""
    assert within_one_edit(a, b) == (edit_distance(a, b, 1) <= 1)
