"""The sparse condition for grouped cases: when every group's change is -1, 0 or +1, the cluster sign-flip
test is exactly the binomial test on the groups that changed.

Under the cluster sign-flip null each group's sum S_g of per-case differences is symmetric about 0,
independently across groups (Canay, Santos & Shaikh 2021). When every S_g is -1, 0 or +1 (one case per group,
cluster = case id; or at most one changed case per group; or several runs that agree), flipping a set F of
groups turns |S_g| = 1 groups from "broke" into "fixed" and back, so the randomisation distribution of the
number of groups that broke among the k that changed is Bin(k, 1/2): the sign-flip p equals the exact
conditional (McNemar) p P(X >= broke) (Fagerland, Lydersen & Laake 2013), here computed exactly at any G
rather than by Monte Carlo flips above 20 groups. The same question asked of the same rows with the cases
ungrouped, as one run, or as two identical runs gives the same answer.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from releasegate.stats.clusters import cluster_sums_and_sizes, prepare_clusters
from releasegate.stats.sparse import SparseTest, sparse_conditional_test

# Per-case means over runs are fractions k / r; their sums over a group are integers only up to rounding.
INTEGER_TOLERANCE = 1e-9


def cluster_sums(d: ArrayLike, cluster: ArrayLike) -> np.ndarray:
    """Each group's sum of per-case differences, with sums within ``INTEGER_TOLERANCE`` of an integer
    snapped to it (a group of case means 1/3 and 2/3 sums to exactly 1)."""
    x, codes, g = prepare_clusters(d, cluster)
    sums, _ = cluster_sums_and_sizes(x, codes, g)
    nearest = np.round(sums)
    return np.where(np.abs(sums - nearest) <= INTEGER_TOLERANCE, nearest, sums)


def is_cluster_sparse(d: ArrayLike, cluster: ArrayLike) -> bool:
    """True when every group's sum of differences is -1, 0 or +1: the sign-flip p is then the exact
    binomial p on the groups' signs (:func:`cluster_sparse_test`)."""
    s = cluster_sums(d, cluster)
    return bool(np.all((s == 0.0) | (s == 1.0) | (s == -1.0)))


def cluster_sparse_test(d: ArrayLike, cluster: ArrayLike) -> SparseTest:
    """Exact conditional test on the groups' changes: ``broke`` / ``fixed`` count the groups whose sum is
    -1 / +1, ``n_cases`` the groups; ``p_regression`` = P(X >= broke), X ~ Bin(broke + fixed, 1/2), equal to
    the exact cluster sign-flip p. ValueError when a group's sum is outside {-1, 0, +1}."""
    return sparse_conditional_test(cluster_sums(d, cluster))
