#!/usr/bin/env bash
# For the docs' maintainers: renders the docs and takes a screenshot of each key page with the
# distribution's headless Chromium, to look at them as a learner would before a change lands
# (docs.rendered catches what a program can; this is for the eye).
#   bash docs/screenshots.sh [page-name ...]     e.g. md_docs_grading (default: the key pages)
# Needs chromium (Debian: apt-get install chromium). Writes build/docs-screenshots/<page>.png,
# 1280 pixels wide and tall enough for most pages (WB_SHOT_HEIGHT, default 4000).
set -euo pipefail
cd "$(dirname "$0")/.."
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[[ -n $browser ]] || { echo "screenshots: no chromium on PATH (Debian: apt-get install chromium)" >&2; exit 2; }
bash cmake/workbook.sh docs >/dev/null
html=build/cpu/docs/html
out=build/docs-screenshots
mkdir -p "$out"
pages=("$@")
if ((${#pages[@]} == 0)); then
  pages=(index md_exercises_README md_docs_grading md_docs_cpu_backend md_docs_command_line)
  for p in "$html"/md_chapters_*_README.html "$html"/md_exercises_[0-9]*_README.html; do
    pages+=("$(basename "$p" .html)")
  done
fi
for p in "${pages[@]}"; do
  [[ -f $html/$p.html ]] || { echo "screenshots: no page $html/$p.html" >&2; continue; }
  "$browser" --headless --no-sandbox --virtual-time-budget=3000 --disable-gpu --hide-scrollbars --window-size=1280,"${WB_SHOT_HEIGHT:-4000}" \
    --screenshot="$PWD/$out/$p.png" "file://$PWD/$html/$p.html" >/dev/null 2>&1 ||
    echo "screenshots: chromium failed on $p" >&2
  [[ -f $out/$p.png ]] && echo "$out/$p.png"
done
