"""The indefinite article before a number the notes print ("an 80% chance", "a 95% chance"): English says "an"
before a number spoken with a vowel (eight, eleven, eighteen, eighty, eight hundred, eleven thousand)."""

from __future__ import annotations

import pytest

from releasegate import fmt


@pytest.mark.parametrize("text, expected", [
    ("80%", "an 80%"), ("8%", "an 8%"), ("11%", "an 11%"), ("18%", "an 18%"), ("85%", "an 85%"),
    ("800 cases", "an 800 cases"), ("11,000 cases", "an 11,000 cases"), ("8.5%", "an 8.5%"),
    ("95%", "a 95%"), ("1%", "a 1%"), ("50%", "a 50%"), ("110%", "a 110%"), ("180 cases", "a 180 cases"),
    ("100%", "a 100%"), ("110,000 cases", "a 110,000 cases"), ("0%", "a 0%"),
])
def test_article_follows_the_spoken_number(text, expected):
    assert fmt.with_article(text) == expected


def test_no_sentence_of_the_wording_writes_a_before_an_eighty():
    """Every place that prints a chance goes through fmt.with_article: no 'a {pct}' left in the sources."""
    import re
    from pathlib import Path

    wording = Path(fmt.__file__).parent / "wording"
    offenders = [f"{path.name}: {line.strip()}" for path in wording.glob("*.py")
                 for line in path.read_text().splitlines() if re.search(r"\ba \{fmt\.pct|\ba \{target\}", line)]
    assert offenders == []
