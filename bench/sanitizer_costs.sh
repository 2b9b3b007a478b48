#!/usr/bin/env bash
# What compute-sanitizer costs each grader on a GPU: every chapter's and exercise's solution
# grader run with only its compute-sanitizer cases ([sanitizer] and chapters 03's and 04's
# [races]), each of which runs the grader's small case again under memcheck, racecheck and
# synccheck; each tool's time comes back in $WB_SANITIZER_TIMES_FILE ("<tool>\t<seconds>\t<outcome>",
# grader/include/wb/sanitizer.hpp) and the verdict in $WB_VERDICT_FILE. Prints a table of
# tool x grader seconds, with the solution's verdict (it must be correct: a finding on a solution
# is a bug of the solution or of the small case).
#   cmake --build --preset gpu && bash bench/sanitizer_costs.sh [build dir, default build/gpu]
# The graders' logs go to $OUT (or <build dir>/sanitizer-costs).
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/gpu}
out=${OUT:-$dir/sanitizer-costs}
mkdir -p "$out"
shopt -s nullglob
exes=("$dir"/[0-9][0-9]-*.cuda.solution "$dir"/x[0-9][0-9]-*.cuda.solution)
((${#exes[@]})) || { echo "no graders in $dir (build the gpu preset first)" >&2; exit 1; }
command -v compute-sanitizer >/dev/null || echo "compute-sanitizer is not on PATH: every tool will say not run" >&2
for exe in "${exes[@]}"; do
  name=$(basename "$exe" .cuda.solution)
  rm -f "$out/$name.json" "$out/$name.times"
  start=$(date +%s.%N)
  WB_VERDICT_FILE="$out/$name.json" WB_SANITIZER_TIMES_FILE="$out/$name.times" "$exe" '[sanitizer],[races]' \
    >"$out/$name.log" 2>&1
  end=$(date +%s.%N)
  echo "$name $start $end" >"$out/$name.wall"
  echo "$name: done" >&2
done
python3 - "$out" "${exes[@]}" <<'EOF'
import json, os, sys
out, exes = sys.argv[1], sys.argv[2:]
tools = ["memcheck", "racecheck", "synccheck"]
print("| grader | " + " | ".join(tools) + " | all three | whole run | solution's verdict |")
print("|---|" + "---|" * (len(tools) + 3))
totals = {t: 0.0 for t in tools}
for exe in exes:
    name = os.path.basename(exe).removesuffix(".cuda.solution")
    seconds = {}
    try:
        for line in open(os.path.join(out, name + ".times")):
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                seconds[parts[0]] = (float(parts[1]), parts[2])
    except OSError:
        pass
    try:
        v = json.load(open(os.path.join(out, name + ".json")))
        verdict = v["kind"] + (": " + v["detail"] if v.get("detail") else "")
        if v.get("not_checked"):
            verdict += " (not checked: " + "; ".join(v["not_checked"]) + ")"
    except (OSError, ValueError, KeyError):
        verdict = "no verdict"
    try:
        _, start, end = open(os.path.join(out, name + ".wall")).read().split()
        wall = f"{float(end) - float(start):.1f} s"
    except (OSError, ValueError):
        wall = "-"
    cells = []
    for t in tools:
        if t in seconds:
            s, outcome = seconds[t]
            totals[t] += s
            cells.append(f"{s:.1f} s" + ("" if outcome == "found nothing" else f" ({outcome})"))
        else:
            cells.append("-")
    together = sum(s for s, _ in seconds.values())
    print(f"| {name} | " + " | ".join(cells) + f" | {together:.1f} s | {wall} | {verdict} |")
print("| all graders | " + " | ".join(f"{totals[t]:.1f} s" for t in tools) +
      f" | {sum(totals.values()):.1f} s | | |")
EOF
