"""Optional sections of the paired-mean and clustered analysis, each an extra of ``CandidateAnalysis``:
``item_axis`` (would other cases agree?), ``run_axis`` (would a rerun agree?) and ``clusters`` (grouped cases),
plus the vectorised listing of changed cases they share."""
