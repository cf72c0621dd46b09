"""The statistics' frozen results share one vocabulary, as scipy's results do: an interval's bounds are ``low``
and ``high``, and a p-value is named by its sidedness (``p_two_sided``; one-sided ``p_regression`` for "the
candidate is worse" and ``p_improvement`` for "better"). A result with ``ci_low`` or a bare ``pvalue`` would
make a reader guess which convention the next one follows."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import releasegate.stats

RETIRED = {"ci_low": "low", "ci_high": "high", "lower": "low", "upper": "high", "pvalue": "p_two_sided"}
P_VALUES = {"p_two_sided", "p_regression", "p_improvement"}
MID_P_VALUES = {"midp_two_sided", "midp_regression"}  # a bare ``midp`` is the flag saying mid-p was used


def _result_classes() -> list[type]:
    found = []
    for info in pkgutil.iter_modules(releasegate.stats.__path__, "releasegate.stats."):
        module = importlib.import_module(info.name)
        found += [value for value in vars(module).values()
                  if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == info.name]
    return found


def test_the_package_has_results_to_check() -> None:
    names = {cls.__name__ for cls in _result_classes()}
    assert {"McNemarResult", "PairedTResult", "RatioResult", "CR2Result", "PPITest"} <= names
    assert len(names) >= 30


def test_no_result_uses_a_retired_name() -> None:
    wrong = [f"{cls.__module__}.{cls.__name__}.{f.name} (say {RETIRED[f.name]})"
             for cls in _result_classes() for f in dataclasses.fields(cls) if f.name in RETIRED]
    assert wrong == []


def test_every_p_value_field_says_its_sidedness() -> None:
    unnamed = [f"{cls.__name__}.{f.name}" for cls in _result_classes() for f in dataclasses.fields(cls)
               if f.name.startswith("p_") and f.name not in P_VALUES
               or f.name.startswith("midp") and f.type != "bool" and f.name not in MID_P_VALUES]
    assert unnamed == []


def test_an_interval_has_both_bounds() -> None:
    halves = [cls.__name__ for cls in _result_classes()
              if ({"low", "high"} & {f.name for f in dataclasses.fields(cls)}) not in (set(), {"low", "high"})]
    assert halves == []
