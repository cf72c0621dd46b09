"""The documentation stays true to the code: policy examples load, every key is documented, links resolve."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT
from releasegate.policy import Policy, make_policy

DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return {_slug(line.lstrip("#")) for line in lines if re.match(r"#{1,6} ", line)}


def test_the_four_documents_exist_and_the_readme_links_them():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("methods.md", "policy.md", "inputs.md", "reading-the-report.md"):
        assert (DOCS / name).is_file()
        assert f"(docs/{name})" in readme


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # external
        file_part, _, anchor = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        assert linked.exists(), f"{page.name}: broken link {target}"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{page.name}: no heading for #{anchor} in {linked.name}"


# A section named in prose: docs/run.md ("In CI"), in the docs, the README and the files users copy.
NAMED_SECTION = re.compile(r"docs/([\w-]+\.md) \(\"([^\"]+)\"\)")
QUOTING = [*PAGES, *sorted((ROOT / "examples").rglob("*.yml")), ROOT / "action.yml"]


@pytest.mark.parametrize("page", QUOTING, ids=lambda p: p.name)
def test_sections_named_in_prose_exist(page):
    for name, title in NAMED_SECTION.findall(page.read_text(encoding="utf-8")):
        headings = {line.lstrip("#").strip() for line in (DOCS / name).read_text(encoding="utf-8").splitlines()
                    if re.match(r"#{1,6} ", line)}
        assert title in headings, f"{page.name} names docs/{name} (\"{title}\"), which has no such heading"


def test_the_example_workflow_names_the_in_ci_section():
    workflow = (ROOT / "examples" / "github-actions" / "release-gate.yml").read_text(encoding="utf-8")
    assert NAMED_SECTION.findall(workflow) == [("run.md", "In CI")]


def test_policy_examples_load():
    text = (DOCS / "policy.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", text, re.DOTALL)
    assert len(blocks) > 10
    for block in blocks:
        make_policy(tomllib.loads(block))  # raises on an unknown key or a bad value


def test_every_policy_key_is_documented():
    text = (DOCS / "policy.md").read_text(encoding="utf-8")
    for field in dataclasses.fields(Policy):
        assert f"[`{field.name}`]" in text, field.name
        # The documented default is the code's default.
        row = next(line for line in text.splitlines() if line.startswith(f"| [`{field.name}`]"))
        default = field.default if field.default is not dataclasses.MISSING else field.default_factory()
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            assert f"`{default}`" in row, (field.name, row)
        elif isinstance(default, str):
            assert f'`"{default}"`' in row, (field.name, row)


def test_the_rules_are_documented_in_the_table_order_with_what_they_read():
    from releasegate.decide.rules import RULES

    text = (DOCS / "policy.md").read_text(encoding="utf-8")
    section = text[text.index("## The rules"):]
    items = re.findall(r"^\d+\. `(\w+)` \(reads ([^)]*)\)", section, re.MULTILINE)
    assert [name for name, _ in items] == [rule.name for rule in RULES]
    for (name, reads), rule in zip(items, RULES):
        assert re.findall(r"`(\w+)`", reads) == list(rule.reads), name

