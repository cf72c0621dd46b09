"""How the PDF's page names a chart: ``<img src="releasegate-chart:NAME">`` (NAME is the chart's anchor, such as
``chart-overall``), fetched when WeasyPrint reaches the image (render/chart_fetcher.py). A module of its own so
that the page (render/html.py) and the typesetting worker (render/typeset_worker.py) share it without either
importing the other's libraries."""

CHART_URL = "releasegate-chart:"
