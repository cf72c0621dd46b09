"""Rows of the input-problem table added by issue 35: the gold labels (``--gold FILE``, policy ``gold``).

Kept beside tests/validate/input_cases.py, which appends them to its CASES. The results are 12 cases on two
releases; the good gold file labels all 12 on both, with passes and fails on each.
"""

from __future__ import annotations

from input_cases import BASE, Case, csv

_PASSED = {"r1": "111111111000", "r2": "111111110100"}
RESULTS = csv(*(f"{r},c{i},{p}" for r, bits in _PASSED.items() for i, p in enumerate(bits, 1)),
              header="release,case_id,passed")
RUNS = csv(*(f"{r},c{i},{run},{p}" for r, bits in _PASSED.items() for i, p in enumerate(bits, 1)
             for run in (1, 2)), header="release,case_id,run,passed")
CLUSTERED = csv(*(f"{r},c{i},{p},g{(i + 1) // 2}" for r, bits in _PASSED.items() for i, p in enumerate(bits, 1)),
                header="release,case_id,passed,cluster")
SCORES = csv(*(f"{r},c{i},0.{p}5" for r, bits in _PASSED.items() for i, p in enumerate(bits, 1)),
             header="release,case_id,score")
_HUMAN = {"r1": "111111110010", "r2": "111111100100"}


def gold(*extra: str, releases=("r1", "r2"), human=None, count: int = 12, label: dict | None = None,
         runs: bool = False) -> str:
    """The gold file: ``count`` labels per release from ``human``; ``label`` replaces some cells' labels."""
    human, label = human or _HUMAN, label or {}
    rows = [f"{r},c{i},{label.get((r, i), h)}" + (",1" if runs else "")
            for r in releases for i, h in enumerate(human[r][:count], 1)]
    return csv(*rows, *extra, header="release,case_id,label" + (",run" if runs else ""))


GOLD = ("--gold", "gold.csv")

GOLD_CASES: tuple[Case, ...] = (
    Case("gold-missing-file", "gold file does not exist", "`--gold nothere.csv`",
         {"results.csv": RESULTS}, ("results.csv", *BASE, "--gold", "nothere.csv"), ("file not found", "nothere.csv"),
         kind="file"),
    Case("gold-missing-column", "gold file without a label column", "`release,case_id,human`",
         {"results.csv": RESULTS, "gold.csv": gold().replace("release,case_id,label", "release,case_id,human")},
         ("results.csv", *BASE, *GOLD),
         ("gold file needs columns release, case_id and label", "missing 'label'", "columns present")),
    Case("gold-not-boolean", "gold label that is not boolean-like", "`r1,c1,maybe`",
         {"results.csv": RESULTS, "gold.csv": gold(label={("r1", 1): "maybe"})},
         ("results.csv", *BASE, *GOLD), ("gold 'label' must be boolean-like", "'maybe'")),
    Case("gold-no-label", "gold row without a label", "`r1,c1,` (empty label)",
         {"results.csv": RESULTS, "gold.csv": gold(label={("r1", 1): ""})},
         ("results.csv", *BASE, *GOLD), ("1 gold row(s) have no label",)),
    Case("gold-unknown-release", "gold labels for a release not compared", "`r9,c1,1`",
         {"results.csv": RESULTS, "gold.csv": gold("r9,c1,1")}, ("results.csv", *BASE, *GOLD),
         ("release 'r9'", "not among the compared releases")),
    Case("gold-unknown-case", "gold label for a case not in the results", "`r2,c99,1`",
         {"results.csv": RESULTS, "gold.csv": gold("r2,c99,1")}, ("results.csv", *BASE, *GOLD),
         ("1 gold row(s) name a case not in the results", "r2 c99")),
    Case("gold-duplicate", "the same cell labelled twice", "`r1,c1,1` twice",
         {"results.csv": RESULTS, "gold.csv": gold("r1,c1,0")}, ("results.csv", *BASE, *GOLD),
         ("1 duplicate (release, case_id) gold row(s)", "r1 c1")),
    Case("gold-too-few", "fewer than 10 gold labels on a release", "5 labels of r2",
         {"results.csv": RESULTS, "gold.csv": gold(*gold(releases=("r2",), count=5).split()[1:], releases=("r1",))},
         ("results.csv", *BASE, *GOLD), ("release 'r2' has 5 gold label(s)", "at least 10", "label 5 more")),
    Case("gold-no-labels-for-a-candidate", "a compared release without gold labels", "labels of r1 only",
         {"results.csv": RESULTS, "gold.csv": gold(releases=("r1",))}, ("results.csv", *BASE, *GOLD),
         ("release 'r2' has no gold labels", "--candidate NAME")),
    Case("gold-one-class", "every gold label of a release is pass", "12 labels of r2, all 1",
         {"results.csv": RESULTS, "gold.csv": gold(human={"r1": _HUMAN["r1"], "r2": "1" * 12})},
         ("results.csv", *BASE, *GOLD), ("all 12 gold labels of release 'r2' are pass", "needs human fails")),
    Case("gold-on-scores", "gold labels on score outcomes", "results with `score` only",
         {"results.csv": SCORES, "gold.csv": gold()}, ("results.csv", *BASE, *GOLD),
         ("gold labels grade pass/fail verdicts", "pass_threshold")),
    Case("gold-run-missing", "gold file without runs when the results have runs", "results with `run`",
         {"results.csv": RUNS, "gold.csv": gold()}, ("results.csv", *BASE, *GOLD),
         ("the results have runs", "needs its run")),
    Case("gold-run-unexpected", "gold file with runs when the results have none", "`release,case_id,run,label`",
         {"results.csv": RESULTS, "gold.csv": gold(runs=True)},
         ("results.csv", *BASE, *GOLD), ("has a run column, but the results have no runs",)),
    Case("gold-policy-wrong-type", "policy gold that is not a path", "`gold = 5`",
         {"results.csv": RESULTS, "policy.toml": "gold = 5\n"}, ("results.csv", *BASE, "--policy", "policy.toml"),
         ("gold must be a file path", "got 5"), kind="policy"),
    Case("gold-label-nested", "gold label holding JSON objects", '`{"label": {"v": 1}}` in `gold.jsonl`',
         {"results.csv": RESULTS, "gold.jsonl": '{"release": "r1", "case_id": "c1", "label": {"v": 1}}\n'},
         ("results.csv", *BASE, "--gold", "gold.jsonl"), ("gold.jsonl: gold 'label' holds JSON objects", "keys v")),
    Case("gold-policy-blank", "policy gold that is blank", '`gold = ""`',
         {"results.csv": RESULTS, "policy.toml": 'gold = ""\n'}, ("results.csv", *BASE, "--policy", "policy.toml"),
         ("gold must be a file path", "got ''"), kind="policy"),
    Case("gold-clusters-corrected", "gold labels on grouped cases, the corrected comparison gated",
         "results with `cluster`, `judge_correction` \"ppi\" (the default)",
         {"results.csv": CLUSTERED, "gold.csv": gold()}, ("results.csv", *BASE, *GOLD),
         ("the results have a cluster column", "treats cases as independent", 'judge_correction = "none"')),
    Case("judge-correction-unknown", "a judge_correction that is neither ppi nor none", '`judge_correction = "raw"`',
         {"results.csv": RESULTS, "gold.csv": gold(), "policy.toml": 'judge_correction = "raw"\n'},
         ("results.csv", *BASE, *GOLD, "--policy", "policy.toml"),
         ("unknown judge_correction 'raw'", "ppi, none"), kind="policy"),
    Case("gold-several-metrics", "gold labels with several metrics", "`--metric a --metric b --gold gold.csv`",
         {"results.csv": csv("r1,c1,1,0", "r1,c2,0,1", "r2,c1,1,1", "r2,c2,1,0", header="release,case_id,a,b"),
          "gold.csv": gold()},
         ("results.csv", *BASE, "--metric", "a", "--metric", "b", *GOLD), ("with several metrics",)),
)
