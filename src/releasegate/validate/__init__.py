"""Stage 2: the loaded table checked against SPEC section 3.2, and what the analysis will compare.

- :mod:`.results`: one tidy table -> :class:`ValidatedResults` (the checks, the releases judged, the plan's choices);
- :mod:`.outcomes`: the outcome column as numbers (pass/fail words, scores, a threshold);
- :mod:`.checks`: the key and group checks (blank and duplicate keys, categories and clusters);
- :mod:`.beside`: the outcome, category and cost columns parsed in a second thread beside the key checks;
- :mod:`.keycodes`: identity columns as integer codes, so the checks count codes instead of hashing text;
- :mod:`.scan`: whole-column questions asked a slice of rows at a time, with no mask of every row;
- :mod:`.metric_tables`: one validated table per metric gated, and the ``[metrics.NAME]`` tables checked;
- :mod:`.gold`: the gold labels of ``--gold`` checked against the validated results.

Every problem is an InputError with one line that names it and shows a few examples; nothing is written when
validation fails.
"""

from __future__ import annotations

from releasegate.validate.checks import MAX_CATEGORIES, check_critical
from releasegate.validate.outcomes import outcome_column, parse_passed, parse_score
from releasegate.validate.results import ValidatedResults, per_release_columns, validate

__all__ = ["MAX_CATEGORIES", "ValidatedResults", "check_critical", "outcome_column", "parse_passed", "parse_score",
           "per_release_columns", "validate"]
