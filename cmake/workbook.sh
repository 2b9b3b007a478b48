#!/usr/bin/env bash
# The workbook's two commands (see README.md):
#   bash cmake/workbook.sh grade [NN ...]   grade your kernels: every chapter, or the ones named (01, 02-grid-stride...)
#   bash cmake/workbook.sh test             the workbook's own test suite (solutions pass, stubs fail, mutants caught)
#   bash cmake/workbook.sh docs             render the lessons and the grader's API (build/cpu/docs/html/index.html)
# Backend: a CUDA GPU when nvidia-smi sees one and nvcc is installed, else the CPU backend.
# WB_BACKEND=cpu|cuda chooses; WB_JOBS sets build parallelism.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

have_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU 0'; }
have_nvcc() { command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; }
[[ -x /usr/local/cuda/bin/nvcc ]] && export PATH="$PATH:/usr/local/cuda/bin"

backend=${WB_BACKEND:-}
if [[ -z $backend ]]; then
  if have_gpu && have_nvcc; then backend=cuda; else backend=cpu; fi
fi
case $backend in cpu|cuda) ;; *) echo "WB_BACKEND must be cpu or cuda" >&2; exit 2 ;; esac
jobs=${WB_JOBS:-$(nproc 2>/dev/null || echo 2)}

configure() {  # preset
  bash cmake/setup.sh
  cmake --preset "$1" >"build/$1-configure.log" 2>&1 || { cat "build/$1-configure.log" >&2; exit 1; }
}

# The first compiler error in the learner's own file, else the first error at all.
first_error() {  # log chapter
  local line
  line=$(grep -m1 -E "chapters/$2/[^:]+:[0-9]+(:[0-9]+)?: (fatal )?error" "$1" || true)
  [[ -n $line ]] || line=$(grep -m1 -E "error" "$1" || true)
  echo "${line#"$root/"}"
}

grade() {
  local preset=$backend
  [[ $backend == cuda ]] && preset=gpu
  mkdir -p build
  configure "$preset"
  local dir="build/$preset" chapters=() all=() c
  while IFS= read -r c; do [[ -n $c ]] && all+=("$c"); done <"build/$preset/chapters.txt"
  if (($#)); then
    for want in "$@"; do
      local found=""
      for c in "${all[@]}"; do [[ $c == "$want"* ]] && found=$c; done
      [[ -n $found ]] || { echo "no chapter matches '$want' (chapters: ${all[*]})" >&2; exit 2; }
      chapters+=("$found")
    done
  else
    chapters=("${all[@]}")
  fi
  mkdir -p "$dir/grades"
  local rows=()
  for c in "${chapters[@]}"; do
    local log="$dir/grades/$c.log" status="$dir/grades/$c.status" verdict detail speed
    rm -f "$status"
    echo "== $c: building"
    if ! cmake --build "$dir" --target "grade-$c-$backend" -j "$jobs" >"$log" 2>&1; then
      verdict="does not compile"; detail=$(first_error "$log" "$c"); speed=""
      echo "   does not compile: $detail"
      echo "   (whole compiler output: $log)"
    else
      echo "== $c: grading"
      if (($# > 0)); then
        WB_STATUS_FILE="$root/$status" "$dir/grade-$c-$backend" | tee -a "$log" || true
      else
        WB_STATUS_FILE="$root/$status" "$dir/grade-$c-$backend" >>"$log" 2>&1 || true
        sed -n '/^==== /,$p' "$log" | grep -E '^(==== |  verdict|  speed)' || true
      fi
      if [[ -f $status ]]; then
        IFS=$'\t' read -r verdict detail speed <"$status"
      else
        verdict="crashed"; detail="the grader ended without a verdict: see $log"; speed=""
      fi
    fi
    rows+=("$c"$'\t'"$verdict"$'\t'"$detail"$'\t'"$speed")
  done
  echo
  echo "Summary ($([[ $backend == cpu ]] && echo "CPU backend: correctness only" || echo "CUDA GPU"); full logs in $dir/grades/)"
  printf '  %-18s %-17s %s\n' "chapter" "verdict" "why / speed"
  local r
  for r in "${rows[@]}"; do
    IFS=$'\t' read -r c verdict detail speed <<<"$r"
    local why=$detail
    [[ -n $speed ]] && why="${why:+$why; }$speed"
    printf '  %-18s %-17s %s\n' "$c" "$verdict" "$why"
  done
}

run_tests() {
  local preset=cpu
  if have_nvcc; then preset=all; fi
  mkdir -p build
  configure "$preset"
  cmake --build "build/$preset" -j "$jobs"
  ctest --test-dir "build/$preset" --output-on-failure -j "$jobs" "$@"
}

docs() {
  mkdir -p build
  configure cpu
  cmake --build build/cpu --target docs
}

cmd=${1:-}
shift || true
case $cmd in
  grade) grade "$@" ;;
  test) run_tests "$@" ;;
  docs) docs ;;
  *) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
