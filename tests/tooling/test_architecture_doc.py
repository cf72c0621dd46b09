"""ARCHITECTURE.md names every module of src/releasegate, and tests/ mirrors its stages (issue 27 items 6, 7).

A module is named when the document gives its path (`analyze/settle.py`), or gives its file name
(`settle.py`) in a paragraph, bullet or table row about its package: one whose first folder in backticks is
the package's, as the bullets of "Inside the stages" list each package's modules ("- `analyze/`: ...").
A package's `__init__.py` is named by its folder.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "releasegate"
DOC = ROOT / "ARCHITECTURE.md"
# Folders of the package that hold data, not modules (templates, the bundled examples, the note's schema).
DATA = {"templates", "examples", "schema"}


def blocks(text: str) -> list[str]:
    """The paragraphs, bullets (with their indented continuation lines) and table rows of a Markdown text."""
    out: list[list[str]] = []
    for line in text.splitlines():
        starts = line.startswith(("- ", "| ", "#")) or not line.strip()
        if starts or not out:
            out.append([])
        if line.strip():
            out[-1].append(line)
    return ["\n".join(b) for b in out if b]


def modules() -> list[str]:
    """Every module of the package as its path below src/releasegate ("analyze/settle.py", "cli.py")."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in DATA or rel.name == "__init__.py":
            continue
        found.append(rel.as_posix())
    return found


def named(module: str, text: str, parts: list[str]) -> bool:
    if f"`{module}`" in text:
        return True
    folders = module.split("/")[:-1]
    if not folders:
        return f"`{module}`" in text
    tails = {"/".join(module.split("/")[k:]) for k in range(1, len(folders) + 1)}
    return any(owner(b) == folders[0] and any(f"`{t}`" in b for t in tails) for b in parts)


def owner(block: str) -> str | None:
    """The package a block is about: its first folder in backticks."""
    first = re.search(r"`([a-z_]+)/`", block)
    return first.group(1) if first else None


def test_every_module_is_named_in_architecture_md():
    text = DOC.read_text(encoding="utf-8")
    parts = blocks(text)
    missing = [m for m in modules() if not named(m, text, parts)]
    assert not missing, f"ARCHITECTURE.md names {len(missing)} modules nowhere: {', '.join(missing)}"


def test_the_check_sees_a_module_that_is_not_named():
    parts = blocks("- `analyze/`: `pairing.py` (the join, `stats/`)\n  and `costs.py`.\n\n- `render/`: `html.py`, "
                   "`stats/proportions.py`")
    text = "\n".join(parts)
    assert named("analyze/costs.py", text, parts) and named("render/html.py", text, parts)
    assert named("stats/proportions.py", text, parts)
    assert not named("analyze/html.py", text, parts) and not named("stats/costs.py", text, parts)
    assert not named("cli.py", text, parts)


def test_tests_mirror_the_stages():
    stages = sorted(p.name for p in PACKAGE.iterdir()
                    if p.is_dir() and p.name not in DATA and (p / "__init__.py").exists())
    missing = [s for s in stages if not (ROOT / "tests" / s).is_dir() or not any((ROOT / "tests" / s).glob("test_*.py"))]
    assert not missing, f"src/releasegate/ has stages without their tests/ folder: {', '.join(missing)}"
