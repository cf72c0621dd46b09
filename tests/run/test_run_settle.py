"""``releasegate run CONFIG --settle`` (issue 34 item 3): a NOT PROVEN store settled by the two-phase design's
extra runs on the fake system kind (no network). The fake draws every (release, case, run) afresh, so two
releases of equal accuracy differ by run-to-run noise only (what more runs settle), and the seeds below were
chosen, once, for a look 1 that is NOT PROVEN."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import releasegate
from conftest import run_cli
from releasegate.model import Decision
from releasegate.plan.settle import TwoPhase, settled_decision
from releasegate.run.store import Store
from run_support import write_cases, write_config

N = 200  # cases; one run of both releases is 400 calls


def _config(tmp_path, accuracy: float, seed: int, runs: int = 1):
    cases = write_cases(tmp_path / "cases.csv", N)
    systems = [{"name": "live", "kind": "fake", "accuracy": 0.8},
               {"name": "cand", "kind": "fake", "accuracy": accuracy, "seed": seed}]
    return write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store", "runs": runs,
                                                "max_attempts": 1}, systems, {"name": "correct", "kind": "exact"})


def _cells(tmp_path) -> pd.DataFrame:
    with Store(tmp_path / "store") as db:
        return pd.DataFrame(db.cells())


def _look(tmp_path, runs: int, alpha: float) -> Decision:
    """The store's comparison on its first ``runs`` runs, outside the command: the same pipeline as check."""
    table = pd.DataFrame(_cells(tmp_path))
    ok = table[table["run"] < runs]
    frame = ok.assign(passed=ok["output"].str.startswith("answer"))[["release", "case_id", "run", "passed"]]
    frame = frame.assign(category=frame["case_id"].map(lambda c: f"cat{int(c[1:]) % 3}"))
    return releasegate.compare(frame, baseline="live", alpha=alpha).decision


def test_a_harmless_not_proven_release_settles_to_ship(tmp_path):
    path = _config(tmp_path, 0.8, seed=3)
    plain = run_cli("run", path, cwd=tmp_path)
    assert plain.exit_code == 0, plain.output
    assert _look(tmp_path, 1, 0.04) is Decision.NOT_PROVEN  # look 1's data, decided outside the command
    done = run_cli("run", path, "--settle", cwd=tmp_path)
    assert done.exit_code == 0, done.output
    assert "look 1 (1 run(s) a case, alpha 0.04): NOT PROVEN" in done.output
    assert "4 more run(s) of 200 cases on 2 systems (at most 1600 call(s))" in done.output
    assert "run: 1600 system call(s)" in done.output
    assert "look 2 (5 run(s) a case, alpha 0.01): SHIP" in done.output
    assert "SHIP  cand (settled: look 1 NOT PROVEN, look 2 SHIP)" in done.output
    cells = _cells(tmp_path)
    assert len(cells) == 2000 and sorted(cells["run"].unique()) == [0, 1, 2, 3, 4]
    assert _look(tmp_path, 5, 0.01) is Decision.SHIP
    # Run again: every cell is done (resume by key), nothing is called, the same verdict.
    again = run_cli("run", path, "--settle", cwd=tmp_path)
    assert again.exit_code == 0 and "run: 0 system call(s)" in again.output and "SHIP  cand" in again.output
    assert len(_cells(tmp_path)) == 2000


def test_the_budget_is_respected(tmp_path):
    path = _config(tmp_path, 0.8, seed=3)
    short = run_cli("run", path, "--settle", "--settle-budget", "399", cwd=tmp_path)
    assert short.exit_code == 3, short.output  # one more run of every case is 400 calls: none is bought
    assert "cannot pay for one more run of every case (400 calls): NOT PROVEN stays" in short.output
    assert "NOT PROVEN  cand (settled: look 1 NOT PROVEN)" in short.output
    assert len(_cells(tmp_path)) == 400
    two = run_cli("run", path, "--settle", "--settle-budget", "999", cwd=tmp_path)
    assert "2 more run(s) of 200 cases on 2 systems (at most 800 call(s), budget 999)" in two.output
    assert "run: 800 system call(s)" in two.output
    cells = _cells(tmp_path)
    assert len(cells) == 1200 and cells["run"].max() == 2
    assert "look 2 (3 run(s) a case, alpha 0.01)" in two.output


@pytest.mark.parametrize("seed, final, status", [(4, "DON'T SHIP", 1), (1, "NOT PROVEN", 3)])
def test_a_regression_is_not_settled_into_ship(tmp_path, seed, final, status):
    path = _config(tmp_path, 0.72, seed=seed)  # 8 points worse, beyond the 5-point margin
    done = run_cli("run", path, "--settle", cwd=tmp_path)
    assert "look 1 (1 run(s) a case, alpha 0.04): NOT PROVEN" in done.output
    assert done.exit_code == status, done.output
    assert f"{final}  cand (settled: look 1 NOT PROVEN, look 2 {final})" in done.output
    assert len(_cells(tmp_path)) == 2000


def test_a_settled_look_1_stops_at_once(tmp_path):
    path = _config(tmp_path, 0.5, seed=2)  # 30 points worse: DON'T SHIP at look 1
    done = run_cli("run", path, "--settle", cwd=tmp_path)
    assert done.exit_code == 1, done.output
    assert "look 1 (1 run(s) a case, alpha 0.04): DON'T SHIP" in done.output and "more run(s)" not in done.output
    assert len(_cells(tmp_path)) == 400


def test_settle_options_are_checked_before_anything_runs(tmp_path):
    path = _config(tmp_path, 0.8, seed=3)
    for args, said in ((("--settle-budget", "5"), "without --settle"), (("--settle", "--dry-run"), "--dry-run"),
                       (("--settle", "--only", "cand"), "--only"), (("--settle", "--settle-budget", "-1"), "0 or more")):
        refused = run_cli("run", path, *args, cwd=tmp_path)
        assert refused.exit_code == 2 and said in refused.output and len(refused.output.strip().splitlines()) == 1
    assert not (tmp_path / "store").exists()


def test_the_design_at_a_policy_alpha_and_the_settled_verdicts():
    design = TwoPhase.for_alpha(0.05)
    assert (design.first_alpha, design.second_alpha, design.extra_runs) == pytest.approx((0.04, 0.01, 4))
    TwoPhase.for_alpha(0.1).check(0.1)
    assert settled_decision(Decision.SHIP, None) is Decision.SHIP
    assert settled_decision(Decision.DONT_SHIP, None) is Decision.DONT_SHIP
    for second in Decision:
        assert settled_decision(Decision.NOT_PROVEN, second) is second
    with pytest.raises(ValueError):
        settled_decision(Decision.NOT_PROVEN, None)


def test_an_interrupted_second_phase_resumes_from_the_store(tmp_path):
    """The second phase's cells are the store's own (new run indices): the baseline's four extra runs made
    before, as an interrupted second phase would leave them, are not called again."""
    path = _config(tmp_path, 0.8, seed=3)
    longer = tmp_path / "five.toml"
    longer.write_text(path.read_text().replace("runs = 1", "runs = 5"))
    partial = run_cli("run", longer, "--only", "live", cwd=tmp_path)
    assert partial.exit_code == 4 and "run: 1000 system call(s)" in partial.output  # cand's cells: holes
    done = run_cli("run", path, "--settle", cwd=tmp_path)
    assert "run: 200 system call(s)" in done.output  # phase one: cand's run 0 only
    assert "run: 800 system call(s)" in done.output  # phase two: cand's runs 1-4 only
    assert done.exit_code == 0 and "SHIP  cand (settled: look 1 NOT PROVEN, look 2 SHIP)" in done.output
    assert len(_cells(tmp_path)) == 2000


# ---- the settled verdict in the store: check STORE and report STORE read it (load/settled.py) ----------------


VALUE_OF = {d.label: d.value for d in Decision}


def _settled_meta(tmp_path):
    with Store(tmp_path / "store") as db:
        return db.get_meta("settled")


@pytest.mark.parametrize("accuracy, seed, final, status", [(0.8, 3, "SHIP", 0), (0.72, 4, "DON'T SHIP", 1),
                                                           (0.72, 1, "NOT PROVEN", 3)])
def test_check_on_a_settled_store_reads_the_last_look_at_its_alpha(tmp_path, accuracy, seed, final, status):
    path = _config(tmp_path, accuracy, seed=seed)
    done = run_cli("run", path, "--settle", cwd=tmp_path)
    assert done.exit_code == status, done.output
    meta = _settled_meta(tmp_path)
    assert [(x["runs"], x["alpha"], x["verdicts"]["cand"]) for x in meta["looks"]] == [
        (1, pytest.approx(0.04), "not_proven"), (5, pytest.approx(0.01), VALUE_OF[final])]
    assert meta["verdicts"] == {"cand": meta["looks"][1]["verdicts"]["cand"]} and meta["policy_alpha"] == 0.05
    checked = run_cli("check", tmp_path / "store", cwd=tmp_path)
    assert checked.exit_code == status, checked.output
    assert final in checked.output
    # At the policy's full alpha the 5 runs could say otherwise (a third look); the check is look 2 at 0.01.
    assert _look(tmp_path, 5, 0.01).label == final
    out = tmp_path / "note.json"
    run_cli("report", tmp_path / "store", "-o", out, cwd=tmp_path)

    note = json.loads(out.read_text())
    assert note["policy"]["alpha"] == pytest.approx(0.01) and note["parameters"]["alpha"] == pytest.approx(0.01)
    said = " ".join(note["notes"])
    assert "Settled by `releasegate run --settle`" in said and "look 2 on 5 runs a case at alpha 0.01" in said


def test_a_store_settled_at_look_1_is_checked_at_look_1s_alpha(tmp_path):
    path = _config(tmp_path, 0.5, seed=2)
    assert run_cli("run", path, "--settle", cwd=tmp_path).exit_code == 1
    meta = _settled_meta(tmp_path)
    assert len(meta["looks"]) == 1 and meta["looks"][0]["alpha"] == pytest.approx(0.04)
    checked = run_cli("check", tmp_path / "store", cwd=tmp_path)
    assert checked.exit_code == 1 and "DON'T SHIP" in checked.output


def test_a_settled_store_is_not_decided_another_way(tmp_path):
    path = _config(tmp_path, 0.8, seed=3)
    assert run_cli("run", path, "--settle", cwd=tmp_path).exit_code == 0
    store = tmp_path / "store"
    for args, said in ((("--alpha", "0.1"), "settled at alpha 0.05"), (("--margin", "0.1"), "the policy differs"),
                       (("--baseline", "cand", "--candidate", "live"), "settled against baseline live")):
        refused = run_cli("check", store, *args, cwd=tmp_path)
        assert refused.exit_code == 2 and said in refused.output, refused.output
        assert len(refused.output.strip().splitlines()) == 1
        assert "releasegate run CONFIG --settle" in refused.output or "drop --alpha" in refused.output
    # The refusal names the key that changed, the value it was settled under, and where the new one came from.
    flag = run_cli("check", store, "--not-proven", "warn", cwd=tmp_path)
    assert flag.exit_code == 2 and len(flag.output.strip().splitlines()) == 1
    assert '(not_proven = "warn" given by --not-proven, settled under "block")' in flag.output, flag.output
    policy = tmp_path / "warn.toml"
    policy.write_text('not_proven = "warn"\nmargin = 0.05\n')
    filed = run_cli("check", store, "--policy", policy, "--margin", "0.1", cwd=tmp_path)
    assert filed.exit_code == 2, filed.output
    assert (f'(margin = 0.1 given by --margin, settled under 0.05; not_proven = "warn" set in {policy}, settled '
            'under "block")') in filed.output, filed.output
    # A store settled before the record kept the pinned values: the one key whose default gives its fingerprint.
    meta = _settled_meta(tmp_path)
    with Store(store) as db:
        db.set_meta("settled", {k: v for k, v in meta.items() if k != "pinned"})
    older = run_cli("check", store, "--not-proven", "warn", cwd=tmp_path)
    assert '(not_proven = "warn" given by --not-proven, settled under "block")' in older.output, older.output
    with Store(store) as db:
        db.set_meta("settled", {**meta, "pinned": {**meta["pinned"], "margin": 0.2}})
    edited = run_cli("check", store, cwd=tmp_path)
    assert edited.exit_code == 2 and "was edited or damaged (policy values" in edited.output, edited.output
    with Store(store) as db:
        db.set_meta("settled", meta)
    # The look's own alpha given is that look again.
    assert run_cli("check", store, "--alpha", "0.01", cwd=tmp_path).exit_code == 0
    # A run since changed the cells the looks read (the config's one run again): refused, saying what to run.
    assert run_cli("run", path, cwd=tmp_path).exit_code == 0
    stale = run_cli("check", store, cwd=tmp_path)
    assert stale.exit_code == 2 and "on other cells than it holds now" in stale.output, stale.output
    assert "releasegate run CONFIG --settle" in stale.output
    # Settling again decides it anew (look 1 on the first run, look 2 on all five: nothing called) and check reads it.
    again = run_cli("run", path, "--settle", cwd=tmp_path)
    assert again.exit_code == 0 and "run: 0 system call(s)" in again.output
    assert run_cli("check", store, cwd=tmp_path).exit_code == 0


def test_a_candidate_settled_by_an_earlier_look_is_not_checked_on_the_later_runs(tmp_path):
    cases = write_cases(tmp_path / "cases.csv", N)
    systems = [{"name": "live", "kind": "fake", "accuracy": 0.8},
               {"name": "cand", "kind": "fake", "accuracy": 0.8, "seed": 3},
               {"name": "good", "kind": "fake", "accuracy": 0.97, "seed": 5}]
    path = write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store", "runs": 1, "max_attempts": 1},
                        systems, {"name": "correct", "kind": "exact"})
    done = run_cli("run", path, "--settle", cwd=tmp_path)
    assert "SHIP  good (settled: look 1 SHIP, look 2 SHIP)" in done.output, done.output
    assert "cand (settled: look 1 NOT PROVEN, look 2" in done.output
    refused = run_cli("check", tmp_path / "store", cwd=tmp_path)
    assert refused.exit_code == 2 and "good was settled at look 1" in refused.output, refused.output
    assert "--candidate cand" in refused.output
    only = run_cli("check", tmp_path / "store", "--candidate", "cand", cwd=tmp_path)
    assert only.exit_code == done.exit_code, only.output


def test_case_level_change_is_not_rerun(tmp_path):
    # Two deterministic systems (the same answer in every run): each fails a tenth of the cases, a different
    # tenth, so 20% of the cases differ for good between them and a rerun repeats every one of them. The store
    # holds two runs, so the split is measured before look 1: runs cannot settle it, nothing is called, and the
    # store is decided by one look at the full alpha (NOT PROVEN, as check says).
    (tmp_path / "bots.py").write_text(
        "def live(case, run):\n"
        "    return 'wrong' if int(case['case_id'][1:]) % 10 == 0 else case['reference']\n\n"
        "def cand(case, run):\n"
        "    return 'wrong' if int(case['case_id'][1:]) % 10 == 1 else case['reference']\n")
    cases = write_cases(tmp_path / "cases.csv", N)
    systems = [{"name": "live", "kind": "python", "entry": "bots:live"},
               {"name": "cand", "kind": "python", "entry": "bots:cand"}]
    path = write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store", "runs": 2},
                        systems, {"name": "correct", "kind": "exact"})
    done = run_cli("run", path, "--settle", cwd=tmp_path)
    assert done.exit_code == 3, done.output
    assert ("settle: more runs cannot settle it (cand: 20.0% of cases changed for good, 0.0% run-to-run; more "
            "cases can): no run added, one look at alpha 0.05: NOT PROVEN") in done.output
    assert "more run(s)" not in done.output and "look 2" not in done.output
    assert len(_cells(tmp_path)) == 2 * 2 * N
    check = run_cli("check", tmp_path / "store", "--baseline", "live", cwd=tmp_path)
    assert check.exit_code == 3, check.output


def test_run_to_run_noise_with_two_runs_is_still_rerun(tmp_path):
    # The fake draws every (release, case, run) afresh: with two runs in the store the split says the
    # discordance is run-to-run, and the two looks run as with one run.
    path = _config(tmp_path, 0.8, seed=3, runs=2)
    done = run_cli("run", path, "--settle", cwd=tmp_path)
    assert "more runs cannot settle it" not in done.output
    assert "look 1 (2 run(s) a case, alpha 0.04)" in done.output
