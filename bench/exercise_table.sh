#!/usr/bin/env bash
# The exercises' table of solution vs library (exercises/README.md, between the exercise-table
# markers), from one run on a GPU: every exercise's solution grader (correctness, then timing
# against the library) run in turn; each writes its row of the table (wb::format_table_row,
# grader/include/wb/speed.hpp) to $WB_TABLE_ROW_FILE and its verdict to $WB_VERDICT_FILE, and the
# rows replace the table on the page. The same rows go to docs/data/exercises-gpu.csv, and the
# chart beside the table (docs/images/exercises-gpu.svg) is drawn from it by bench/charts.py
# where a python with matplotlib is found ($WB_CHART_PYTHON, .venv, python3).
#   cmake --build --preset gpu && bash bench/exercise_table.sh [build dir, default build/gpu]
# The graders' logs go to $OUT (or <build dir>/exercise-table). A grader that prints no row
# (skipped, wrong, or no timing case) gets a row that says so; the page is rewritten anyway.
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/gpu}
out=${OUT:-$dir/exercise-table}
mkdir -p "$out"
shopt -s nullglob
exes=("$dir"/x[0-9][0-9]-*.cuda.solution)
((${#exes[@]})) || { echo "no exercise graders in $dir (build the gpu preset first)" >&2; exit 1; }
rows="$out/rows.txt"
: >"$rows"
device=""
for exe in "${exes[@]}"; do
  name=$(basename "$exe" .cuda.solution)
  # The grader's verdict and its table row, each a file of its own: its printed log is only kept.
  rm -f "$out/$name.json" "$out/$name.row"
  # Every case but compute-sanitizer's (bench/sanitizer_costs.sh times those): the checks, then the timing.
  WB_VERDICT_FILE="$out/$name.json" WB_TABLE_ROW_FILE="$out/$name.row" "$exe" '~[sanitizer]' >"$out/$name.log" 2>&1
  { read -r verdict_device; read -r verdict; } < <(python3 - "$out/$name.json" <<'PY'
import json, sys
try:
    v = json.load(open(sys.argv[1]))
    print(v.get("device", ""))
    print(v["kind"] + (": " + v["detail"] if v.get("detail") else ""))
except (OSError, ValueError, KeyError):
    print("")
    print("no verdict")
PY
)
  [[ -n $device ]] || device=$verdict_device
  if [[ -s $out/$name.row ]]; then
    cat "$out/$name.row" >>"$rows"
  else
    echo "$name | - | - | - | no timing row: ${verdict:-no verdict} | - | - | -" >>"$rows"
  fi
  echo "$name: ${verdict:-no verdict}"
done
cuda=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
python3 - "$rows" "${device:-unknown device}" "${cuda:-?}" <<'EOF'
import datetime, re, sys
rows, device, cuda = open(sys.argv[1]).read().splitlines(), sys.argv[2], sys.argv[3]
table = [f"Measured on {device} (CUDA {cuda}), {datetime.date.today().isoformat()}, by "
         "`bash bench/exercise_table.sh`: each row from the exercise's own grader, the solution and the "
         "library timed interleaved (median, L2 flushed before every sample). The last column is the library's "
         "time over the solution's: above 1, the solution is faster.",
         "",
         "| exercise | size | solution | solution's rate | library | library time | library's rate | library / solution |",
         "|---|---|---|---|---|---|---|---|"]
table += ["| " + r + " |" for r in rows]
page = "exercises/README.md"
text = open(page).read()
new = re.sub(r"(<!-- exercise-table:begin -->\n).*?(\n<!-- exercise-table:end -->)",
             lambda m: m.group(1) + "\n".join(table) + m.group(2), text, flags=re.S)
if new == text and "\n".join(table) not in text:
    sys.exit(f"{page}: the exercise-table markers were not found")
open(page, "w").write(new)
print(f"{page}: {len(rows)} rows")
# The same rows as data, for the chart (bench/charts.py).
import csv, os
os.makedirs("docs/data", exist_ok=True)
with open("docs/data/exercises-gpu.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["exercise", "size", "solution_time", "solution_rate", "library", "library_time", "library_rate",
                "ratio", "device", "cuda", "date"])
    for r in rows:
        w.writerow([c.strip() for c in r.split(" | ")] + [device, cuda, datetime.date.today().isoformat()])
print("docs/data/exercises-gpu.csv")
EOF
chart_py=""
for p in "${WB_CHART_PYTHON:-}" .venv/bin/python3 python3; do
  if [[ -n $p ]] && "$p" -c 'import matplotlib' 2>/dev/null; then chart_py=$p; break; fi
done
if [[ -n $chart_py ]]; then
  "$chart_py" bench/charts.py exercises docs/data/exercises-gpu.csv docs/images/exercises-gpu.svg
else
  echo "no python with matplotlib here: draw the chart where there is one:"
  echo "  python3 bench/charts.py exercises docs/data/exercises-gpu.csv docs/images/exercises-gpu.svg"
fi
