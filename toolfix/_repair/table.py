"""The table of every family in docs/formats.md, made from the family registry.

``python -m toolfix._repair.table`` prints it; a test holds docs/formats.md to it, so a
family cannot be missing from the docs.
"""

from __future__ import annotations

from .families import families, markup_example

__all__ = ["markdown_table", "markup_example"]


def _links(source: str) -> str:
    return " ".join(
        f"[{i}]({u.split(' ')[0]})"
        for i, u in enumerate((u.strip() for u in source.split(";")), 1)
        if u.startswith("http")
    )


def markdown_table() -> str:
    """Every family toolfix reads, in detection order."""
    rows = [
        "| format | engine parser | models | markup | values | closed by | read by | source |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in families():
        aliases = ", ".join(f"`{a}`" for a in f.aliases)
        closed = "its own closer" if f.closers else "nothing (leaves at the end of a stream)"
        rows.append(
            f"| `{f.name}` | {aliases} | {f.models} | {f.markup} | {f.values} | {closed} | "
            f"{f.read_by} | {_links(f.source)} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    print(markdown_table())
