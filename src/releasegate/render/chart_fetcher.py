"""WeasyPrint's URL fetcher for the PDF: ``data:`` URLs, and the report's charts by name, fetched when drawn.

The PDF's page names each chart (render/chart_url.py) instead of carrying its SVG, so that the page can be
written, parsed and styled while the chart worker still draws: WeasyPrint asks for an image only when it
builds the boxes, after the parse and the cascade (about a third of the typesetting), and this fetcher waits
for the SVGs there. Imported only where a PDF is typeset (it imports WeasyPrint).

Fail closed: nothing else is fetched (no network, no files: such an image is left out, as WeasyPrint's own
fetcher with ``allowed_protocols={"data"}`` does), and a chart that cannot be had (an unknown name, a drawing
error) stops the PDF instead of leaving a blank figure: its error is raised inside WeasyPrint's
``FatalURLFetchingError``, which WeasyPrint does not catch, and :func:`unwrap` gives back the error itself.
"""

from __future__ import annotations

from collections.abc import Callable

from weasyprint.urls import FatalURLFetchingError, URLFetcher, URLFetcherResponse

from releasegate.render.chart_url import CHART_URL


class ChartFetcher(URLFetcher):
    """``data:`` URLs as WeasyPrint's own fetcher reads them; chart names from ``svgs()`` ({name: SVG text}),
    called once, when the first chart is reached."""

    def __init__(self, svgs: Callable[[], dict[str, str]]) -> None:
        super().__init__(allowed_protocols={"data"})
        self._get_svgs = svgs
        self._svgs: dict[str, str] | None = None

    def fetch(self, url, headers=None):
        if not url.startswith(CHART_URL):
            return super().fetch(url, headers)
        name = url[len(CHART_URL):]
        try:
            if self._svgs is None:
                self._svgs = self._get_svgs()
            if name not in self._svgs:
                raise ValueError(f"the page names a chart that was not drawn: {name!r}")
        except Exception as exc:
            raise FatalURLFetchingError(f"chart {name!r}") from exc
        return URLFetcherResponse(url, self._svgs[name].encode("utf-8"), {"Content-Type": "image/svg+xml"})


def unwrap(error: FatalURLFetchingError) -> BaseException:
    """The exception a fetch raised (a drawing error, an unknown chart), from WeasyPrint's wrapper around it."""
    return error.__cause__ if error.__cause__ is not None else error
