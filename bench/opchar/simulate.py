"""Simulated paired releases with a known true difference: the data of the operating-characteristics study.

The model (stated again in docs/operating-characteristics.md):

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


def cell_probabilities(p0: float, share: float, delta) -> np.ndarray:
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
