#!/usr/bin/env bash
# What a learner waits for: `grade NN` of each chapter with a correct kernel in the learner's
# file (the solution, renamed into the learner's namespace), timed twice: right after the file
# changed (the command rebuilds the learner's file and grader, then grades) and again with
# nothing changed. The learner's files are put back afterwards, also on Ctrl-C.
#   bash bench/grade_times.sh [NN ...]      (default: every chapter; WB_BACKEND=cpu|cuda as for grade)
# Each grade's output goes to $OUT (or build/grade-times); one line per run is printed:
#   <chapter> <after an edit|no change>: <wall seconds> s  <verdict>  <speed>
# and under it, from the grade's full log, the build's share (ninja's elapsed time at its last
# step) and pytest's own time where the chapter's check from Python ran.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/grade-times}
mkdir -p "$out"
ids=("$@")
((${#ids[@]})) || ids=(01 02 03 04 05)

backups=()
restore() {
  local b
  for b in "${backups[@]}"; do cp "$b" "${b%.grade-times-backup}" && rm -f "$b"; done
  backups=()
}
trap restore EXIT
trap 'exit 130' INT TERM
export NINJA_STATUS="[%f/%t %es] "  # each build step with the seconds since the build began

for id in "${ids[@]}"; do
  folder=$(compgen -G "chapters/${id}-*" | head -1)
  [[ -n $folder ]] || { echo "grade_times: no chapter ${id}" >&2; exit 2; }
  topic=${folder#chapters/}
  for sol in solutions/"$topic"/*.cu; do
    mine="$folder/$(basename "$sol")"
    cp "$mine" "$mine.grade-times-backup" && backups+=("$mine.grade-times-backup")
    sed 's/namespace solution/namespace student/' "$sol" >"$mine"
  done
  for run in "after an edit" "no change"; do
    log="$out/$topic.$([[ $run == no* ]] && echo again || echo edit).log"
    # An edit changes chapter 05's op library, and so runs its check from Python again: a pass
    # remembered from an earlier run of this script (same bytes) must not be reused.
    [[ $run == no* ]] || rm -f build/*/python-check/grade-*.passed
    t0=$(date +%s.%N)
    bash cmake/workbook.sh grade "$id" >"$log" 2>&1
    t1=$(date +%s.%N)
    # The verdict from its document (docs/verdict-schema.md), not from the printed text.
    doc=$(ls -t build/*/grades/"$topic".json 2>/dev/null | head -1)
    python3 - "$topic" "$run" "$t0" "$t1" "$doc" <<'PY'
import json, sys
topic, run, t0, t1, doc = sys.argv[1:]
kind = speed = ""
try:
    v = json.load(open(doc))
    kind = v["kind"] + (": " + v["detail"] if v.get("detail") else "")
    speed = v.get("speed", "")
except (OSError, ValueError, KeyError):
    kind = "no verdict"
print(f"{topic} {run}: {float(t1) - float(t0):.1f} s  {kind}" + (f"  {speed}" if speed else ""))
PY
    full=$(ls -t build/*/grades/"$topic".log 2>/dev/null | head -1)  # the grade's whole log, beside its verdict
    if [[ -n $full && -f $full ]]; then
      build=$(sed -n 's/^\[[0-9]*\/[0-9]* \([0-9.]*\)s\] .*/\1/p' "$full" | tail -1)
      python=$(sed -n 's/^[0-9]* passed.* in \([0-9.]*\)s.*/\1/p' "$full" | tail -1)
      echo "  build ${build:-0} s${python:+, pytest $python s}"
    fi
  done
  restore
done
