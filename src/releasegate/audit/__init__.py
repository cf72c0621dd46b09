"""Notes read back as evidence: `releasegate verify` (does an archived note follow from its inputs?),
`releasegate history` (how releases moved over the notes of a quarter) and `report --archive DIR`.

``notes.py`` reads a note (a JSON note, or the JSON a PDF/A-3b note carries), ``tree_diff.py`` compares two notes'
JSON generically, ``verify.py`` reruns a note and lists what differs, ``archive.py`` writes a note into a dated
folder, ``history.py`` gathers archived notes into rows and ``history_charts.py`` and ``history_render.py`` draw
and write them. docs/audit.md describes the commands.
"""
