"""Golden reports: both examples' Markdown and JSON, rebuilt from this tree, equal the committed files byte for
byte. A change that alters a report on purpose regenerates them with one command:

    PYTHONPATH=src python scripts/regenerate_examples.py

and the diff of examples/ shows exactly what changed. Only the installed package versions are masked (the
JSON's ``packages``), since a fresh install may resolve newer ones.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_PACKAGES = re.compile(rb'"packages": \{[^}]*\}')


def _regenerate():
    spec = importlib.util.spec_from_file_location("regenerate_examples", ROOT / "scripts" / "regenerate_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _masked(data: bytes) -> bytes:
    return _PACKAGES.sub(b'"packages": {}', data)


@pytest.mark.parametrize("example", ["bank-assistant", "reading-comprehension"])
def test_example_reports_unchanged(example):
    module = _regenerate()
    for path, data in module.rendered(example, ("md", "json")).items():
        expected = path.read_bytes()
        if _masked(data) != _masked(expected):
            new, old = data.decode().splitlines(), expected.decode().splitlines()
            first = next((i for i, (a, b) in enumerate(zip(new, old)) if a != b), min(len(new), len(old)))
            pytest.fail(f"{path.relative_to(ROOT)} changed at line {first + 1}:\n"
                        f"  committed: {old[first] if first < len(old) else '<end>'}\n"
                        f"  now:       {new[first] if first < len(new) else '<end>'}\n"
                        "regenerate with: PYTHONPATH=src python scripts/regenerate_examples.py")
