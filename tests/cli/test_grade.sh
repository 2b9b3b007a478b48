#!/usr/bin/env bash
# The grade command's naming of chapters, its verdict block, and the summary row of a grader that
# crashes, does not compile or ends without a verdict, with stand-in graders (no build).
source "$(dirname "$0")/lib.sh"

# ---- names -------------------------------------------------------------------------------------
printf '%s\n' 01-naive-add 02-grid-stride 03-coalescing 04-reduction 05-autograd \
  x01-histogram x02-scan x03-sgemm x07-warp-reduce >"$dir/chapters.txt"
for pair in 1:01-naive-add 01:01-naive-add ch1:01-naive-add ch01:01-naive-add CH04:04-reduction \
            naive:01-naive-add grid:02-grid-stride 01-naive-add:01-naive-add x3:x03-sgemm x03:x03-sgemm \
            x1:x01-histogram hist:x01-histogram 7:x07-warp-reduce reduction:04-reduction; do
  got=$(resolve "${pair%%:*}" 2>&1) || true
  expect_eq "resolve ${pair%%:*}" "$got" "${pair#*:}"
done
out=$(resolve re 2>&1) && fail "resolve re: ambiguous, must fail" || expect_eq "resolve re: exit status" "$?" 2
expect_contains "resolve re" "$out" "matches more than one"
expect_contains "resolve re lists 04" "$out" "04-reduction"
expect_contains "resolve re lists x07" "$out" "x07-warp-reduce"
out=$(resolve 9 2>&1) && fail "resolve 9: no such chapter, must fail" || expect_eq "resolve 9: exit status" "$?" 2
expect_contains "resolve 9" "$out" "no chapter or exercise matches '9'"
out=$(resolve ch7 2>&1) && fail "resolve ch7: ch names chapters only" || true
out=$( (resolve_all 1 bogus) 2>&1) && fail "resolve_all 1 bogus must exit" || expect_eq "resolve_all: exit status" "$?" 2

# ---- the command's usage and unknown commands ---------------------------------------------------
out=$( (main frobnicate) 2>&1) && fail "unknown command must fail" || expect_eq "unknown command: exit status" "$?" 2
expect_contains "unknown command" "$out" "unknown command 'frobnicate'"
expect_contains "unknown command prints usage" "$out" "usage: bash cmake/workbook.sh"
out=$(main help)
for c in grade test docs; do
  expect_contains "usage lists $c" "$out" "  $c "
done
listed=$(main help | grep -oE '^  [a-z]+ ' | tr -d ' ' | sort | tr '\n' ' ')
handled=$(grep -oE '^    [a-z]+\) cmd_' "$root/cmake/workbook.sh" | sed 's/).*//' | tr -d ' ' | sort | tr '\n' ' ')
expect_eq "usage lists exactly the commands main() handles" "$listed" "$handled"

# ---- grading with stand-in graders --------------------------------------------------------------
cmake() {  # the build: fails for a chapter whose stand-in says so
  local target=${*: -3:1}
  if [[ -f $dir/$target.compile-error ]]; then cat "$dir/$target.compile-error"; return 1; fi
  return 0
}
grader() {  # id body: a stand-in grader
  printf '#!/usr/bin/env bash\n%s\n' "$2" >"$dir/grade-$1-cpu"
  chmod +x "$dir/grade-$1-cpu"
}
status_of() { "$WB_VERDICTS" status "$dir/grades/$1.json"; }
# A stand-in grader's verdict document: the grader's own (wb-verdicts write's arguments).
writes() { printf '"$WB_VERDICTS" write "$WB_VERDICT_FILE" --id %q' "$1"; shift; printf ' %q' "$@"; }

grader 01-naive-add 'echo "lots of Catch2 output"
'"$(writes 01-naive-add --title "naive add" --device "the CPU backend" --kind correct --speed "not timed")"
out=$(grade_one 01-naive-add 0)
expect_contains "verdict block" "$out" "==== 01-naive-add (naive add) on the CPU backend ===="
expect_contains "verdict line" "$out" "  verdict: correct"
expect_contains "speed line" "$out" "  speed:   not timed"
expect_contains "points to the log" "$out" "(full log: "
expect_not_contains "no Catch2 noise without --verbose" "$out" "lots of Catch2 output"
expect_eq "status" "$(status_of 01-naive-add)" $'correct\t\tnot timed'
[[ ! -f $dir/grades/01-naive-add.status ]] || fail "a status file beside the verdict document"
out=$(grade_one 01-naive-add 1)
expect_contains "--verbose streams the log" "$out" "lots of Catch2 output"
read_status "$dir/grades/01-naive-add.json"
expect_eq "read_status: an empty detail" "$st_detail|$st_speed" "|not timed"
[[ ! -f $dir/grades/01-naive-add.speed ]] || fail "'not timed' kept as the last speed"
# The line that says the timing began is shown as it comes, nothing else of the log.
grader 01-naive-add 'echo "Catch2 output before"
echo "  correct so far: every check passed; now timing your kernel against the solution"
echo "Catch2 output after"
'"$(writes 01-naive-add --title "naive add" --device "NVIDIA H200" --kind correct --speed "1.00x the solution")"
out=$(grade_one 01-naive-add 0)
expect_contains "the timing's announcement" "$out" "  correct so far: every check passed; now timing"
expect_not_contains "no Catch2 noise around it" "$out" "Catch2 output"
expect_contains "then the verdict" "$out" "  verdict: correct"
expect_contains "the block from the verdict document" "$out" "==== 01-naive-add (naive add) on NVIDIA H200 ===="
grader 01-naive-add "$(writes 01-naive-add --kind correct --speed "1.01x the solution: at the solution's speed")"
grade_one 01-naive-add 0 >/dev/null
expect_eq "the last speed is kept" "$(cat "$dir/grades/01-naive-add.speed")" "1.01x the solution: at the solution's speed"

# Catch2 caught the signal: it printed the failure and wrote a verdict, then the grader died.
grader 02-grid-stride 'cat <<EOF
-------------------------------------------------------------------------------
y += x on pointers that are not 16-byte aligned
-------------------------------------------------------------------------------
grade.cpp:150
...............................................................................

grade.cpp:155: FAILED:
due to a fatal error condition:
  offset := 1
  SIGSEGV - Segmentation violation signal

EOF
'"$(writes 02-grid-stride --kind wrong --detail 'SIGSEGV - Segmentation violation signal (in "y += x...")' \
           --crash-signal "SIGSEGV - Segmentation violation signal")"'
kill -SEGV $$'
out=$(grade_one 02-grid-stride 0)
expect_contains "crash after the verdict" "$out" "verdict: crashed: SIGSEGV in \"y += x on pointers that are not 16-byte aligned\" (offset := 1)"
expect_contains "crash status" "$(status_of 02-grid-stride)" "crashed"$'\t'"SIGSEGV in"

# The grader named the signal's cause (CPU backend: a kernel thread's stack overflow): the row keeps it.
grader 02-grid-stride 'printf "a case\t\n" >"$WB_PROGRESS_FILE"
'"$(writes 02-grid-stride --kind wrong \
           --detail 'SIGSEGV - Segmentation violation signal: thread (0,0,0), block (0,0,0) of k overflowed its 256 KiB stack (in "a case")' \
           --crash-signal "SIGSEGV - Segmentation violation signal" \
           --crash-explanation "thread (0,0,0), block (0,0,0) of k overflowed its 256 KiB stack")"'
kill -SEGV $$'
out=$(grade_one 02-grid-stride 0)
expect_contains "crash with a named cause" "$out" \
  "verdict: crashed: SIGSEGV in \"a case\": thread (0,0,0), block (0,0,0) of k overflowed its 256 KiB stack"$'\n'
crashed=$(grep '^  verdict: crashed: ' <<<"$out" || true)
[[ $crashed != *'stack (in "a case")'* ]] || fail "crash with a named cause: the case is named twice: $crashed"

# Killed before any verdict: the progress file says where.
grader 03-coalescing 'printf "a large matrix\tthe second half\n" >"$WB_PROGRESS_FILE"; kill -KILL $$'
out=$(grade_one 03-coalescing 0)
expect_contains "crash before the verdict" "$out" "verdict: crashed: SIGKILL in \"a large matrix\", section \"the second half\""

# A wrong verdict, then a crash that Catch2 reported: both are in the row.
grader 04-reduction "$(writes 04-reduction --kind wrong --detail "the sum is 3, expected 4")"'; printf "a case\t\n" >"$WB_PROGRESS_FILE"; kill -ABRT $$'
out=$(grade_one 04-reduction 0)
expect_contains "crash after a wrong verdict" "$out" "verdict: crashed: SIGABRT in \"a case\"; before it: wrong: the sum is 3, expected 4"

# An exit without a verdict and without a signal.
grader 05-autograd 'exit 1'
out=$(grade_one 05-autograd 0)
expect_contains "no verdict" "$out" "verdict: crashed: the grader ended (exit status 1) without a verdict"

# Does not compile: the first error in the learner's file, kept for `status`.
echo "In file included from x.cpp:1:
$root/chapters/01-naive-add/naive_add.cu:20:3: error: expected ';' before 'int'" >"$dir/grade-x01-histogram-cpu.compile-error"
cp "$dir/grade-x01-histogram-cpu.compile-error" "$dir/grade-01-naive-add-cpu.compile-error"
out=$(grade_one 01-naive-add 0)
expect_contains "does not compile" "$out" "does not compile: chapters/01-naive-add/naive_add.cu:20:3: error: expected ';' before 'int'"
expect_contains "does not compile status" "$(status_of 01-naive-add)" "does not compile"
expect_eq "does not compile: the verdict's kernel file" "$("$WB_VERDICTS" get "$dir/grades/01-naive-add.json" kind)" \
  "does not compile"

# The summary has a row for each, crashed ones included.
out=$(print_summary 01-naive-add 02-grid-stride 03-coalescing 05-autograd)
for c in 01-naive-add 02-grid-stride 03-coalescing 05-autograd; do expect_contains "summary row $c" "$out" "  $c "; done
expect_contains "summary: crashed" "$out" "crashed           SIGKILL"
while IFS= read -r line; do
  ((${#line} <= 240)) || fail "summary line longer than 240 characters: $line"
done <<<"$out"

# ---- the grades document (grade --json): every entry of the catalog, with its last verdict ------
printf '{"schema": 1, "backends": ["cpu"], "graded": [%s, %s]}\n' \
  '{"id": "01-naive-add", "kind": "chapter", "title": "naive add", "kernel_file": "chapters/01-naive-add/naive_add.cu"}' \
  '{"id": "x07-warp-reduce", "kind": "exercise", "title": "warp reduce", "kernel_file": "exercises/07-warp-reduce/k.cu"}' \
  >"$dir/catalog.json"
out=$(grades_document)
expect_contains "document: a graded chapter" "$out" '"id": "01-naive-add"'
expect_contains "document: its verdict" "$out" '"kind": "does not compile"'
expect_contains "document: an entry never graded" "$out" '"verdict": null'
expect_eq "document: kept under the build" "$(cat "$dir/grades.json")" "$out"
out=$( (cmd_grade --bogus) 2>&1) && fail "grade --bogus must fail" || true
expect_contains "grade's options" "$out" "--verbose, --json"

finish
