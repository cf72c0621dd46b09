"""How the PDF's page names a chart: ``<img src="releasegate-chart:NAME">`` (NAME is the chart's anchor, such as
``chart-overall``), fetched when WeasyPrint reaches the image (render/chart_fetcher.py). A module of its own so
that the page (render/html.py) and the fetcher share it without html.py importing WeasyPrint."""

CHART_URL = "releasegate-chart:"
