#!/usr/bin/env bash
# The workbook's command line (docs/command-line.md shows each command at work).
#
# usage: bash cmake/workbook.sh <command> [arguments]
#
# For the learner:
#   grade [NN ...] [--verbose] [--json]
#                               build and grade your kernels: every chapter and exercise, or the ones
#                               named; --verbose prints the grader's whole log, not only its verdict;
#                               --json prints every chapter's and exercise's last verdict as JSON
#                               (also kept in build/<preset>/grades.json), the grading on stderr
#   status [NN ...]             the last grade of every chapter and exercise (nothing is rebuilt)
#   hint NN [N | --reset]       the next hint for chapter or exercise NN, one at a time (N: that one)
#   watch [NN ...]              re-grade a chapter or exercise each time you save its file (Ctrl-C stops)
#   check NN                    your kernel on a short input under compute-sanitizer memcheck, racecheck
#                               and synccheck (GPU), or built instrumented (CPU backend): one line each
#   profile NN                  your kernel beside the solution's: Nsight Compute's DRAM throughput,
#                               sectors per request, occupancy and top warp stall (GPU), or sectors
#                               per request of each source line (CPU backend)
#   reset NN [--yes]            put NN's stub back, after asking; your file is kept as a backup
# For the workbook's maintainers:
#   test [ctest options]        the workbook's own test suite (solutions pass, stubs fail, mutants caught);
#                               the CUDA backend too with a GPU, or with WB_CUDA=ON
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
  # The build's reader and writer of verdicts (cli/verdicts.cpp): no grader output is read as text.
  verdicts=${WB_VERDICTS:-$dir/cli/wb-verdicts}
  jobs=${WB_JOBS:-$(nproc 2>/dev/null || echo 2)}
}

usage() {
  sed -n '/^# usage:/,/^set -euo/p' "$root/cmake/workbook.sh" | sed '$d' | sed 's/^# \{0,1\}//'
}

configure() {  # preset what [build folder]: what cmake/setup.sh checks for (grade, test or docs)
  local d=${3:-$root/build/$1}
  mkdir -p "$d"
  WB_PRESET=$1 bash "$root/cmake/setup.sh" "$2"
  # Configured already with this preset, and neither the presets nor what setup found changed
  # since: the build's own check is enough (ninja re-runs CMake when a CMakeLists.txt or a globbed
  # folder changed). Saves a second or two on every grade.
  local mark="$d/wb-configured" stamp="$root/build/setup-$2.stamp"
  if [[ -f $mark && -f $d/build.ninja && $(cat "$mark") == "$1" && $mark -nt $root/CMakePresets.json &&
        (! -f $stamp || $mark -nt $stamp) ]]; then
    return
  fi
  rm -f "$mark"
  (cd "$root" && cmake --preset "$1" -B "$d") >"$d/configure.log" 2>&1 || { cat "$d/configure.log" >&2; exit 1; }
  echo "$1" >"$mark"
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

# The learner's kernel file (relative to the root): the folder's one .cu file (named after its
# pristine copy when the learner deleted it).
kernel_file() {
  local f folder
  folder=$(src_dir "$1")
  for f in "$root/$folder"/*.cu "$root/tests/stubs/${folder#chapters/}"/*.cu "${dir:-/nonexistent}/pristine/$1"/*.cu; do
    [[ -f $f ]] && { echo "$folder/$(basename "$f")"; return; }
  done
  echo "$folder/?.cu"
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

# read_status FILE: a verdict document's kind, detail (with what was not checked) and speed into
# st_verdict, st_detail and st_speed, as wb-verdicts gives them: kind<TAB>detail<TAB>speed
# (`read` with IFS=tab would merge an empty detail into the speed).
read_status() {
  local line="" rest
  line=$("$verdicts" status "$1") || line="?"$'\t'"unreadable verdict ${1#"$root/"}"$'\t'
  st_verdict=${line%%$'\t'*}
  rest=""
  [[ $line == *$'\t'* ]] && rest=${line#*$'\t'}
  st_detail=${rest%%$'\t'*}
  st_speed=""
  [[ $rest == *$'\t'* ]] && st_speed=${rest#*$'\t'}
  return 0
}

# run_grader ID VERDICT PROGRESS: the learner's grader, its output on stdout, its exit status
# returned; it writes its verdict document to VERDICT. A grader that dies of a signal leaves no
# core file and no "Segmentation fault" from this shell.
run_grader() {
  local rc=0
  { (ulimit -c 0; WB_VERDICT_FILE="$2" WB_PROGRESS_FILE="$3" exec "$dir/grade-$1-$backend" 2>&1) || rc=$?; } 2>/dev/null
  return "$rc"
}

# build_verdicts_tool: wb-verdicts, when a grader's build failed before it was built.
build_verdicts_tool() {
  [[ -z ${WB_VERDICTS:-} ]] || return 0
  cmake --build "$dir" --target wb-verdicts -j "$jobs" >"$dir/wb-verdicts.log" 2>&1 ||
    { cat "$dir/wb-verdicts.log" >&2; echo "grade: could not build the verdicts' reader, wb-verdicts" >&2; exit 1; }
}

# write_verdict ID KIND DETAIL [--crash-signal SIG]: a verdict the command concludes itself
# (does not compile, crashed), as a document beside the graders' own.
write_verdict() {
  local c=$1 kind=$2 detail=$3
  shift 3
  "$verdicts" write "$dir/grades/$c.json" --id "$c" --kind "$kind" --detail "$detail" \
    --kernel-file "$(kernel_file "$c")" --backend "$backend" "$@"
}

# grade_one ID VERBOSE: builds and runs one grader, prints its verdict block, and leaves its
# verdict document in $dir/grades/ID.json and its log beside it.
grade_one() {
  local c=$1 verbose=$2 g="$dir/grades"
  local log="$g/$c.log" status="$g/$c.json" progress="$g/$c.progress" rc=0
  local verdict detail speed folder
  folder=$(src_dir "$c")
  mkdir -p "$g"
  rm -f "$status" "$progress" "$g/$c.status"
  echo "== $c: building"
  # wb-verdicts, which reads the verdict, in the same build (one ninja run: a grade after no
  # change costs nothing more); the build's own unless WB_VERDICTS names one.
  local tool=(wb-verdicts)
  [[ -z ${WB_VERDICTS:-} ]] || tool=()
  if ! cmake --build "$dir" --target "${tool[@]}" "grade-$c-$backend" -j "$jobs" >"$log" 2>&1; then
    build_verdicts_tool
    detail=$(first_error "$log" "$folder")
    write_verdict "$c" "does not compile" "$detail"
    echo "   does not compile: $detail"
    echo "   (whole compiler output: ${log#"$root/"})"
    return
  fi
  echo "== $c: grading"
  if ((verbose)); then
    run_grader "$c" "$status" "$progress" | tee -a "$log" || rc=${PIPESTATUS[0]}
  else
    # The log gets everything; the terminal, as it comes, only the line that says the checks
    # passed and the timing began (a GPU's timing takes seconds), then the verdict block.
    run_grader "$c" "$status" "$progress" | tee -a "$log" |
      { grep --line-buffered '^  correct so far: ' || true; } || rc=${PIPESTATUS[0]}
    # The verdict block the grader ended with, from its verdict document.
    [[ -f $status ]] && "$verdicts" block "$status"
  fi
  if ((rc > 128)); then
    local sig where
    sig=$(signal_name "$rc")
    where=$(last_place "$progress" "$log")
    detail="$sig${where:+ $where}"
    if [[ -f $status ]]; then  # Catch2 caught the signal: the grader wrote a verdict, then died
      local why
      if [[ -n $("$verdicts" get "$status" crash.signal) ]]; then
        why=$("$verdicts" get "$status" crash.explanation)  # what the grader made of the signal
        [[ -n $why ]] && detail+=": $why"
      else
        read_status "$status"
        [[ -n $st_detail ]] && detail+="; before it: $st_verdict: $st_detail"
      fi
    fi
    detail=$(shorten "$detail")
    write_verdict "$c" crashed "$detail" --crash-signal "$sig"
    echo "  verdict: crashed: $detail"
  elif [[ ! -f $status ]]; then
    detail=$(shorten "the grader ended (exit status $rc) without a verdict$(w=$(last_place "$progress" "$log"); echo "${w:+ $w}")")
    write_verdict "$c" crashed "$detail"
    echo "  verdict: crashed: $detail"
  fi
  echo "   (full log: ${log#"$root/"})"
  rm -f "$progress"
  # The last speed measured, for `status` after a later grade that was not timed.
  read_status "$status"
  if [[ -n $st_speed && $st_speed != "not timed"* ]]; then
    echo "$st_speed" >"$g/$c.speed"
  fi
}

print_summary() {  # ids...
  local c verdict detail speed why
  echo
  echo "Summary ($([[ $backend == cpu ]] && echo "CPU backend: correctness only" || echo "CUDA GPU"); full logs in ${dir#"$root/"}/grades/)"
  printf '  %-18s %-17s %s\n' "chapter" "verdict" "why / speed"
  for c in "$@"; do
    verdict="?" detail="" speed=""
    if [[ -f $dir/grades/$c.json ]]; then
      read_status "$dir/grades/$c.json"
      verdict=$st_verdict detail=$st_detail speed=$st_speed
    fi
    why=$detail
    [[ -n $speed ]] && why="${why:+$why; }$speed"
    printf '  %-18s %-17s %s\n' "$c" "$verdict" "$(shorten "$why")"
  done
}

# The grades document (docs/verdict-schema.md): every chapter's and exercise's last verdict, from
# the build's catalog and the verdict documents in grades/, on stdout and in $dir/grades.json.
grades_document() {
  "$verdicts" document --catalog "$dir/catalog.json" --grades "$dir/grades" --backend "$backend" \
    --out "$dir/grades.json"
}

cmd_grade() {
  local verbose=0 json=0 names=() a
  for a in "$@"; do
    case $a in
      -v|--verbose) verbose=1 ;;
      --json) json=1 ;;
      -*) echo "grade: unknown option '$a' (--verbose, --json)" >&2; exit 2 ;;
      *) names+=("$a") ;;
    esac
  done
  resolve_all "${names[@]}"  # before configuring: a typo is answered at once
  local wanted=("${targets[@]}")
  {
    [[ -n ${WB_NO_CONFIGURE:-} ]] || configure "$preset" grade "$dir"
    if ((${#names[@]} == 0)); then resolve_all; wanted=("${targets[@]}"); fi
    local c
    for c in "${wanted[@]}"; do grade_one "$c" "$verbose"; done
    print_summary "${wanted[@]}"
  } >&$((json ? 2 : 1))  # --json: the grading on stderr, the document alone on stdout
  if ((json)); then
    grades_document
  else
    grades_document >/dev/null
  fi
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
    f="$dir/grades/$c.json"
    if [[ ! -f $f ]]; then
      printf '  %-18s %-17s %s\n' "$c" "not graded" "run: $me grade ${c%%-*}"
      continue
    fi
    graded=$((graded + 1))
    verdict="" detail="" speed=""
    read_status "$f"
    verdict=$st_verdict detail=$st_detail speed=$st_speed
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
    why="$(shorten "$why")${why:+ }($note)"
    printf '  %-18s %-17s %s\n' "$c" "$verdict" "$why"
  done
  echo "$correct of $n correct; $((n - graded)) not graded yet."
  # The other backend's grades are kept in its own build folder.
  local other=gpu other_backend=cuda
  [[ $backend == cuda ]] && other=cpu other_backend=cpu
  if [[ -z ${WB_BUILD_DIR:-} ]] && compgen -G "$root/build/$other/grades/*.json" >/dev/null; then
    echo "Grades on the $([[ $other == gpu ]] && echo GPU || echo "CPU backend") are kept apart: WB_BACKEND=$other_backend $me status"
  fi
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

# The stub as it was before the learner edited it: the pristine copy the test suite compiles
# (tests/stubs/<NN-topic>/ or tests/stubs/exercises/<NN-name>/), else the copy an older build kept.
pristine_stub() {  # id
  local k base c folder
  k=$(kernel_file "$1")
  base=$(basename "$k")
  folder=$(src_dir "$1")
  folder=${folder#chapters/}
  for c in "$root/tests/stubs/$folder/$base" "$dir/pristine/$1/$base" "$root"/build/*/pristine/"$1/$base"; do
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
  if [[ ! -f $root/$k ]]; then
    cp "$stub" "$root/$k"
    echo "$k was missing: it is the stub again."
    return 0
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

# ---- watch ------------------------------------------------------------------------------------

stamp() { stat -c '%Y:%Z:%s:%i' "$1" 2>/dev/null || echo gone; }  # changes on every save, rename included

# watch [NN ...]: re-grades a chapter or exercise each time its file is saved. With inotifywait
# (inotify-tools) it waits for the kernel; without it, it looks every second (WB_WATCH_POLL=1
# forces that; WB_WATCH_INTERVAL sets the seconds). Ctrl-C stops it.
cmd_watch() {
  resolve_all "$@"
  local ids=("${targets[@]}") files=() stamps=() dirs=() i
  for i in "${!ids[@]}"; do
    files[i]="$root/$(kernel_file "${ids[i]}")"
    stamps[i]=$(stamp "${files[i]}")
    dirs+=("$(dirname "${files[i]}")")
  done
  local interval=${WB_WATCH_INTERVAL:-1} how="looking every ${WB_WATCH_INTERVAL:-1} s"
  local notify=0
  if [[ -z ${WB_WATCH_POLL:-} ]] && command -v inotifywait >/dev/null; then notify=1 how="inotifywait"; fi
  trap 'echo; echo "Stopped watching."; exit 0' INT TERM
  [[ -n ${WB_NO_CONFIGURE:-} ]] || configure "$preset" grade "$dir"
  export WB_NO_CONFIGURE=1  # once is enough: the build re-runs CMake when it must
  if ((${#ids[@]} == 1)); then
    (cmd_grade "${ids[0]}") || true
  fi
  echo "Watching ${#ids[@]} file$( ((${#ids[@]} == 1)) || echo s) ($how): save one to grade it; Ctrl-C stops."
  local graded rc
  while :; do
    # The files are compared with what was graded before each wait, so that a save made during a
    # grade, or just before inotifywait listens, is graded too.
    graded=0
    for i in "${!ids[@]}"; do
      local now
      now=$(stamp "${files[i]}")
      [[ $now != "${stamps[i]}" ]] || continue
      sleep 0.2  # let the editor finish writing
      stamps[i]=$(stamp "${files[i]}")
      [[ -f ${files[i]} ]] || continue
      graded=1
      echo
      echo "$(date +%H:%M:%S) ${files[i]#"$root/"} changed"
      (cmd_grade "${ids[i]}") || true
      echo "Watching ($how): Ctrl-C stops."
    done
    ((graded)) && continue
    if ((notify)); then
      # Editors save in place or write a new file and rename it: watch the folders. It ends at an
      # event (0) or after 5 s without one (2); an error (1) falls back to a pause.
      rc=0
      inotifywait -qq -t 5 -e close_write -e moved_to -e create "${dirs[@]}" 2>/dev/null || rc=$?
      ((rc != 1)) || sleep "$interval"
    else
      sleep "$interval"
    fi
  done
}

# ---- check and profile: the small case --------------------------------------------------------

# catch_escape NAME: a test case's name as a Catch2 test spec (',', '[', ']' and '\' escaped).
catch_escape() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//,/\\,}
  s=${s//[/\\[}
  s=${s//]/\\]}
  echo "$s"
}

# small_case EXE: the Catch2 test spec of a short run of the grader: its hidden `[racecheck]` cases
# where it has them (the small inputs it runs under compute-sanitizer itself), else its first
# `[correctness]` case.
small_case() {
  if "$1" --list-tests '[racecheck]' --verbosity quiet 2>/dev/null | grep -q .; then
    echo '[racecheck]'
    return
  fi
  local first
  first=$("$1" --list-tests '[correctness]' --verbosity quiet 2>/dev/null | head -n1)
  [[ -n $first ]] || { echo '[correctness]'; return; }
  catch_escape "$first"
}

# build_target TARGET LOG: builds one target, or says why not (the first error in the learner's file).
build_target() {
  if ! cmake --build "$dir" --target "$1" -j "$jobs" >"$2" 2>&1; then
    if grep -q "unknown target" "$2"; then
      echo "   $id has no $1 on this backend: it is graded as skipped here ($me grade ${id%%-*} says why)"
      return 1
    fi
    echo "   $1 does not compile: $(first_error "$2" "$(src_dir "$id")")"
    echo "   (whole compiler output: ${2#"$root/"})"
    return 1
  fi
}

short_path() {  # /abs/.../chapters/03-coalescing/transpose.cu -> chapters/03-coalescing/transpose.cu
  local p=$1 top
  p=${p#"$root/"}
  for top in chapters/ exercises/ solutions/ tests/; do
    [[ $p == *"/$top"* ]] && { p="$top${p##*"/$top"}"; break; }
  done
  echo "$p"
}

# ---- check ------------------------------------------------------------------------------------

# sanitizer_summary TOOL LOG: one line from a compute-sanitizer run: its count, and the first
# report with its source line, e.g.
#   racecheck: 1 hazard (1 error, 0 warnings): Race reported between Write access ... at chapters/03-coalescing/transpose.cu:21
sanitizer_summary() {
  awk -v tool="$1" -v root="$root/" '
    function place(s,   m) {  # "... in /path/file.cu:21" -> "file.cu:21", shortened to the repository
      if (match(s, / in [^ ]+:[0-9]+/)) { m = substr(s, RSTART + 4, RLENGTH - 4); sub("^" root, "", m); return m }
      return ""
    }
    /^========= (ERROR|RACECHECK|LEAK) SUMMARY:/ { line = $0; sub(/^========= /, "", line)
      if (line ~ /^ERROR SUMMARY/ && tool != "racecheck") { sub(/^ERROR SUMMARY: /, "", line); count = line }
      if (line ~ /^RACECHECK SUMMARY/) { sub(/^RACECHECK SUMMARY: /, "", line); sub(/ displayed/, "", line); count = line }
      next }
    /^=========     / { if (first != "" && where == "") where = place($0)
                        if (first != "" && who == "" && $0 ~ /by thread/) { who = $0; sub(/^=========  +/, "", who) }
                        next }
    /^========= [^ ]/ { if (first == "" && $0 !~ /COMPUTE-SANITIZER|Target application|Process ID|This tool/) {
                          first = $0; sub(/^========= /, "", first); where = place(first); sub(/ in [^ ]+:[0-9]+.*/, "", first) } }
    /^test cases: .*[1-9][0-9]* failed/ { failed = 1 }
    END {
      if (count == "") { printf "%-10s did not finish (no summary line): see the log\n", tool ":"; exit }
      if (count ~ /^0 /) { printf "%-10s clean (%s)%s\n", tool ":", count, failed ? "; but the cases themselves failed: grade it" : ""; exit }
      sub(/ at [^+]*\+0x[0-9a-f]+/, "", first)
      printf "%-10s %s: %s%s%s\n", tool ":", count, first, where != "" ? " at " where : "", who != "" ? " (" who ")" : ""
    }' "$2"
}

# emu_fault_summary LOG: the CPU backend's kernel faults in a log, one line per kind: races,
# out-of-bounds accesses, barriers and warp operations.
emu_fault_summary() {
  awk -v root="$root/" '
    function shorten(s) { gsub(root, "", s); gsub(/ \(threadIdx [0-9,]+\)/, "", s); return s }
    function done() {
      kind = msg ~ /race on/ ? "races" : msg ~ /which no thread of the block has written/ ? "unwritten" : \
             msg ~ /__syncthreads|lanes|mask|barrier/ ? "barriers" : "bounds"
      if (kind == "races") sub(/: two threads touch it.*/, "", msg)
      n[kind]++
      if (!(kind in first)) first[kind] = shorten(msg (kind == "races" && detail != "" ? ": " detail : ""))
      state = 0
    }
    state == 2 && /^    / { line = $0; sub(/^ +/, "", line); detail = detail (detail == "" ? "" : "; ") line; next }
    state == 2 { done() }
    state == 1 { msg = $0; sub(/^ +/, "", msg); sub(/:$/, "", msg); detail = ""; state = 2; next }
    /: error: kernel fault in / { state = 1; next }
    /^test cases: .*[1-9][0-9]* failed/ { failed = 1 }
    END {
      if (state == 2) done()
      split("races bounds barriers unwritten", kinds, " ")
      name["races"] = "shared-memory races (as racecheck):"
      name["bounds"] = "out-of-bounds or misaligned (as memcheck):"
      name["barriers"] = "barriers and warp masks (as synccheck):"
      name["unwritten"] = "reads of unwritten shared memory:"
      for (i = 1; i <= 4; i++) {
        k = kinds[i]
        if (k == "unwritten" && n[k] == 0) continue  # no GPU tool finds these: said only when there are some
        if (n[k] == 0) printf "%-43s none\n", name[k]
        else printf "%-43s %d fault%s, the first: %s\n", name[k], n[k], n[k] == 1 ? "" : "s", first[k]
      }
      if (failed) print "(some of these cases also failed their checks: grade it for the diagnosis)"
    }' "$1"
}

cmd_check() {
  local id="" a
  for a in "$@"; do
    [[ -z $id ]] || { echo "check: one chapter or exercise at a time" >&2; exit 2; }
    id=$(resolve "$a") || exit 2
  done
  [[ -n $id ]] || { echo "usage: $me check NN  (sanitizers on a GPU, the instrumented build on the CPU backend)" >&2; exit 2; }
  [[ -n ${WB_NO_CONFIGURE:-} ]] || configure "$preset" grade "$dir"
  local g="$dir/grades" exe spec
  mkdir -p "$g"
  if [[ $backend == cpu ]]; then
    echo "== $id: building your file instrumented (CPU backend)"
    build_target "inspect-$id-cpu" "$g/$id.check.log" || return 0
    exe="$dir/inspect-$id-cpu"
    spec=$(small_case "$exe")
    echo "== $id: running ${spec//\\/} instrumented: every shared-memory access checked, every global access placed"
    { (ulimit -c 0; env -u WB_VERDICT_FILE WB_SANITIZER_CHILD=1 "$exe" "$spec" 2>&1) || true; } >>"$g/$id.check.log" 2>/dev/null
    emu_fault_summary "$g/$id.check.log" | sed 's/^/  /'
    echo "  (CPU backend: what a GPU's compute-sanitizer would find, as the emulation sees it; full log: ${g#"$root/"}/$id.check.log)"
    return 0
  fi
  command -v compute-sanitizer >/dev/null || {
    echo "check: compute-sanitizer is not on PATH (it comes with the CUDA toolkit: add its bin folder to PATH)" >&2
    exit 1
  }
  echo "== $id: building"
  build_target "grade-$id-cuda" "$g/$id.check.log" || return 0
  exe="$dir/grade-$id-cuda"
  spec=$(small_case "$exe")
  local tool
  for tool in memcheck racecheck synccheck; do
    local log="$g/$id.check-$tool.log"
    echo "== $id: compute-sanitizer --tool $tool on ${spec//\\/}" >&2
    local command=(compute-sanitizer --tool "$tool" --error-exitcode 86 --print-limit 20 "$exe" "$spec")
    if [[ -n ${WB_PRINT_COMMAND:-} ]]; then echo "   ${command[*]}"; continue; fi
    { (ulimit -c 0; env -u WB_VERDICT_FILE WB_SANITIZER_CHILD=1 "${command[@]}" 2>&1) || true; } >"$log" 2>/dev/null
    sanitizer_summary "$tool" "$log" | sed 's/^/  /'
  done
  echo "  (logs: ${g#"$root/"}/$id.check-<tool>.log)"
}

# ---- profile ----------------------------------------------------------------------------------

# What `profile` asks Nsight Compute for: time, DRAM throughput, global sectors per request (loads
# and stores), achieved occupancy, and every warp stall reason (the largest is shown).
ncu_metrics="gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,\
regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$"

# ncu_table CSV: Nsight Compute's `--csv --page raw` output (every field quoted; a row of names,
# a row of units, then one row per profiled launch) -> one tab-separated row per kernel (its first
# launch): name, ms, DRAM %, load sectors/request, store sectors/request, occupancy %, top stall.
ncu_table() {
  grep '^"' "$1" | awk '
    function num(s) { gsub(/[",]/, "", s); return s + 0 }
    function ratio(a, b) { return b > 0 ? sprintf("%.1f", a / b) : "-" }
    {
      line = substr($0, 2, length($0) - 2)
      nf = split(line, f, /","/)
    }
    NR == 1 { for (i = 1; i <= nf; i++) col[f[i]] = i; next }
    f[col["ID"]] == "" { for (i = 1; i <= nf; i++) unit[i] = f[i]; next }  # the units row
    {
      k = f[col["Kernel Name"]]
      gsub(/\(anonymous namespace\)::/, "", k); sub(/^void /, "", k); sub(/^student::/, "", k); sub(/\(.*$/, "", k)
      if (k == "") k = "?"
      if (k in seen) next
      seen[k] = 1
      ms = num(f[col["gpu__time_duration.sum"]])
      u = unit[col["gpu__time_duration.sum"]]
      if (u == "nsecond" || u == "ns") ms /= 1e6; else if (u == "usecond" || u == "us") ms /= 1e3; else if (u == "second" || u == "s") ms *= 1e3
      top = ""; topv = -1
      for (name in col) if (name ~ /^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$/) {
        r = name; sub(/^smsp__average_warps_issue_stalled_/, "", r); sub(/_per_issue_active\.ratio$/, "", r)
        if (r == "selected" || r == "not_selected") continue
        v = num(f[col[name]]); if (v > topv) { topv = v; top = r }
      }
      printf "%s\t%.3f\t%.1f\t%s\t%s\t%.1f\t%s\n", k, ms, num(f[col["dram__throughput.avg.pct_of_peak_sustained_elapsed"]]),
        ratio(num(f[col["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]]), num(f[col["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]])),
        ratio(num(f[col["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]]), num(f[col["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]])),
        num(f[col["sm__warps_active.avg.pct_of_peak_sustained_active"]]), top == "" ? "-" : sprintf("%s (%.1f cycles per instruction)", top, topv)
    }'
}

# ncu_side_by_side YOURS SOLUTION: the two tables of ncu_table, kernel by kernel.
ncu_side_by_side() {
  local -a yours theirs
  mapfile -t yours <"$1"
  mapfile -t theirs <"$2"
  local n=${#yours[@]} i
  ((${#theirs[@]} > n)) && n=${#theirs[@]}
  ((n > 0)) || { echo "  no kernel of namespace student was profiled: did the case launch one?"; return; }
  for ((i = 0; i < n; i++)); do
    local y=() t=()
    IFS=$'\t' read -r -a y <<<"${yours[i]:-}"
    IFS=$'\t' read -r -a t <<<"${theirs[i]:-}"
    printf '  %-32s %-26s %s\n' "" "yours" "solution"
    printf '  %-32s %-26s %s\n' "kernel" "${y[0]:--}" "${t[0]:--}"
    printf '  %-32s %-26s %s\n' "duration (ms)" "${y[1]:--}" "${t[1]:--}"
    printf '  %-32s %-26s %s\n' "DRAM throughput (% of peak)" "${y[2]:--}" "${t[2]:--}"
    printf '  %-32s %-26s %s\n' "global loads: sectors/request" "${y[3]:--}" "${t[3]:--}"
    printf '  %-32s %-26s %s\n' "global stores: sectors/request" "${y[4]:--}" "${t[4]:--}"
    printf '  %-32s %-26s %s\n' "achieved occupancy (%)" "${y[5]:--}" "${t[5]:--}"
    printf '  %-32s %-26s %s\n' "top warp stall" "${y[6]:--}" "${t[6]:--}"
    ((i + 1 < n)) && echo
  done
  echo "  (4 bytes per thread, fully coalesced: 4 sectors per request; 32 means one sector per thread)"
}

# emu_profile_table PROFILE: the CPU backend's per-line statistics (WB_EMU_PROFILE rows) summed over
# the run: kernel, line, direction, bytes, requests, sectors/request, ideal.
emu_profile_table() {
  sort -t$'\t' -k1,1 -k2,2 -k3,3n -k4,4 "$1" | awk -F'\t' -v root="$root/" '
    { key = $1 "\t" $2 "\t" $3 "\t" $4; if (!(key in req)) { order[++n] = key; bytes[key] = $5 }
      req[key] += $6; got[key] += $7; ideal[key] += $8 }
    function table(shared,   i, k, p, file, printed) {
      last = ""
      for (i = 1; i <= n; i++) {
        k = order[i]; split(k, p, "\t")
        if ((p[4] ~ /^shared-/) != shared) continue
        file = p[2]; sub("^" root, "", file)
        if (p[1] != last) {
          printf "  %s, %s:\n", p[1], shared ? "shared memory" : "global memory"
          printf "    %-44s %-6s %9s %16s %6s\n", "line", "access", "requests", shared ? "wavefronts/req" : "sectors/request", "ideal"
          last = p[1]
        }
        sub(/^shared-/, "", p[4])
        printf "    %-44s %-6s %9d %16.1f %6.1f\n", file ":" p[3], p[4], req[k], got[k] / req[k], ideal[k] / req[k]
        printed = 1
      }
      return printed
    }
    END {
      if (!table(0)) print "  no instrumented launch recorded a global-memory access"
      table(1)
    }'
}

cmd_profile() {
  local id="" a
  for a in "$@"; do
    [[ -z $id ]] || { echo "profile: one chapter or exercise at a time" >&2; exit 2; }
    id=$(resolve "$a") || exit 2
  done
  [[ -n $id ]] || { echo "usage: $me profile NN  (Nsight Compute on a GPU, sectors per request on the CPU backend)" >&2; exit 2; }
  [[ -n ${WB_NO_CONFIGURE:-} ]] || configure "$preset" grade "$dir"
  local g="$dir/grades" who exe spec
  mkdir -p "$g"
  if [[ $backend == cpu ]]; then
    echo "== $id: building your file and the solution instrumented (CPU backend)"
    build_target "inspect-$id-cpu" "$g/$id.profile.log" || return 0
    build_target "inspect-$id-solution-cpu" "$g/$id.profile-solution.log" || return 0
    # The grader's own coalescing case where it has one (what its verdict counts), else check's.
    if "$dir/inspect-$id-cpu" --list-tests '[coalescing]' --verbosity quiet 2>/dev/null | grep -q .; then
      spec='[coalescing]'
    else
      spec=$(small_case "$dir/inspect-$id-cpu")
    fi
    for who in yours solution; do
      exe="$dir/inspect-$id-cpu"
      [[ $who == solution ]] && exe="$dir/inspect-$id-solution-cpu"
      rm -f "$g/$id.profile-$who.tsv"
      { (ulimit -c 0; env -u WB_VERDICT_FILE WB_SANITIZER_CHILD=1 WB_EMU_PROFILE="$g/$id.profile-$who.tsv" "$exe" "$spec" 2>&1) || true; } \
        >>"$g/$id.profile.log" 2>/dev/null
      echo
      echo "$who (${spec//\\/}), per source line, summed over the run's launches:"
      if [[ -s $g/$id.profile-$who.tsv ]]; then emu_profile_table "$g/$id.profile-$who.tsv"
      else echo "  no instrumented launch recorded a global-memory access (see ${g#"$root/"}/$id.profile.log)"; fi
    done
    echo
    echo "(CPU backend: sectors and wavefronts counted as a GPU's memory units count them; no times. Global:"
    echo " a full warp's coalesced 4-byte accesses take 4 sectors per request, one sector per thread 32."
    echo " Shared: 1 wavefront per request without bank conflicts, n for an n-way conflict.)"
    return 0
  fi
  command -v ncu >/dev/null || { echo "profile: ncu (Nsight Compute) is not on PATH: it comes with the CUDA toolkit" >&2; exit 1; }
  echo "== $id: building your grader and the solution's"
  build_target "grade-$id-cuda" "$g/$id.profile.log" || return 0
  build_target "$id.cuda.solution" "$g/$id.profile-solution.log" || return 0
  spec='[timing]'  # the large input the speed is measured on: DRAM figures mean something there
  for who in yours solution; do
    exe="$dir/grade-$id-cuda"
    [[ $who == solution ]] && exe="$dir/$id.cuda.solution"
    local csv="$g/$id.profile-$who.csv"
    local command=(ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:student::" --launch-count 4
                   --metrics "$ncu_metrics" --csv --page raw --log-file "$csv" "$exe" "$spec")
    if [[ -n ${WB_PRINT_COMMAND:-} ]]; then printf '  '; printf ' %q' "${command[@]}"; echo; continue; fi
    echo "== $id: Nsight Compute on $who ($spec; the first launches of each kernel of namespace student)"
    rm -f "$csv"
    { (ulimit -c 0; env -u WB_VERDICT_FILE WB_SANITIZER_CHILD=1 "${command[@]}" 2>&1) || true; } >>"$g/$id.profile.log" 2>/dev/null
    ncu_table "$csv" >"$g/$id.profile-$who.tsv" 2>/dev/null || true
  done
  [[ -n ${WB_PRINT_COMMAND:-} ]] && return 0
  echo
  ncu_side_by_side "$g/$id.profile-yours.tsv" "$g/$id.profile-solution.tsv"
  echo "  (ncu --clock-control none; raw CSV: ${g#"$root/"}/$id.profile-<yours|solution>.csv)"
}

# ---- the maintainers' commands ----------------------------------------------------------------

cmd_test() {
  # The CUDA backend too where it can run (a GPU), or where asked (WB_CUDA=ON: CI compiles it).
  local p=cpu
  case ${WB_CUDA:-} in
    ON) have_nvcc || { echo "WB_CUDA=ON, but nvcc was not found" >&2; exit 2; }; p=all ;;
    OFF) ;;
    *) if have_gpu && have_nvcc; then p=all; fi ;;
  esac
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
    watch) cmd_watch "$@" ;;
    check) cmd_check "$@" ;;
    profile) cmd_profile "$@" ;;
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
