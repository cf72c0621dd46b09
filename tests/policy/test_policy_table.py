"""The policy's keys are one table (releasegate/policy/keys.py): the Policy dataclass, the flags, the API's
keywords, the [metrics.NAME] tables, every value's check and the docs' tables all read its rows; a new key is
one row plus the rule that reads it (shown here with a test-only key); a boolean is never a number, and the
top level and [metrics.NAME] agree on every value."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from releasegate import kinds
from releasegate.cli_options import policy_option
from releasegate.errors import PolicyError
from releasegate.policy import BY_NAME, KEYS, POLICY_KEYS, Policy, make_policy
from releasegate.policy.keys import key, rows
from releasegate.policy.values import Choice, Number, Switch

SPEC = importlib.util.spec_from_file_location("policy_tables", ROOT / "scripts" / "policy_tables.py")
policy_tables = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(policy_tables)
SRC = ROOT / "src" / "releasegate"


def test_the_docs_tables_are_made_from_the_table_and_current():
    for path, text in policy_tables.current().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(ROOT)} is stale: run PYTHONPATH=src python scripts/policy_tables.py")


@pytest.mark.parametrize("name", ["min_change", "pass_threshold", "margin", "critical_weight", "correction"])
def test_a_key_is_spelled_in_at_most_two_modules(name):
    """Quoted ("margin", 'margin') or as its flag (--margin): the table's row and the rule that reads it."""
    spelled = re.compile(rf"""["']{name}["']|--{name.replace("_", "-")}\b""")
    modules = sorted(str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if spelled.search(p.read_text("utf-8")))
    assert len(modules) <= 2, modules


def test_the_dataclass_and_the_rows_are_one():
    assert [k.name for k in KEYS] == [f.name for f in dataclasses.fields(Policy)]
    assert POLICY_KEYS == {f.name for f in dataclasses.fields(Policy)}
    defaults = Policy()
    for row in KEYS:
        assert getattr(defaults, row.name) == row.default, row.name
        assert row.value.problem(row.default) is None, row.name  # every default passes its own check


def test_every_choice_is_a_kinds_tuple_and_its_flag_offers_exactly_it():
    tuples = {v for k, v in vars(kinds).items() if k.isupper() and isinstance(v, tuple)}
    for row in KEYS:
        if isinstance(row.value, Choice):
            assert row.value.options in tuples, row.name
            if row.flag:
                option = policy_option(row)(lambda **kw: None).__click_params__[0]
                assert tuple(option.type.choices) == row.value.options, row.name


def test_the_corrections_are_the_budget_s_and_the_p_value_corrections():
    from releasegate.stats.multiplicity import CORRECTIONS

    assert kinds.CORRECTIONS == ("discrete-holm", *CORRECTIONS)


VALUES = st.one_of(st.booleans(), st.integers(-10**30, 10**30), st.floats(), st.text(max_size=5),
                   st.lists(st.floats(), max_size=2))


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(name=st.sampled_from([k.name for k in KEYS if k.per_metric]), value=VALUES)
def test_the_top_level_and_a_metric_table_agree(name, value):
    def accepted(make):
        try:
            make()
            return True
        except PolicyError:
            return False

    top = accepted(lambda: make_policy({name: value}))
    per_metric = accepted(lambda: make_policy({"metrics": {"m": {name: value}}}))
    assert top == per_metric, (name, value)


@pytest.mark.parametrize("row", [k for k in KEYS if isinstance(k.value, Number)], ids=lambda k: k.name)
def test_a_boolean_is_never_a_number(row):
    for value in (True, False):
        with pytest.raises(PolicyError, match="a boolean is never a number"):
            make_policy({row.name: value})
        with pytest.raises(PolicyError, match="a boolean is never a number"):
            make_policy(**{row.name: value})


def test_a_switch_is_only_true_or_false():
    switches = [k for k in KEYS if isinstance(k.value, Switch)]
    assert {k.name for k in switches} == {"allow_missing", "allow_changed", "allow_incomplete_runs"}
    for switch in switches:
        for value in (1, 0, "yes", "true"):
            with pytest.raises(PolicyError, match="must be true or false"):
                make_policy({switch.name: value})


def test_a_metric_threshold_is_negated_with_the_scores_and_a_margin_is_not():
    """The rows say what a per-metric key is on the score axis: a level (negated for a lower-is-better
    metric) or a size."""
    assert {k.name: k.per_metric for k in KEYS if k.per_metric} == {
        "margin": "size", "pass_threshold": "level", "min_change": "size"}


# --- a new key: its row, and everything else follows ---------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class WithMaxBroken(Policy):
    """Policy plus the worked example of ARCHITECTURE.md: a rule "max_broken" and its key."""

    max_broken: int | None = key(None, Number(low=0, whole=True, nullable=True, json="int or null"),
                                 "the most cases a candidate may break", flag=True)


def test_a_new_key_is_one_row():
    (row,) = [k for k in rows(WithMaxBroken) if k.name not in BY_NAME]
    assert (row.flag, row.default, row.value.expected) == ("--max-broken", None, "an integer >= 0")
    assert row.check(3) == 3
    for bad, said in ((-1, "got -1"), (True, r"got True \(a boolean is never a number\)"), (2.5, "got 2.5")):
        with pytest.raises(PolicyError, match=f"max_broken must be an integer >= 0, {said}"):
            row.check(bad)

    @click.command()
    @policy_option(row)
    def command(max_broken):
        click.echo(repr(row.check(max_broken)))

    assert CliRunner().invoke(command, ["--max-broken", "4"]).output == "4\n"
    assert "not a valid integer" in CliRunner().invoke(command, ["--max-broken", "x"]).output
    assert "The most cases a candidate may break (default: none)." in CliRunner().invoke(command, ["--help"]).output
    table = policy_tables.key_table([row])
    assert table[-1] == ("| [`max_broken`](#max_broken) | none | `--max-broken` | the most cases a candidate may "
                         "break |")
    assert policy_tables.json_table([row])[2] == "| `max_broken` | int or null | the most cases a candidate may break |"
    assert WithMaxBroken(max_broken=2).max_broken == 2 and WithMaxBroken().as_dict()["max_broken"] is None


def test_the_api_takes_every_key_as_a_keyword(example):
    import releasegate

    comparison = releasegate.compare(example["eval_results.csv"], baseline="r1-live", margin=0.2,
                                     critical_weight=5, correction="holm", min_change=None, pass_threshold=None)
    policy = comparison.report.sections[0].analysis.parameters
    assert (policy.margin, policy.correction) == (0.2, "holm")
    with pytest.raises(PolicyError, match="unknown key"):
        releasegate.compare(example["eval_results.csv"], baseline="r1-live", margins=0.2)


def test_the_example_policy_demo_copies_names_no_retired_key():
    from releasegate.policy import RETIRED_KEYS

    text = (SRC / "examples" / "bank-assistant" / "releasegate.toml").read_text(encoding="utf-8")
    assert not any(name in text for name in RETIRED_KEYS)
    assert Path(ROOT / "examples" / "bank-assistant" / "releasegate.toml").read_text(encoding="utf-8") == text
