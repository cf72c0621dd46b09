"""The release-pair simulator now lives in the package (``releasegate.plan.simulate``), shared by
``releasegate plan`` and this study; this module keeps the study's imports working."""

from releasegate.plan.simulate import (  # noqa: F401
    BASE_OF_CELL,
    BATCH,
    CAND_OF_CELL,
    CLUSTER_SD,
    FLAKE,
    Design,
    Sample,
    Scenario,
    cell_probabilities,
    draw,
)
