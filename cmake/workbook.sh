#!/usr/bin/env bash
# The workbook's command line (docs/command-line.md shows each command at work).
#
# usage: bash cmake/workbook.sh <command> [arguments]
#
# For the learner:
#   grade [NN ...] [--verbose]  build and grade your kernels: every chapter and exercise, or the ones
#                               named; --verbose prints the grader's whole log, not only its verdict
#   status [NN ...]             the last grade of every chapter and exercise (nothing is rebuilt)
#   hint NN [N | --reset]       the next hint for chapter or exercise NN, one at a time (N: that one)
#   reset NN [--yes]            put NN's stub back, after asking; your file is kept as a backup
# For the workbook's maintainers:
#   test [ctest options]        the workbook's own test suite (solutions pass, stubs fail, mutants caught)
#   docs                        render the lessons and the grader's API (build/cpu/docs/html/index.html)
#
# NN names a chapter or an exercise: 1, 01, ch01, 01-naive-add or any unique part of the name
# (naive, grid); x3, x03 or x03-... an exercise (hist).
# Backend: a CUDA GPU when nvidia-smi sees one and nvcc is installed, else the CPU backend.
# WB_BACKEND=cpu|cuda chooses; WB_JOBS sets build parallelism; WB_BUILD_DIR the build folder.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
me="bash cmake/workbook.sh"

have_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU 0'; }
have_nvcc() { command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; }

# The backend, its CMake preset and build folder: sets backend, preset, dir (absolute).
wb_init() {
  [[ -x /usr/local/cuda/bin/nvcc ]] && export PATH="$PATH:/usr/local/cuda/bin"
  backend=${WB_BACKEND:-}
  if [[ -z $backend ]]; then
    if have_gpu && have_nvcc; then backend=cuda; else backend=cpu; fi
  fi
  case $backend in
    cpu) preset=cpu ;;
    cuda) preset=gpu ;;
    *) echo "WB_BACKEND must be cpu or cuda" >&2; exit 2 ;;
  esac
  dir=${WB_BUILD_DIR:-$root/build/$preset}
  [[ $dir == /* ]] || dir="$PWD/$dir"
  state_dir=${WB_STATE_DIR:-$root/build}  # hints shown, backups: the same for every backend
  jobs=${WB_JOBS:-$(nproc 2>/dev/null || echo 2)}
}

usage() {
  sed -n '/^# usage:/,/^set -euo/p' "$root/cmake/workbook.sh" | sed '$d' | sed 's/^# \{0,1\}//'
}

configure() {  # preset what [build folder]: what cmake/setup.sh checks for (grade, test or docs)
  local d=${3:-$root/build/$1}
  mkdir -p "$d"
  bash "$root/cmake/setup.sh" "$2"
  (cd "$root" && cmake --preset "$1" -B "$d") >"$d/configure.log" 2>&1 || { cat "$d/configure.log" >&2; exit 1; }
}

# ---- chapters and exercises -------------------------------------------------------------------

# Every chapter and exercise id, in the grade command's order: the build's list when it has one,
# else the folders (chapters/NN-topic -> NN-topic, exercises/NN-name -> xNN-name).
graded_ids() {
  if [[ -n ${dir:-} && -f $dir/chapters.txt ]]; then
    grep -v '^$' "$dir/chapters.txt"
    return
  fi
  local d
  for d in "$root"/chapters/[0-9]*/; do [[ -d $d ]] && basename "$d"; done
  for d in "$root"/exercises/[0-9]*/; do [[ -d $d ]] && echo "x$(basename "$d")"; done
}

src_dir() {  # id -> its folder, relative to the root
  case $1 in
    x*) echo "exercises/${1#x}" ;;
    *) echo "chapters/$1" ;;
  esac
}

# The learner's kernel file (relative to the root): the folder's one .cu file.
kernel_file() {
  local f
  for f in "$root/$(src_dir "$1")"/*.cu; do
    [[ -f $f ]] && { echo "${f#"$root/"}"; return; }
  done
  echo "$(src_dir "$1")/?.cu"
}

# resolve NAME: the one chapter or exercise NAME names, on stdout; exit 2 with the candidates when
# it names none or several. A number is a chapter's (1, 01, ch1, ch01), xN an exercise's (x3, x03);
# otherwise a whole id (01-naive-add) or any part of one (naive, hist).
resolve() {
  local want=$1 ids=() matches=() id num="" kind=""
  while IFS= read -r id; do ids+=("$id"); done < <(graded_ids)
  local lower=${want,,}
  if [[ $lower =~ ^(ch)?0*([0-9]+)$ ]]; then
    num=${BASH_REMATCH[2]} kind=chapter
  elif [[ $lower =~ ^x0*([0-9]+)$ ]]; then
    num=${BASH_REMATCH[1]} kind=exercise
  fi
  for id in "${ids[@]}"; do
    if [[ -n $num ]]; then
      local n=${id#x}
      n=${n%%-*}
      [[ $n =~ ^[0-9]+$ ]] || continue
      ((10#$n == num)) || continue
      [[ $kind == chapter && $id == x* ]] && continue
      [[ $kind == exercise && $id != x* ]] && continue
      matches+=("$id")
    elif [[ ${id,,} == "$lower" ]]; then
      matches=("$id")
      break
    elif [[ ${id,,} == *"$lower"* ]]; then
      matches+=("$id")
    fi
  done
  # A bare number no chapter has may still be an exercise's (7 -> x07-warp-reduce).
  if ((${#matches[@]} == 0)) && [[ $kind == chapter && ! $lower =~ ^ch ]]; then
    for id in "${ids[@]}"; do
      local n=${id#x}
      n=${n%%-*}
      [[ $id == x* && $n =~ ^[0-9]+$ ]] && ((10#$n == num)) && matches+=("$id")
    done
  fi
  if ((${#matches[@]} == 1)); then
    echo "${matches[0]}"
    return 0
  fi
  if ((${#matches[@]} == 0)); then
    echo "no chapter or exercise matches '$want'; they are:" >&2
    printf '  %s\n' "${ids[@]}" >&2
  else
    echo "'$want' matches more than one; name one of:" >&2
    printf '  %s\n' "${matches[@]}" >&2
  fi
  return 2
}

# resolve_all NAME...: sets `targets` to the ids named (every one when none is), or exits 2.
resolve_all() {
  targets=()
  if (($# == 0)); then
    local id
    while IFS= read -r id; do targets+=("$id"); done < <(graded_ids)
    return
  fi
  local want id
  for want in "$@"; do
    id=$(resolve "$want") || exit 2
    targets+=("$id")
  done
}

# ---- grade ------------------------------------------------------------------------------------

# The first compiler error in the learner's own file, else the first error at all.
first_error() {  # log file-folder
  local line
  line=$(grep -m1 -E "$2/[^:]+:[0-9]+(:[0-9]+)?: (fatal )?error" "$1" || true)
  [[ -n $line ]] || line=$(grep -m1 -E "error" "$1" || true)
  echo "${line#"$root/"}"
}

signal_name() {  # exit status > 128 -> SIGSEGV
  local s
  s=$(kill -l "$(($1 - 128))" 2>/dev/null) || s="signal $(($1 - 128))"
  [[ $s == SIG* || $s == signal* ]] || s="SIG$s"
  echo "$s"
}

# One line of at most 180 characters, cut at a space.
shorten() {
  local s=$1
  ((${#s} <= 180)) && { echo "$s"; return; }
  s=${s:0:177}
  echo "${s% *}..."
}

# Where a grader was when it died: the progress file it keeps (test case and section), else the
# last test case whose header Catch2 printed in the log.
last_place() {  # progress-file log
  local test="" section=""
  if [[ -s $1 ]]; then
    IFS=$'\t' read -r test section <"$1" || true
  fi
  if [[ -z $test && -f $2 ]]; then
    # Catch2 prints a failing test case between two lines of dashes.
    test=$(awk '/^--------------------+$/ { if (p1 != "" && p2 ~ /^--------------------+$/) last = p1 }
                { p2 = p1; p1 = $0 } END { print last }' "$2")
  fi
  [[ -n $test ]] || return 0
  # The values the case had captured (CAPTURE), printed by Catch2 above the signal's name.
  local captured=""
  [[ -f $2 ]] && captured=$(awk '/due to a fatal error condition:/ { c = ""; on = 1; next }
    on && /^  SIG/ { on = 0; next } on && / := / { sub(/^ +/, ""); c = c (c == "" ? "" : ", ") $0 } END { print c }' "$2")
  echo "in \"$test\"${section:+, section \"$section\"}${captured:+ ($captured)}"
}

# run_grader ID STATUS PROGRESS: the learner's grader, its output on stdout, its exit status returned.
# A grader that dies of a signal leaves no core file and no "Segmentation fault" from this shell.
run_grader() {
  local rc=0
  { (ulimit -c 0; WB_STATUS_FILE="$2" WB_PROGRESS_FILE="$3" exec "$dir/grade-$1-$backend" 2>&1) || rc=$?; } 2>/dev/null
  return "$rc"
}

# grade_one ID VERBOSE: builds and runs one grader, prints its verdict block, and leaves its
# status (verdict<TAB>detail<TAB>speed) in $dir/grades/ID.status and its log beside it.
grade_one() {
  local c=$1 verbose=$2 g="$dir/grades"
  local log="$g/$c.log" status="$g/$c.status" progress="$g/$c.progress" rc=0
  local verdict detail speed folder
  folder=$(src_dir "$c")
  mkdir -p "$g"
  rm -f "$status" "$progress"
  echo "== $c: building"
  if ! cmake --build "$dir" --target "grade-$c-$backend" -j "$jobs" >"$log" 2>&1; then
    detail=$(first_error "$log" "$folder")
    printf 'does not compile\t%s\t\n' "$detail" >"$status"
    echo "   does not compile: $detail"
    echo "   (whole compiler output: ${log#"$root/"})"
    return
  fi
  echo "== $c: grading"
  if ((verbose)); then
    run_grader "$c" "$status" "$progress" | tee -a "$log" || rc=${PIPESTATUS[0]}
  else
    run_grader "$c" "$status" "$progress" >>"$log" || rc=$?
    # The verdict block the grader ends with.
    sed -n '/^==== /,$p' "$log" | grep -E '^(==== |  (verdict|not checked|speed):)' || true
  fi
  if ((rc > 128)); then
    local sig where
    sig=$(signal_name "$rc")
    where=$(last_place "$progress" "$log")
    detail="$sig${where:+ $where}"
    if [[ -f $status ]]; then  # Catch2 caught the signal: the grader wrote a verdict, then died
      local prior=""
      IFS=$'\t' read -r verdict prior speed <"$status" || true
      [[ -z $prior || $prior == SIG* ]] || detail+="; before it: $verdict: $prior"
    fi
    detail=$(shorten "$detail")
    printf 'crashed\t%s\t\n' "$detail" >"$status"
    echo "  verdict: crashed: $detail"
  elif [[ ! -f $status ]]; then
    detail=$(shorten "the grader ended (exit status $rc) without a verdict$(w=$(last_place "$progress" "$log"); echo "${w:+ $w}")")
    printf 'crashed\t%s\t\n' "$detail" >"$status"
    echo "  verdict: crashed: $detail"
  fi
  echo "   (full log: ${log#"$root/"})"
  rm -f "$progress"
  # The last speed measured, for `status` after a later grade that was not timed.
  if IFS=$'\t' read -r verdict detail speed <"$status" && [[ -n $speed && $speed != "not timed"* ]]; then
    echo "$speed" >"$g/$c.speed"
  fi
}

print_summary() {  # ids...
  local c verdict detail speed why
  echo
  echo "Summary ($([[ $backend == cpu ]] && echo "CPU backend: correctness only" || echo "CUDA GPU"); full logs in ${dir#"$root/"}/grades/)"
  printf '  %-18s %-17s %s\n' "chapter" "verdict" "why / speed"
  for c in "$@"; do
    verdict="?" detail="" speed=""
    [[ -f $dir/grades/$c.status ]] && IFS=$'\t' read -r verdict detail speed <"$dir/grades/$c.status"
    why=$detail
    [[ -n $speed ]] && why="${why:+$why; }$speed"
    printf '  %-18s %-17s %s\n' "$c" "$verdict" "$why"
  done
}

cmd_grade() {
  local verbose=0 names=() a
  for a in "$@"; do
    case $a in
      -v|--verbose) verbose=1 ;;
      -*) echo "grade: unknown option '$a' (only --verbose)" >&2; exit 2 ;;
      *) names+=("$a") ;;
    esac
  done
  resolve_all "${names[@]}"  # before configuring: a typo is answered at once
  local wanted=("${targets[@]}")
  [[ -n ${WB_NO_CONFIGURE:-} ]] || configure "$preset" grade "$dir"
  if ((${#names[@]} == 0)); then resolve_all; wanted=("${targets[@]}"); fi
  local c
  for c in "${wanted[@]}"; do grade_one "$c" "$verbose"; done
  print_summary "${wanted[@]}"
}

# ---- status -----------------------------------------------------------------------------------

age() {  # file -> "5 min ago"
  local s=$(($(date +%s) - $(stat -c %Y "$1")))
  if ((s < 120)); then echo "${s} s ago"
  elif ((s < 7200)); then echo "$((s / 60)) min ago"
  elif ((s < 172800)); then echo "$((s / 3600)) h ago"
  else echo "$((s / 86400)) days ago"; fi
}

cmd_status() {
  resolve_all "$@"
  local c f verdict detail speed why n=0 correct=0 graded=0
  echo "Your progress on the $([[ $backend == cpu ]] && echo "CPU backend" || echo "GPU"), from the last grade of each (grade refreshes it; nothing is rebuilt):"
  printf '  %-18s %-17s %s\n' "chapter" "verdict" "why / last speed"
  for c in "${targets[@]}"; do
    n=$((n + 1))
    f="$dir/grades/$c.status"
    if [[ ! -f $f ]]; then
      printf '  %-18s %-17s %s\n' "$c" "not graded" "run: $me grade ${c%%-*}"
      continue
    fi
    graded=$((graded + 1))
    verdict="" detail="" speed=""
    IFS=$'\t' read -r verdict detail speed <"$f" || true
    [[ $verdict == correct ]] && correct=$((correct + 1))
    why=$detail
    if [[ -z $speed || $speed == "not timed"* ]] && [[ -f $dir/grades/$c.speed ]]; then
      speed="last timed $(age "$dir/grades/$c.speed"): $(cat "$dir/grades/$c.speed")"
    fi
    [[ -n $speed ]] && why="${why:+$why; }$speed"
    local note="graded $(age "$f")"
    local k
    k="$root/$(kernel_file "$c")"
    [[ -f $k && $k -nt $f ]] && note+=", file changed since"
    why="${why:+$why }($note)"
    printf '  %-18s %-17s %s\n' "$c" "$verdict" "$why"
  done
  echo "$correct of $n correct; $((n - graded)) not graded yet."
}

# ---- hint -------------------------------------------------------------------------------------

# The page with a chapter's or exercise's hints, and its hints: <details><summary>Hint N: title
# </summary> ... </details> (docs/command-line.md).
hint_page() { echo "$(src_dir "$1")/README.md"; }
hint_count() { grep -cE '^<details><summary>Hint [0-9]+: ' "$root/$(hint_page "$1")" || true; }
hint_text() {  # id N: "title" on the first line, then the hint's text
  awk -v n="$2" '
    $0 ~ "^<details><summary>Hint " n ": " { sub("^<details><summary>Hint " n ": ", ""); sub("</summary>.*", ""); print; on = 1; next }
    on && /^<\/details>/ { exit }
    on { print }' "$root/$(hint_page "$1")" | awk 'NR == 1 { print; next } NF { blank_run = 0; started = 1 }
    !started { next } { lines[++k] = $0 } END { while (k > 0 && lines[k] ~ /^[ \t]*$/) k--; for (i = 1; i <= k; i++) print lines[i] }'
}

cmd_hint() {
  local id="" which="" a
  for a in "$@"; do
    case $a in
      --reset) which=reset ;;
      [0-9]*) [[ -n $id ]] && which=$a || id=$(resolve "$a") || exit 2 ;;
      *) [[ -z $id ]] && { id=$(resolve "$a") || exit 2; } || { echo "hint: unexpected '$a'" >&2; exit 2; } ;;
    esac
  done
  [[ -n $id ]] || { echo "usage: $me hint NN [N | --reset]  (the next hint of chapter or exercise NN)" >&2; exit 2; }
  local page total state shown k
  page=$(hint_page "$id")
  total=$(hint_count "$id")
  state="$state_dir/hints/$id"
  ((total > 0)) || { echo "$page has no hints."; return 0; }
  if [[ $which == reset ]]; then
    rm -f "$state"
    echo "Hints of $id forgotten: the next $me hint ${id%%-*} shows hint 1 of $total."
    return 0
  fi
  shown=0
  [[ -f $state ]] && shown=$(cat "$state")
  if [[ -n $which ]]; then
    k=$which
    ((k >= 1 && k <= total)) || { echo "$id has hints 1 to $total" >&2; exit 2; }
  else
    k=$((shown + 1))
    if ((k > total)); then
      echo "All $total hints of $id are shown ($me hint ${id%%-*} $total shows the last again)."
      echo "The worked solution is at the end of $page, after the hints; try the grader's messages first."
      return 0
    fi
  fi
  local text
  text=$(hint_text "$id" "$k")
  echo "Hint $k of $total for $id: $(head -n1 <<<"$text")"
  echo
  tail -n +2 <<<"$text" | sed 's/^/  /'
  echo
  ((k > shown)) && { mkdir -p "$state_dir/hints"; echo "$k" >"$state"; shown=$k; }
  local left=$((total - shown))
  if ((left > 0)); then
    echo "$left more hint$( ((left == 1)) || echo s): $me hint ${id%%-*}"
  else
    echo "That was the last hint."
  fi
}

# ---- reset ------------------------------------------------------------------------------------

# The stub as it was before the learner edited it: the repository's pristine copy, else the copy
# the build keeps (made at configure time from the file as last committed).
pristine_stub() {  # id
  local k base c
  k=$(kernel_file "$1")
  base=$(basename "$k")
  for c in "$root/$(src_dir "$1")/.pristine/$base" "$dir/pristine/$1/$base" "$root"/build/*/pristine/"$1/$base"; do
    [[ -f $c ]] && { echo "$c"; return 0; }
  done
  return 1
}

cmd_reset() {
  local id="" yes=0 a
  for a in "$@"; do
    case $a in
      -y|--yes) yes=1 ;;
      -*) echo "reset: unknown option '$a' (only --yes)" >&2; exit 2 ;;
      *) [[ -z $id ]] || { echo "reset: one chapter or exercise at a time" >&2; exit 2; }
         id=$(resolve "$a") || exit 2 ;;
    esac
  done
  [[ -n $id ]] || { echo "usage: $me reset NN [--yes]  (put chapter or exercise NN's stub back)" >&2; exit 2; }
  local k stub
  k=$(kernel_file "$id")
  if ! stub=$(pristine_stub "$id"); then
    echo "reset: no pristine copy of $k was found; grade once ($me grade ${id%%-*}) so that the build keeps one" >&2
    exit 1
  fi
  if cmp -s "$stub" "$root/$k"; then
    echo "$k is already the stub: nothing to do."
    return 0
  fi
  local backup
  backup="$state_dir/backups/$id/$(basename "$k").$(date +%Y%m%d-%H%M%S)"
  if ((!yes)); then
    local answer=""
    printf 'Replace %s with the stub? Your version is kept in %s. [y/N] ' "$k" "${backup#"$root/"}"
    read -r answer || true
    [[ $answer == [yY]* ]] || { echo "Nothing changed."; return 0; }
  fi
  mkdir -p "$(dirname "$backup")"
  cp -p "$root/$k" "$backup"
  cp "$stub" "$root/$k"
  echo "$k is the stub again. Your version: ${backup#"$root/"} (cp it back to undo)."
}

# ---- the maintainers' commands ----------------------------------------------------------------

cmd_test() {
  local p=cpu
  if have_nvcc; then p=all; fi
  configure "$p" test
  cmake --build "$root/build/$p" -j "$jobs"
  ctest --test-dir "$root/build/$p" --output-on-failure -j "$jobs" "$@"
}

cmd_docs() {
  configure cpu docs
  cmake --build "$root/build/cpu" --target docs
}

main() {
  wb_init
  local cmd=${1:-}
  shift || true
  case $cmd in
    grade) cmd_grade "$@" ;;
    status) cmd_status "$@" ;;
    hint) cmd_hint "$@" ;;
    reset) cmd_reset "$@" ;;
    test) cmd_test "$@" ;;
    docs) cmd_docs ;;
    help|-h|--help) usage ;;
    "") usage >&2; exit 2 ;;
    *) usage >&2; echo >&2; echo "unknown command '$cmd'" >&2; exit 2 ;;
  esac
}

# Run as a command; sourced (by tests/cli), only the functions are defined.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi
