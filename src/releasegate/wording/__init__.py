"""Every sentence of the release note, in one place: the verdict's (:mod:`.verdict`), the optional sections'
(:mod:`.sections`) and the method notes (:mod:`.method`). decide and the render context call these functions;
the analysis and the templates write no English of their own.
"""
