#!/usr/bin/env bash
# System libraries releasegate needs on Debian/Ubuntu: WeasyPrint's Pango/HarfBuzz (PDF; libharfbuzz-subset0
# makes PDF bytes reproducible), a font, and for the tests poppler-utils (pdftotext) and Chromium (HTML check).
# Skipped quietly where apt-get is missing or we are not root: install the same packages your own way then.
set -euo pipefail
packages=(libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core)
if [ "${1:-}" = "--test" ]; then
  packages+=(poppler-utils chromium)
fi
if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
  echo "install-system-deps: not root or no apt-get; make sure these are installed: ${packages[*]}" >&2
  exit 0
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
