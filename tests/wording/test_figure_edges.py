"""A sentence and its figures never disagree at the edges of rounding: figures drawn where rounding bites (near
zero, near 0% and 100%, near 1 for a p, a bound a hair from its margin or limit), formatted, and read back.

Each property reads the printed text as a reader would: a figure's sign and size, whether it shows as zero, and
the direction word beside it. ``read`` turns a printed figure back into a number ("<0.1" is below 0.1, so half
of it; ">99.9" above 99.9)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from releasegate import fmt
from releasegate.kinds import OutcomeKind
from releasegate.model import Figure, Parameters, RuleCheck
from releasegate.model.axes import ItemAxis
from releasegate.wording import checks, plain, sections

NEGATIVE_ZERO = re.compile(r"(?<![\d.])-\$?0(?:\.0+)?(?![\d.])")
# Differences as they come: ordinary ones, ones rounding can hide (below half the last digit), and
# floating-point remainders.
DIFFERENCES = st.one_of(st.floats(-2, 2), st.floats(-0.002, 0.002), st.floats(-1e-9, 1e-9),
                        st.sampled_from([0.0, -0.0, 0.0005, -0.0005, 0.00049999, -0.00049999, 5e-324, -5e-324]))
RATES = st.one_of(st.floats(0, 1), st.floats(0, 0.002), st.floats(0.998, 1), st.sampled_from([0.0, 1.0]))


def read(text: str) -> float:
    """A printed figure as a number: sign, "<"/">" (half a unit inside the bound), units and grouping dropped."""
    body = re.sub(r"[\s$,%x]|points", "", text)
    sign = -1.0 if body.startswith("-") else 1.0
    body = body.lstrip("+-")
    if body[0] in "<>":
        bound = body[1:]
        half = 0.5 * 10.0 ** -len(bound.split(".")[1]) if "." in bound else 0.5
        return sign * (float(bound) - half if body[0] == "<" else float(bound) + half)
    return sign * float(body)


@settings(max_examples=400, deadline=None)
@given(x=DIFFERENCES)
def test_a_figure_shows_zero_only_when_zero_and_never_minus_zero(x):
    for text in (fmt.signed(x), fmt.points(x), fmt.number(x), fmt.number(x, 2), fmt.size_points(x),
                 fmt.ratio(abs(x)), fmt.money(x, 5), fmt.interval_signed(x, x), fmt.interval_points(x, x)):
        assert not NEGATIVE_ZERO.search(text), text
    for text in (fmt.signed(x), fmt.points(x), fmt.number(x), fmt.number(x, 2)):
        assert (read(text) == 0) == (x == 0), (x, text)
        assert (read(text) < 0) == (x < 0), (x, text)


@settings(max_examples=400, deadline=None)
@given(values=st.lists(DIFFERENCES, min_size=3, max_size=3))
def test_an_estimate_shows_inside_its_own_interval(values):
    low, estimate, high = sorted(values)
    for one, both in ((fmt.signed, fmt.interval_signed), (fmt.points, fmt.interval_points)):
        ends = both(low, high)[1:-1].split(", ")
        assert read(ends[0]) <= read(one(estimate)) <= read(ends[1]), (low, estimate, high, one(estimate), ends)
    shown = [read(fmt.number(v)) for v in (low, estimate, high)]
    assert shown == sorted(shown)


@settings(max_examples=400, deadline=None)
@given(rates=st.lists(RATES, min_size=3, max_size=3), digits=st.sampled_from([0, 1]))
def test_a_rate_shows_0_or_100_percent_only_when_it_is_that(rates, digits):
    low, rate, high = sorted(rates)
    text = fmt.pct(rate, digits)
    assert (read(text) == 0) == (rate == 0) and (read(text) == 100) == (rate == 1), (rate, text)
    ends = fmt.interval_pct(low, high, digits)[1:-1].split(", ")
    assert read(ends[0]) <= read(text) <= read(ends[1]), (low, rate, high, text, ends)


@settings(max_examples=300, deadline=None)
@given(p=st.one_of(st.floats(0, 1), st.floats(0.999, 1), st.floats(0, 0.002), st.sampled_from([0.0, 1.0])))
def test_a_p_value_shows_1_only_when_it_is_1_and_never_0(p):
    text = fmt.pvalue(p)
    assert text != "0.000" and (text == "1.000") == (p == 1), (p, text)
    assert fmt.p_is(p) in (f"p = {text}", f"p {text}") and not fmt.p_is(p).startswith("p = <")


# --------------------------------------------------------------------------------------------------------
# sentences: a direction word beside a figure of the other sign, or beside a figure equal to its limit

GAPS = st.one_of(st.floats(1e-12, 1e-6), st.floats(1e-6, 0.01), st.floats(0.01, 0.5))


@settings(max_examples=300, deadline=None)
@given(hundredths=st.integers(100, 300), gap=GAPS, above=st.booleans())
def test_a_guardrail_s_bound_reads_above_its_limit_only_when_it_is(hundredths, gap, above):
    limit = hundredths / 100  # a policy's limit, as written: 1.2, 1.25
    high = limit + gap if above else limit - gap
    f = Figure(scope="guardrail", subject="max_cost_ratio", value=high - 0.1, ci_low=high - 0.2, ci_high=high,
               limit=limit, fired=high > limit)
    text = checks.guardrail_figure(f)
    bound = re.search(r"the upper bound (\S+) is (above|within)", text)
    assert bound is not None and (bound[2] == "above") == (read(bound[1]) > limit), text
    blocked = plain._guardrail(f)
    shown = re.search(r"up to (\S+) the baseline; limit (\S+)\)", blocked)
    assert shown is not None and (read(shown[1]) > read(shown[2])) == above, blocked


@settings(max_examples=300, deadline=None)
@given(thousandths=st.integers(10, 200), gap=GAPS, beyond=st.booleans(), binary=st.booleans())
def test_a_critical_category_reads_beyond_its_margin_only_when_it_is(thousandths, gap, beyond, binary):
    margin = thousandths / 1000  # a policy's margin, as written: 0.05, 0.025
    value = -margin - gap if beyond else -margin + min(gap, margin / 2)
    f = Figure(scope="category", subject="Fraud", value=value, limit=-margin, alpha=0.1, p=0.5, worse=3, better=1,
               method="exact McNemar")
    check = RuleCheck(rule="critical_doubt", fired=False, figures=(f,))
    text = checks.critical_doubt(check, PARAMETERS, binary)
    shown = re.search(r", (\S+)(?: points)?, (beyond|within) the margin of (\S+)", text)
    assert shown is not None, text
    assert (shown[2] == "beyond") == (read(shown[1]) < -read(shown[3])), text


PARAMETERS = Parameters(alpha=0.05, margin=0.05, correction="holm", mcnemar="exact", confidence=0.95, critical=(),
                        power=0.8, seed=1, n_resamples=100)


def item(improved: int, worsened: int, min_change: float) -> ItemAxis:
    return ItemAxis(n=10, mean_diff=-0.01, sd_diff=0.1, se=0.03, t=-0.3, df=9, p_value=0.7, p_one_sided=0.35,
                    ci_low=-0.08, ci_high=0.06, signflip_p_value=0.7, signflip_p_one_sided=0.35,
                    signflip_kind="exact", signflip_resamples=1024, signflip_changed=10, improved=improved,
                    worsened=worsened, unchanged=10 - improved - worsened, outcome_kind=OutcomeKind.CONTINUOUS,
                    runs=False, clustered=False, min_change=min_change)


def test_a_count_agrees_with_its_noun_in_the_sentences():
    # "1 of 1 passing Fraud cases" stays: "of" a count takes the plural.
    assert sections.item_summary(item(1, 2, 0.0), PARAMETERS).startswith("1 case improved, 2 worsened")
    assert sections.item_summary(item(2, 1, 0.0), PARAMETERS).startswith("2 cases improved, 1 worsened")


@pytest.mark.parametrize("min_change", [0.0, 0.0001, 0.02])
def test_the_worsened_rule_names_the_tolerance_the_counts_read(min_change):
    text = sections.worsened_rule(item(1, 2, min_change))
    if min_change:
        assert f"by more than {fmt.number(min_change)}" in text and "any amount" not in text
    else:
        assert "by any amount" in text


def test_the_paragraph_says_a_score_count_is_beyond_min_change(tmp_path):
    """Every case 0.004 lower, under the default min_change (1% of the range): the paragraph said "0 improved, 0
    worsened. It may not ship: it is worse overall", a count of none beside a regression."""
    from conftest import plain_note

    rows = ["release,case_id,score"]
    rows += [f"{r},c{i},{i / 200 - (0.004 if r == 'r2' else 0):.4f}" for r in ("r1", "r2") for i in range(1, 200)]
    text = plain_note(tmp_path, rows, "--baseline", "r1")
    assert "0 improved, 0 worsened by more than 0.010." in text and "worse overall" in text, text
