#!/usr/bin/env bash
# `grade 1` for real, in the test suite's own build folder (WB_BUILD_DIR, configured already):
# the verdict block, the pointer to the log, the summary row; --verbose streams the whole log.
# Whatever chapter 01's file holds (stub, work in progress, solution), each of these must appear.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
: "${WB_BUILD_DIR:?set WB_BUILD_DIR to a configured build folder with the CPU backend}"
export WB_BACKEND=cpu WB_NO_CONFIGURE=1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
has() { [[ $2 == *"$3"* ]] || fail "$1: no '$3' in: $2"; }

out=$(bash "$root/cmake/workbook.sh" grade 1 2>&1) || fail "grade 1 exited with $?"
has "grade 1" "$out" "==== 01-naive-add (naive add) on the CPU backend ===="
has "grade 1" "$out" "  verdict: "
has "grade 1" "$out" "(full log: "
has "grade 1" "$out" "Summary (CPU backend: correctness only"
[[ $out != *"Randomness seeded to"* ]] || fail "grade 1 printed the grader's log without --verbose"
[[ -s $WB_BUILD_DIR/grades/01-naive-add.json ]] || fail "no verdict document for 01-naive-add"
[[ -s $WB_BUILD_DIR/grades.json ]] || fail "no grades document, build/.../grades.json"

# --json: the grades document alone on stdout (the grading on stderr), the same as grades.json.
out=$(bash "$root/cmake/workbook.sh" grade 1 --json 2>/dev/null) || fail "grade 1 --json exited with $?"
[[ $out == "{"* && $out == *"}" ]] || fail "grade --json: not a JSON object on stdout: $out"
has "grade 1 --json" "$out" '"id": "01-naive-add"'
has "grade 1 --json" "$out" '"kernel_file": "chapters/01-naive-add/naive_add.cu"'
[[ $out == "$(cat "$WB_BUILD_DIR/grades.json")" ]] || fail "grade --json printed other than grades.json"
n=$(grep -c '^    {$' <<<"$out" || true)
[[ $n == "$(grep -c . "$WB_BUILD_DIR/chapters.txt")" ]] || fail "grade --json: $n entries, not one per chapter and exercise"

out=$(bash "$root/cmake/workbook.sh" grade naive --verbose 2>&1) || fail "grade naive --verbose exited with $?"
has "grade naive --verbose" "$out" "Randomness seeded to"
has "grade naive --verbose" "$out" "==== 01-naive-add (naive add) on the CPU backend ===="

rc=0; out=$(bash "$root/cmake/workbook.sh" grade nosuchchapter 2>&1) || rc=$?
[[ $rc == 2 ]] || fail "grade nosuchchapter: exit status $rc, expected 2"
has "grade nosuchchapter" "$out" "no chapter or exercise matches 'nosuchchapter'"

((failures == 0)) || exit 1
echo "all checks passed"
