"""Reading rendered reports as a reader would: the text of an HTML page or a PDF, its external references, and
inputs with hostile text. Shared by the render tests."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

HOSTILE_CATEGORY = '<script>alert("cat")</script> & Co'
HOSTILE_INPUT = '<img src=x onerror=alert(1)></td></table><b>bold?</b>'
RESOURCE_ATTRIBUTES = {"src", "href", "xlink:href", "srcset", "data", "action", "poster", "background", "formaction"}


def hostile_inputs(directory: Path) -> tuple[Path, Path]:
    """Two releases on 120 cases: the candidate fixes a few and breaks one; category names and case text carry
    markup, so every place that prints data shows it as text."""
    results, cases = directory / "results.csv", directory / "cases.csv"
    categories = [HOSTILE_CATEGORY, "Plain", "A|B `code` *star*"]
    with results.open("w", newline="") as r, cases.open("w", newline="") as c:
        rw, cw = csv.writer(r), csv.writer(c)
        rw.writerow(["case_id", "release", "passed"])
        cw.writerow(["case_id", "category", "input"])
        for i in range(120):
            case = f"C{i:03d}"
            base = 0 if i % 10 == 0 else 1
            cand = 1 if i in (0, 10, 20, 30, 40) else base
            if i == 7:
                cand = 0
            rw.writerow([case, "base", base])
            rw.writerow([case, "cand", cand])
            cw.writerow([case, categories[i % 3], HOSTILE_INPUT if i in (7, 10) else f"question {i}"])
    return results, cases


class Collector(HTMLParser):
    """Every start tag with its attributes, the text of <style> and <script> blocks, and the visible text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.styles: list[str] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("style", "script") else None

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "style":
            self.styles.append(data)
        elif self._in == "script":
            self.scripts.append(data)
        else:
            self.text.append(data)


def parse(html: str) -> Collector:
    parser = Collector()
    parser.feed(html)
    return parser


def external_references(html: str) -> list[str]:
    """Anything that would make a browser or WeasyPrint fetch: resource attributes other than in-page anchors and
    data: URLs, <link>, @import and url() other than url(#id) / url(data:...)."""
    parsed = parse(html)
    found = []
    for tag, attrs in parsed.tags:
        if tag == "link":
            found.append(f"<link {attrs}>")
        for name, value in attrs.items():
            if name in RESOURCE_ATTRIBUTES and value is not None and not value.startswith(("#", "data:")):
                found.append(f"<{tag} {name}={value!r}>")
            if name == "style" and value and re.search(r"url\(\s*['\"]?(?!#|data:)", value):
                found.append(f"<{tag} style={value!r}>")
    for css in parsed.styles:
        if "@import" in css:
            found.append("@import")
        found += [m.group(0) for m in re.finditer(r"url\(\s*['\"]?(?!#|data:)[^)]*\)", css)]
    found += re.findall(r"(?:src|href)\s*=\s*[\"']?\s*(?:https?:)?//[^\s\"'>]*", html, flags=re.IGNORECASE)
    return found


def pdf_text(pdf: bytes, first: int | None = None, last: int | None = None) -> str:
    """The PDF's text: pdftotext when installed (keeps reading order), else pypdf."""
    if shutil.which("pdftotext"):
        args = ["pdftotext", "-q", "-enc", "UTF-8"]
        if first:
            args += ["-f", str(first)]
        if last:
            args += ["-l", str(last)]
        out = subprocess.run([*args, "-", "-"], input=pdf, capture_output=True, check=True)
        return out.stdout.decode("utf-8")
    from pypdf import PdfReader

    pages = PdfReader(io.BytesIO(pdf)).pages
    chosen = pages[(first or 1) - 1:(last or len(pages))]
    return "\n".join(page.extract_text() for page in chosen)


def words(text: str) -> str:
    return " ".join(text.replace("\u00ad", "").split())


def without_explorer(html: str) -> str:
    """The page without its case explorer section (templates/partials/explorer.html): what a reader without
    scripts reads, which must need none."""
    start = html.find('<section id="explorer"')
    if start < 0:
        return html
    return html[:start] + html[html.index("</section>", html.index("</script>\n</section>", start)) + 10:]


# ---------------------------------------------------------------------------------------------------- HTML
