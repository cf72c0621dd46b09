"""Simulated releases with a known true difference: the data of ``releasegate plan`` and of the
operating-characteristics study (bench/opchar imports this module).

Two models live here. ``ReleaseScenario`` / ``draw_releases`` (below) is the one the plan uses: churn
measured as the issue defines it, runs, a baseline rerun and critical categories. ``Scenario`` / ``draw`` is
the study's original paired-cell model, kept as it was so that the published figures stay reproduced.

The paired-cell model (stated again in docs/operating-characteristics.md):

- Each case falls in one cell of the paired 2x2 table: both pass, broke (baseline pass, candidate fail), fixed
  (baseline fail, candidate pass), both fail, with probabilities p0 - b, b, c, 1 - p0 - c, where
  c = (s' + delta) / 2, b = (s' - delta) / 2 and s' = max(s, |delta|). s is the *changing share*, the
  probability that a case changes outcome when nothing changed on average (the null); the baseline pass rate
  is p0 and the candidate's p0 + delta in expectation. When |delta| > s every change goes the regression's
  (or the gain's) way and the changing share is |delta|.
- Categories: cases are split into K equal blocks; with K > 1 the first category alone carries the
  regression: its true difference is delta * n / n_0, so that the overall true difference is delta; the other
  categories only churn (s, no difference). With ``spread = "even"`` every category has the difference delta
  instead (the price the per-category family puts on a regression that is everywhere).
- Clusters: G equal blocks of cases; each cluster's difference is shifted by u_g ~ N(0, CLUSTER_SD^2), drawn
  afresh in every replication, so outcomes within a cluster move together (clipped to what p0 allows).
- Runs: each case's latent state (pass / fail per release, drawn as above) fixes a latent pass probability
  (1 - FLAKE) z + FLAKE p_release; every run is a Bernoulli draw from it, so a rerun disagrees with the latent
  outcome now and then while each release's expected pass rate stays p0 (baseline) and p0 + delta.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

CLUSTER_SD = 0.04  # sd of the per-cluster shift of the difference, in pass-rate units
FLAKE = 0.2  # share of runs that are a fresh draw at the release's pass rate rather than the latent outcome
BATCH = 256  # replications drawn at once: vectorised, yet small enough for 10,000-case cells

# Outcome of (baseline, candidate) in each cell of the 2x2 table: both pass, broke, fixed, both fail.
BASE_OF_CELL = np.array([1, 1, 0, 0], dtype=np.int8)
CAND_OF_CELL = np.array([1, 0, 1, 0], dtype=np.int8)


@dataclass(frozen=True)
class Scenario:
    """One cell of the grid: the design of the simulated release pair and its true difference."""

    n: int = 400
    p0: float = 0.9
    share: float = 0.05
    delta: float = 0.0
    categories: int = 1
    clusters: int = 0
    runs: int = 1
    spread: str = "one"  # with categories: "one" (the first carries the regression) or "even"

    def key(self) -> str:
        spread = "-even" if self.spread == "even" else ""
        return (f"n{self.n}-p{self.p0:g}-s{self.share:g}-d{self.delta:+g}-k{self.categories}{spread}"
                f"-g{self.clusters}-r{self.runs}")

    @property
    def one_way(self) -> bool:
        """True when the regression (or gain) exceeds the churn, so that no change goes the other way."""
        return abs(self.delta) > self.share


@dataclass(frozen=True)
class Sample:
    """One simulated release pair. ``base``/``cand`` are per-case outcomes (the mean over runs with runs > 1);
    ``base_runs``/``cand_runs`` are (runs, n) 0/1 arrays when runs > 1; labels are integer codes or None."""

    base: np.ndarray
    cand: np.ndarray
    category: np.ndarray | None
    cluster: np.ndarray | None
    base_runs: np.ndarray | None
    cand_runs: np.ndarray | None


def cell_probabilities(p0: float, share: float, delta: float | np.ndarray) -> np.ndarray:
    """Probabilities of (both pass, broke, fixed, both fail); ``delta`` may be an array (one per stratum).

    Raises ValueError when the design is impossible (more breaks than passing cases, or more fixes than
    failing ones)."""
    delta = np.asarray(delta, dtype=float)
    s = np.maximum(share, np.abs(delta))
    fixed = (s + delta) / 2
    broke = (s - delta) / 2
    if np.any(broke > p0 + 1e-12) or np.any(fixed > 1 - p0 + 1e-12):
        raise ValueError(f"infeasible design: p0 {p0:g}, changing share {share:g}, difference {delta}")
    out = np.stack([p0 - broke, broke, fixed, 1 - p0 - fixed], axis=-1)
    return np.clip(out, 0.0, 1.0)


def _blocks(n: int, k: int) -> np.ndarray:
    """Block label of each of n cases split into k nearly equal contiguous blocks."""
    return (np.arange(n) * k) // n


class Design:
    """The fixed part of a scenario: strata (category x cluster blocks), their sizes and true differences."""

    def __init__(self, sc: Scenario):
        self.sc = sc
        category = _blocks(sc.n, sc.categories)
        cluster = _blocks(sc.n, sc.clusters) if sc.clusters else np.zeros(sc.n, dtype=int)
        strata, self.case_stratum = np.unique(np.stack([category, cluster], 1), axis=0, return_inverse=True)
        self.stratum_category = strata[:, 0]
        self.stratum_cluster = strata[:, 1]
        self.sizes = np.bincount(self.case_stratum.ravel(), minlength=len(strata))
        delta = np.full(len(strata), sc.delta)
        if sc.categories > 1 and sc.spread == "one":
            n0 = int(np.count_nonzero(category == 0))
            delta = np.where(self.stratum_category == 0, sc.delta * sc.n / n0, 0.0)
        self.delta = delta
        cell_probabilities(sc.p0, sc.share, delta)  # fail early on an impossible design

    def probabilities(self, rng: np.random.Generator, reps: int) -> np.ndarray:
        """(reps, strata, 4) cell probabilities; with clusters each replication draws its cluster shifts."""
        sc = self.sc
        if not sc.clusters:
            return np.broadcast_to(cell_probabilities(sc.p0, sc.share, self.delta), (reps, len(self.sizes), 4))
        shift = rng.normal(0.0, CLUSTER_SD, size=(reps, sc.clusters))[:, self.stratum_cluster]
        delta = np.clip(self.delta + shift, -sc.p0, 1 - sc.p0)
        return cell_probabilities(sc.p0, sc.share, delta)


def _runs(z: np.ndarray, rate: float, runs: int, rng: np.random.Generator) -> np.ndarray:
    latent = (1 - FLAKE) * z + FLAKE * rate
    return (rng.random((runs, z.size)) < latent).astype(np.int8)


def draw(sc: Scenario, reps: int, rng: np.random.Generator) -> Iterator[Sample]:
    """``reps`` seeded replications of the scenario, drawn in vectorised batches."""
    design = Design(sc)
    n_strata = len(design.sizes)
    # Cases of a stratum are contiguous after sorting by stratum; labels follow the stratum.
    order = np.argsort(design.case_stratum.ravel(), kind="stable")
    category = design.stratum_category[design.case_stratum.ravel()][order] if sc.categories > 1 else None
    cluster = design.stratum_cluster[design.case_stratum.ravel()][order] if sc.clusters else None
    base_cells = np.tile(BASE_OF_CELL, n_strata)
    cand_cells = np.tile(CAND_OF_CELL, n_strata)
    done = 0
    while done < reps:
        batch = min(BATCH, reps - done)
        counts = rng.multinomial(design.sizes, design.probabilities(rng, batch))
        for row in counts.reshape(batch, -1):
            z_base = np.repeat(base_cells, row)
            z_cand = np.repeat(cand_cells, row)
            if sc.runs > 1:
                base_runs = _runs(z_base, sc.p0, sc.runs, rng)
                cand_runs = _runs(z_cand, sc.p0 + sc.delta, sc.runs, rng)
                yield Sample(base_runs.mean(0), cand_runs.mean(0), category, cluster, base_runs, cand_runs)
            else:
                yield Sample(z_base, z_cand, category, cluster, None, None)
        done += batch


# ------------------------------------------------------------------------------------------ release model
# Two kinds of change between a baseline and a harmless candidate (issue 34 item 8):
# - run-to-run churn: the share of cases whose outcome differs between two runs of the same release. Each case is
#   stable-pass, stable-fail or flaky (every run a fresh Bernoulli(p0) draw); a flaky share w gives churn
#   2 w p0 (1 - p0), so run-to-run churn above 2 p0 (1 - p0) (0.18 at p0 = 0.9) is impossible;
# - case-level change: the candidate really changes some stable cases, as many passes into fails as fails into
#   passes on average (harmless), which runs do not average away. A share c of cases changed needs
#   c / 2 <= (1 - w) min(p0, 1 - p0): at p0 = 0.9 without run noise up to 20% (every failing case fixed).
# One run of each release then disagrees on a share c + 2 w p0 (1 - p0) of cases, the between-release churn.
# ``noise = "reproduce"`` (what ``releasegate plan`` simulates) is the operating-characteristics study's run model
# instead: every case has a latent outcome per release (paired cells: as many passes changed into fails as fails
# into passes, a share c of the cases), and each run reproduces it with probability rho and is otherwise a
# fresh draw at p0, so a case passes a run with probability rho z + (1 - rho) p0; rho is set so that two runs
# of one release disagree on the run-to-run churn r. One run of each release then disagrees on r + c rho^2.


@dataclass(frozen=True)
class ReleaseScenario:
    """A suite and a candidate: ``n`` cases at baseline pass rate ``p0``, run-to-run churn ``churn`` and
    case-level change ``change`` (the share of cases whose outcome the candidate changes for good, half of them
    each way: one run of each release then disagrees on about change + churn of them).

    - ``drop``: true drop of the overall pass rate. ``mode="added"``: on top of the churn, each case's
      candidate is broken (always fails) with probability drop / p0; ``"tilted"``: the flaky cases carry it
      (their candidate pass probability is p0 - drop / w), the set of changing cases stays the same.
    - ``critical``: sizes of the critical categories (the first cases, categories 0..); ``critical_drop``: an
      extra drop of the first critical category's pass rate (its cases broken with probability
      critical_drop / p0). The remaining cases form ``categories`` equal non-critical categories.
    - ``runs`` per release; ``rerun``: a baseline rerun (the baseline again, same cases, same runs).
    - ``clusters`` equal blocks of cases; ``icc``: the intra-cluster correlation of the per-case difference,
      made by a mean-zero shift u_g of the candidate in each cluster (Var u = icc churn / (1 - icc)): a
      negative shift breaks passes with probability -u/p0, a positive one fixes fails with probability
      u/(1 - p0), so the release "changes nothing" on average and yet moves by cluster. u = X - p0 with
      X ~ Beta of mean p0 (skewed like the room it has); needs Var u < p0 (1 - p0).
    """

    n: int = 400
    p0: float = 0.9
    churn: float = 0.10
    drop: float = 0.0
    mode: str = "added"
    critical: tuple[int, ...] = ()
    critical_drop: float = 0.0
    categories: int = 1
    runs: int = 1
    rerun: bool = False
    clusters: int = 0
    icc: float = 0.0
    change: float = 0.0
    noise: str = "flaky"  # or "reproduce" (see above)

    def key(self) -> str:
        crit = "+".join(map(str, self.critical)) or "none"
        # The change appears only when set, so every earlier scenario keeps its key (and its seed).
        change = (f"-ch{self.change:g}" if self.change else "") + ("-reproduce" if self.noise == "reproduce" else "")
        return (f"n{self.n}-p{self.p0:g}-s{self.churn:g}-d{self.drop:g}-{self.mode}-c{crit}"
                f"-cd{self.critical_drop:g}"
                f"-k{self.categories}-r{self.runs}-rr{int(self.rerun)}-g{self.clusters}-icc{self.icc:g}{change}")

    @property
    def reproduce(self) -> float:
        """rho of the reproduce model: two runs of one release disagree on ``churn`` of the cases."""
        return reproduce_for(self.churn, self.p0)

    @property
    def flaky_share(self) -> float:
        return self.churn / (2 * self.p0 * (1 - self.p0)) if 0 < self.p0 < 1 else 0.0

    def check(self) -> None:
        """ValueError naming what is impossible in the design."""
        if self.n < 1 or self.runs < 1 or self.categories < 1:
            raise ValueError("cases, runs and categories must be at least 1")
        if not 0 < self.p0 < 1:
            raise ValueError(f"the baseline pass rate must be strictly between 0 and 1, got {self.p0:g}")
        if self.churn < 0 or self.flaky_share > 1 + 1e-12:
            ceiling = 2 * self.p0 * (1 - self.p0)
            raise ValueError(f"churn {self.churn:g} is impossible at pass rate {self.p0:g}: two independent "
                             f"runs disagree on at most 2 p0 (1 - p0) = {ceiling:.3f} of cases")
        if self.noise not in ("flaky", "reproduce"):
            raise ValueError(f"unknown run noise {self.noise!r}")
        if self.noise == "reproduce" and (self.mode == "tilted" or self.clusters):
            raise ValueError("the reproduce run model has no tilted drop and no clusters")
        share = 0.0 if self.noise == "reproduce" else min(1.0, self.flaky_share)
        room = (1 - share) * min(self.p0, 1 - self.p0)
        if self.change < 0 or self.change / 2 > room + 1e-12:
            raise ValueError(f"a case-level change of {self.change:g} is impossible at pass rate {self.p0:g} "
                             f"beside run-to-run churn {self.churn:g}: at most {2 * room:.3f} of cases can change "
                             "for good, as many each way")
        if sum(self.critical) >= self.n and self.critical:
            raise ValueError("the critical categories leave no other case")
        if not 0 <= self.drop <= self.p0 or not 0 <= self.drop + self.critical_drop <= self.p0:
            raise ValueError(f"a drop cannot exceed the baseline pass rate {self.p0:g}")
        if self.mode == "tilted" and self.drop > self.flaky_share * self.p0 + 1e-12:
            raise ValueError(f"a tilted drop of {self.drop:g} exceeds what the flaky cases can carry")
        if self.mode not in ("added", "tilted"):
            raise ValueError(f"unknown mode {self.mode!r}")
        if self.clusters < 0 or not 0 <= self.icc < 1 or (self.icc > 0 and self.clusters < 1):
            raise ValueError("icc must be in [0, 1) and needs clusters")
        if self.icc * self.churn / (1 - self.icc) >= self.p0 * (1 - self.p0):
            raise ValueError(f"an icc of {self.icc:g} at churn {self.churn:g} needs cluster shifts larger "
                             f"than pass rate {self.p0:g} allows")

    def labels(self) -> tuple[np.ndarray, np.ndarray | None, tuple[int, ...]]:
        """Per-case category codes (critical first), cluster codes (or None), and the critical codes."""
        category = np.empty(self.n, dtype=np.int64)
        start = 0
        for code, size in enumerate(self.critical):
            category[start:start + size] = code
            start += size
        rest = self.n - start
        category[start:] = len(self.critical) + _blocks(rest, self.categories)
        cluster = _blocks(self.n, self.clusters) if self.clusters else None
        return category, cluster, tuple(range(len(self.critical)))


@dataclass(frozen=True)
class ReleaseSample:
    """One simulated release pair: (runs, cases) 0/1 arrays; ``rerun_runs`` the baseline rerun or None."""

    base_runs: np.ndarray
    cand_runs: np.ndarray
    rerun_runs: np.ndarray | None
    category: np.ndarray
    critical: tuple[int, ...]
    cluster: np.ndarray | None

    @property
    def base(self) -> np.ndarray:
        return self.base_runs[0] if self.base_runs.shape[0] == 1 else self.base_runs.mean(0)

    @property
    def cand(self) -> np.ndarray:
        return self.cand_runs[0] if self.cand_runs.shape[0] == 1 else self.cand_runs.mean(0)


def run_disagreement(rho: float, p0: float) -> float:
    """Two runs of one release disagree on this share of cases in the reproduce model."""
    hit, miss = rho + (1 - rho) * p0, (1 - rho) * p0
    return p0 * 2 * hit * (1 - hit) + (1 - p0) * 2 * miss * (1 - miss)


def reproduce_for(churn: float, p0: float) -> float:
    """rho with ``run_disagreement(rho, p0) == churn`` (bisection: it falls from 2 p0 (1 - p0) at 0 to 0 at 1)."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if run_disagreement(mid, p0) > churn else (lo, mid)
    return (lo + hi) / 2


def _release_runs(rng: np.random.Generator, latent: np.ndarray, runs: int) -> np.ndarray:
    """(reps, runs, n) 0/1 draws from per-case pass probabilities (reps, n)."""
    return (rng.random((latent.shape[0], runs, latent.shape[1])) < latent[:, None, :]).astype(np.int8)


def draw_releases(sc: ReleaseScenario, reps: int, rng: np.random.Generator, batch: int = BATCH):
    """``reps`` seeded replications of the scenario, drawn ``batch`` at a time (vectorised over reps)."""
    sc.check()
    category, cluster, critical = sc.labels()
    w = sc.flaky_share
    kind_p = np.array([(1 - w) * sc.p0, w, (1 - w) * (1 - sc.p0)])  # stable pass, flaky, stable fail
    case_drop = np.full(sc.n, sc.drop)
    if sc.critical:
        case_drop[category == 0] += sc.critical_drop
    shift_var = sc.icc * sc.churn / (1 - sc.icc) if sc.clusters else 0.0
    done = 0
    if sc.noise == "reproduce":
        yield from _reproduce_releases(sc, reps, rng, batch, category, critical, case_drop)
        return
    while done < reps:
        r = min(batch, reps - done)
        kind = (rng.random((r, sc.n))[..., None] > np.cumsum(kind_p)[:-1]).sum(-1)
        latent = np.where(kind == 0, 1.0, np.where(kind == 1, sc.p0, 0.0))
        cand = latent.copy()
        if sc.change > 0:
            # Case-level change: stable passes fail for good and stable fails pass, change / 2 of the cases each.
            flip = rng.random((r, sc.n))
            to_fail = (kind == 0) & (flip < sc.change / 2 / kind_p[0])
            to_pass = (kind == 2) & (flip < sc.change / 2 / kind_p[2])
            cand = np.where(to_fail, 0.0, np.where(to_pass, 1.0, cand))
        if sc.mode == "tilted" and sc.drop > 0:
            cand = np.where(kind == 1, sc.p0 - sc.drop / w, cand)
            extra = case_drop - sc.drop  # the critical category's own drop is added on top
        else:
            extra = case_drop
        broken = rng.random((r, sc.n)) < extra / sc.p0
        if shift_var > 0:
            # u = X - p0 with X ~ Beta(mean p0, variance shift_var): mean 0 and never beyond what breaking
            # every pass (-p0) or fixing every fail (1 - p0) can do, however skewed that room is.
            total = sc.p0 * (1 - sc.p0) / shift_var - 1
            u = (rng.beta(sc.p0 * total, (1 - sc.p0) * total, size=(r, sc.clusters)) - sc.p0)[:, cluster]
            broken |= rng.random((r, sc.n)) < np.clip(-u / sc.p0, 0, 1)
            fixed = rng.random((r, sc.n)) < np.clip(u / (1 - sc.p0), 0, 1)
            cand = np.where(fixed, 1.0, cand)
        cand = np.where(broken, 0.0, cand)
        base_runs = _release_runs(rng, latent, sc.runs)
        cand_runs = _release_runs(rng, cand, sc.runs)
        rerun_runs = _release_runs(rng, latent, sc.runs) if sc.rerun else None
        for i in range(r):
            yield ReleaseSample(base_runs[i], cand_runs[i], None if rerun_runs is None else rerun_runs[i],
                                category, critical, cluster)
        done += r


def _reproduce_releases(sc: ReleaseScenario, reps: int, rng: np.random.Generator, batch: int, category, critical,
                        case_drop: np.ndarray):
    """draw_releases under the reproduce run model: latent outcomes, case-level change on them, drops as cases
    broken for good (every run fails), each run of a case a Bernoulli(rho z + (1 - rho) p0) draw."""
    rho = sc.reproduce
    hit, miss = rho + (1 - rho) * sc.p0, (1 - rho) * sc.p0
    done = 0
    while done < reps:
        r = min(batch, reps - done)
        z = rng.random((r, sc.n)) < sc.p0
        z_cand = z
        if sc.change > 0:
            flip = rng.random((r, sc.n))
            z_cand = np.where(z, flip >= sc.change / 2 / sc.p0, flip < sc.change / 2 / (1 - sc.p0))
        latent = np.where(z, hit, miss)
        cand = np.where(z_cand, hit, miss)
        cand = np.where(rng.random((r, sc.n)) < case_drop / sc.p0, 0.0, cand)
        base_runs = _release_runs(rng, latent, sc.runs)
        cand_runs = _release_runs(rng, cand, sc.runs)
        rerun_runs = _release_runs(rng, latent, sc.runs) if sc.rerun else None
        for i in range(r):
            yield ReleaseSample(base_runs[i], cand_runs[i], None if rerun_runs is None else rerun_runs[i],
                                category, critical, None)
        done += r
