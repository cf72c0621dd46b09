"""Rows of the input-problem table for pairing (a case is compared only with itself): content that changed under
one id, ids that are dataset positions, and runs a case lacks. On the main branch before them each of these was
compared as if nothing had changed: another question's answer beside the baseline's, a failing run dropped unseen.

Kept beside tests/validate/input_cases.py, which appends them to its CASES.
"""

from __future__ import annotations

from input_cases import BASE, Case, csv

CONTENT = "release,case_id,passed,input"
QUESTIONS = {"c1": "What is 2+2?", "c2": "Name a fruit.", "c3": "Capital of France?", "c4": "Spell cat."}
REPLACED = csv(*(f"{r},{c},{int(c != 'c2' or r == 'r2')},{q}" for r in ("r1", "r2") for c, q in QUESTIONS.items()),
               header=CONTENT).replace("r2,c2,1,Name a fruit.", "r2,c2,1,Name a vegetable.")
POSITIONS = "release,case_id,passed,input,id_is_position"
# The candidate's dataset has a question inserted at the top: every later question moved down one position.
INSERTED = csv(*(f"r1,{i},1,{q},true" for i, q in enumerate(QUESTIONS.values(), 1)),
               "r2,1,0,A new first question.,true",
               *(f"r2,{i},1,{q},true" for i, q in enumerate(QUESTIONS.values(), 2)), header=POSITIONS)
NO_CONTENT = csv(*(f"{r},{i},1,true" for r in ("r1", "r2") for i in range(1, 4)),
                 header="release,case_id,passed,id_is_position")
TWINS = csv("r1,1,1,Same question.,true", "r1,2,1,Same question.,true", "r1,3,1,Other.,true",
            "r2,1,1,Same question.,true", "r2,2,0,Same question.,true", "r2,3,1,Other.,true", header=POSITIONS)
RUNS = "release,case_id,run,passed"
# 4 cases x 3 runs; the candidate's two failing runs of c2 are absent (a crashed or filtered job).
SHORT_RUNS = csv(*(f"r1,c{i},{k},1" for i in range(1, 5) for k in range(1, 4)),
                 *(f"r2,c{i},{k},{int(i != 2)}" for i in range(1, 5) for k in range(1, 4) if i != 2 or k == 1),
                 header=RUNS)
# Counted as a failure, the baseline's missing run would be a gain of r2 (which passes everything it ran).
BASE_SHORT = csv(*(f"r1,c{i},{k},1" for i in range(1, 5) for k in range(1, 4) if (i, k) != (2, 3)),
                 *(f"r2,c{i},{k},1" for i in range(1, 5) for k in range(1, 4)), header=RUNS)
FEWER_RUNS = csv(*(f"{r},c{i},{k},1" for r, n in (("r1", 3), ("r2", 2)) for i in range(1, 5) for k in range(1, n + 1)),
                 header=RUNS)
# r2's row of c3 has no outcome: --missing drop takes it, and c3 is then on one side only.
DROPPED = csv("r1,c1,1,A", "r1,c2,1,A", "r1,c3,0,B", "r1,c4,1,B", "r2,c1,1,A", "r2,c2,0,A", "r2,c3,,B", "r2,c4,1,B")
TWO_CONTENTS = csv("r1,c1,1,1,Question one.", "r1,c1,2,1,Question two.", "r1,c2,1,1,Q.", "r1,c2,2,1,Q.",
                   "r2,c1,1,1,Question one.", "r2,c1,2,1,Question one.", "r2,c2,1,1,Q.", "r2,c2,2,1,Q.",
                   header="release,case_id,run,passed,input")

PAIRING_CASES: tuple[Case, ...] = (
    Case("content-changed", "a case whose content differs between the releases under the same id",
         "`c2` asks `Name a fruit.` in r1, `Name a vegetable.` in r2 (`input` column)",
         {"results.csv": REPLACED}, ("results.csv", *BASE),
         ("1 case(s) have other content in 'r2' than in 'r1'", "'c2'", "'Name a fruit.' in 'r1'",
          "'Name a vegetable.' in 'r2'", "--allow-changed"), kind="pairing"),
    Case("allow-changed", "content changed, with --allow-changed", "as above, `--allow-changed`",
         {"results.csv": REPLACED}, ("results.csv", *BASE, "--allow-changed"),
         ("left out: their content differs", "'c2'"), exit=0,
         markdown=("r2 (1 of 4 cases left out: content changed)",)),
    Case("positions-inserted", "ids that are dataset positions, a question inserted at the top",
         "`id_is_position` true; r2's dataset has a new question 1, the rest moved down",
         {"results.csv": INSERTED}, ("results.csv", *BASE),
         ("case sets differ", "1 case(s) only in 'r2' (e.g. 'r2:1')"), kind="pairing"),
    Case("positions-no-content", "ids that are dataset positions, with no content to pair them by",
         "`id_is_position` true, no `input` or `content_hash`",
         {"results.csv": NO_CONTENT}, ("results.csv", *BASE),
         ("are positions in its dataset", "carry no content to pair them by"), kind="pairing"),
    Case("positions-ambiguous", "ids that are dataset positions, two cases with one content",
         "cases 1 and 2 both ask `Same question.`", {"results.csv": TWINS}, ("results.csv", *BASE),
         ("2 cases of 'r1' share one content", "ambiguous"), kind="pairing"),
    Case("two-contents-in-one-case", "a case whose runs carry two contents", "`c1` run 2 asks another question",
         {"results.csv": TWO_CONTENTS}, ("results.csv", *BASE),
         ("carry two different contents within one release", "case 'c1' of 'r1'"), kind="pairing"),
    Case("runs-incomplete", "a case with fewer runs than other cases have",
         "r2's two failing runs of `c2` absent (3 runs elsewhere)", {"results.csv": SHORT_RUNS},
         ("results.csv", *BASE), ("1 case(s) of 'r2' have fewer runs than the 3 other cases have", "'c2': 1 of 3",
                                  "--allow-incomplete-runs"), kind="runs"),
    Case("runs-fewer-in-a-release", "a release repeated fewer times than the baseline",
         "r1 3 runs of every case, r2 2", {"results.csv": FEWER_RUNS}, ("results.csv", *BASE),
         ("4 case(s) of 'r2' have fewer runs than the 3 other cases have (every case of it",), kind="runs"),
    Case("missing-drop-one-side", "a case whose only row in one release --missing drop dropped",
         "r2's row of `c3` has no outcome, `--missing drop`", {"results.csv": DROPPED},
         ("results.csv", *BASE, "--missing", "drop"),
         ("1 case(s) only in 'r1' (e.g. 'c3'; 1 of them had rows in 'r2' without an outcome, which --missing drop "
          "dropped)", "--allow-missing", "--missing fail"), kind="pairing"),
    Case("baseline-runs-incomplete", "the baseline short of runs, with --allow-incomplete-runs",
         "r1's third run of `c2` absent (3 runs elsewhere), `--allow-incomplete-runs`", {"results.csv": BASE_SHORT},
         ("results.csv", *BASE, "--allow-incomplete-runs"),
         ("1 case(s) of 'r1' have fewer runs than the 3 other cases have",
          "the baseline's missing runs cannot be counted as failures"), kind="runs"),
    Case("allow-incomplete-runs", "runs missing, with --allow-incomplete-runs", "as above, `--allow-incomplete-runs`",
         {"results.csv": SHORT_RUNS}, ("results.csv", *BASE, "--allow-incomplete-runs"),
         ("2 missing run(s) of 1 case(s) counted as failures",), exit=0,
         markdown=("1 case with missing runs counted as failures",)),
)
