"""BENCHMARKS.md in sections: one benchmark rewrites its own section and leaves the others as they are."""

from __future__ import annotations


def replace_section(text: str, heading: str, section: list[str]) -> str:
    """`text` with the section under `heading` (up to the next "## " heading) replaced by `section`, appended
    where it has none."""
    lines = text.rstrip("\n").split("\n")
    if heading in lines:
        start = lines.index(heading)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        lines[start:end] = section
    else:
        lines += ["", *section]
    return "\n".join(lines).rstrip("\n") + "\n"
