"""A digest of the source code an artifact was computed with, so an artifact the build computed once is read at
open only while the running code would compute the same thing.

`code_sha256("duocthu_desktop.dosage")` hashes every source file of that package (or module) and of every
`duocthu_desktop` module they import, transitively: the dose parser's own files and the lexicon and folding it
calls. The build records it beside the artifact (manifest.json `code_sha256`); the app computes it again at open
and recomputes the artifact when the two differ. Where the sources cannot be read (a frozen app that ships only
bytecode) the digest is None and the artifact is always recomputed: slower, never stale.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

ROOT_PACKAGE = "duocthu_desktop"
_IMPORT = re.compile(rf"^\s*(?:from\s+({ROOT_PACKAGE}(?:\.\w+)*)\s+import\s+(\([^)]*\)|[^\n]*)|import\s+({ROOT_PACKAGE}"
                     rf"(?:\.\w+)*))", re.MULTILINE)


_ROOT = Path(__file__).resolve().parent  # the duocthu_desktop package folder


def _source_files(module: str, whole: bool = False) -> list[Path] | None:
    """The .py file of a module, or a package's __init__.py (with `whole`, and every file under it); None if
    there is no such source."""
    parts = module.split(".")
    if parts[0] != ROOT_PACKAGE:
        return None
    base = _ROOT.joinpath(*parts[1:])
    if (base / "__init__.py").is_file():
        return sorted(base.rglob("*.py")) if whole else [base / "__init__.py"]
    if base.with_suffix(".py").is_file():
        return [base.with_suffix(".py")]
    return None


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([ROOT_PACKAGE, *parts])


def _imported(source: str) -> set[str]:
    """The duocthu_desktop modules a source imports ("from duocthu_desktop.x import y" may name module x.y)."""
    found: set[str] = set()
    for match in _IMPORT.finditer(source):
        if match.group(3):
            found.add(match.group(3))
            continue
        base = match.group(1)
        found.add(base)
        for name in re.findall(r"\w+", match.group(2)):
            found.add(f"{base}.{name}")  # kept only if such a module exists
    return found


def _sources(modules: tuple[str, ...]) -> dict[Path, bytes] | None:
    """Path -> bytes of the sources of `modules` (a package: every file under it) and of every duocthu_desktop
    module they import, transitively; None when one cannot be read."""
    seen: dict[Path, bytes] = {}
    pending = list(modules)
    visited: set[str] = set()
    while pending:
        module = pending.pop()
        if module in visited:
            continue
        visited.add(module)
        files = _source_files(module, whole=module in modules)
        if files is None:
            if module in modules:
                return None
            continue  # "from duocthu_desktop.x import a_function": not a module
        for path in files:
            if path in seen:
                continue
            try:
                data = path.read_bytes()
            except OSError:
                return None
            seen[path] = data
            pending.extend(_imported(data.decode("utf-8", "replace")) - visited)
    return seen


def code_modules(*modules: str) -> list[str]:
    """The module names `code_sha256(*modules)` covers, sorted ([] when their sources cannot be read)."""
    return sorted(_module_name(p) for p in _sources(modules) or {})


@functools.cache
def code_sha256(*modules: str) -> str | None:
    """sha256 over the sources of `modules` and of every duocthu_desktop module they import (`_sources`); None
    when one cannot be read. Cached for the process: the code does not change while it runs."""
    seen = _sources(modules)
    if seen is None:
        return None
    digest = hashlib.sha256()
    for path in sorted(seen, key=_module_name):
        digest.update(_module_name(path).encode() + b"\0" + seen[path] + b"\0")
    return digest.hexdigest()
