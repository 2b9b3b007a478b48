#!/usr/bin/env bash
# status, hint and reset in a scratch repository; and the hints' markup on every real page.
source "$(dirname "$0")/lib.sh"

fake_graded 01-naive-add 3
fake_graded 02-grid-stride 2
fake_graded 03-coalescing 1
fake_graded x01-histogram 2
fake_graded x02-scan 1
g="$dir/grades"
mkdir -p "$g"

# ---- status: one row per chapter and exercise, from the verdict documents; nothing built -------
verdict "$g/01-naive-add.json" --id 01-naive-add --kind correct \
  --speed "1.02x the solution: at the solution's speed (2^28 floats: 3500 GB/s)"
verdict "$g/02-grid-stride.json" --id 02-grid-stride --kind wrong --detail "only the first 256 elements are right"
echo "0.41x the solution: much slower than the solution" >"$g/02-grid-stride.speed"
verdict "$g/03-coalescing.json" --id 03-coalescing --kind "too slow" --detail "not coalesced"
verdict "$g/x01-histogram.json" --id x01-histogram --kind crashed --detail 'SIGSEGV in "a large input"'
touch -d '-4 hours' "$root"/chapters/*/kernel.cu "$root"/exercises/*/kernel.cu
touch -d '-3 hours' "$g"/*.json "$g"/*.speed
touch "$root/chapters/03-coalescing/kernel.cu"  # edited since its last grade
cmake() { fail "status must not build (cmake $*)"; }
out=$(cmd_status)
expect_contains "status header" "$out" "chapter            verdict           why / last speed"
expect_contains "status correct" "$out" "01-naive-add       correct           1.02x the solution: at the solution's speed (2^28 floats: 3500 GB/s) (graded 3 h ago)"
expect_contains "status wrong, last speed" "$out" "02-grid-stride     wrong             only the first 256 elements are right; last timed 3 h ago: 0.41x the solution"
expect_contains "status too slow, edited since" "$out" "03-coalescing      too slow          not coalesced (graded 3 h ago, file changed since)"
expect_contains "status crashed" "$out" "x01-histogram      crashed           SIGSEGV"
expect_contains "status not graded" "$out" "x02-scan           not graded        run: bash cmake/workbook.sh grade x02"
expect_contains "status tally" "$out" "1 of 5 correct; 1 not graded yet."
mkdir -p "$root/build/gpu/grades"
verdict "$root/build/gpu/grades/01-naive-add.json" --id 01-naive-add --kind correct --speed "0.98x the solution"
out=$(WB_BUILD_DIR= cmd_status)
expect_contains "status: the other backend's grades" "$out" "Grades on the GPU are kept apart: WB_BACKEND=cuda bash cmake/workbook.sh status"
out=$(cmd_status hist)
expect_contains "status NN" "$out" "x01-histogram"
expect_not_contains "status NN: only that one" "$out" "01-naive-add "

# ---- hint: one at a time, remembered, then the end -----------------------------------------------
out=$(cmd_hint 1)
expect_contains "hint 1" "$out" "Hint 1 of 3 for 01-naive-add: step 1"
expect_contains "hint 1 text" "$out" "  The text of hint 1."$'\n'"  Its second line."
expect_contains "hint 1 left" "$out" "2 more hints: bash cmake/workbook.sh hint 01"
expect_not_contains "hint 1 alone" "$out" "hint 2"
out=$(cmd_hint naive)
expect_contains "hint: the next one is remembered" "$out" "Hint 2 of 3 for 01-naive-add: step 2"
expect_contains "hint 2 left" "$out" "1 more hint: bash cmake/workbook.sh hint 01"
out=$(cmd_hint 01)
expect_contains "hint 3" "$out" "Hint 3 of 3 for 01-naive-add: step 3"
expect_contains "hint 3: the last" "$out" "That was the last hint."
out=$(cmd_hint 01)
expect_contains "no hints left" "$out" "All 3 hints of 01-naive-add are shown"
expect_not_contains "never the solution" "$out" "no peeking"
out=$(cmd_hint 01 2)
expect_contains "hint N again" "$out" "Hint 2 of 3 for 01-naive-add: step 2"
out=$(cmd_hint x01)
expect_contains "hints per chapter" "$out" "Hint 1 of 2 for x01-histogram: step 1"
out=$(cmd_hint 01 --reset)
expect_contains "hint --reset" "$out" "the next bash cmake/workbook.sh hint 01 shows hint 1 of 3"
out=$(cmd_hint 01)
expect_contains "after --reset" "$out" "Hint 1 of 3 for 01-naive-add: step 1"
out=$( (cmd_hint 01 7) 2>&1) && fail "hint 01 7 must fail" || expect_contains "hint out of range" "$out" "hints 1 to 3"
[[ -f $root/build/hints/01-naive-add ]] || fail "the hints shown are not kept in the build folder"

# ---- reset: asks, keeps a backup, restores the pristine copy -------------------------------------
k="$root/chapters/01-naive-add/kernel.cu"
mkdir -p "$root/tests/stubs/01-naive-add" "$root/tests/stubs/exercises/01-histogram" "$dir/pristine/x02-scan"
cp "$k" "$root/tests/stubs/01-naive-add/kernel.cu"
echo "my work" >"$k"
out=$(echo n | cmd_reset 1)
expect_contains "reset asks" "$out" "Replace chapters/01-naive-add/kernel.cu with the stub?"
expect_contains "reset: no" "$out" "Nothing changed."
expect_eq "reset: no keeps the file" "$(cat "$k")" "my work"
out=$(echo y | cmd_reset 1)
expect_contains "reset: yes" "$out" "chapters/01-naive-add/kernel.cu is the stub again"
cmp -s "$k" "$root/tests/stubs/01-naive-add/kernel.cu" || fail "reset did not restore the stub"
backup=$(ls "$root"/build/backups/01-naive-add/kernel.cu.* 2>/dev/null | head -n1)
[[ -n $backup ]] && expect_eq "reset's backup" "$(cat "$backup")" "my work" || fail "reset kept no backup"
out=$(cmd_reset 1 --yes </dev/null)
expect_contains "reset of the stub" "$out" "already the stub"
echo "more work" >"$k"
out=$(cmd_reset naive --yes </dev/null)
expect_contains "reset --yes asks nothing" "$out" "is the stub again"
expect_not_contains "reset --yes" "$out" "[y/N]"
rm "$k"
out=$(cmd_reset 1 </dev/null)
expect_contains "reset of a deleted file" "$out" "was missing: it is the stub again"
cmp -s "$k" "$root/tests/stubs/01-naive-add/kernel.cu" || fail "reset did not restore a deleted file"
# An exercise's pristine copy is under tests/stubs/exercises/; an older build's copy is used too.
echo "stub x01" >"$root/tests/stubs/exercises/01-histogram/kernel.cu"
out=$(cmd_reset hist --yes)
expect_eq "reset of an exercise" "$(cat "$root/exercises/01-histogram/kernel.cu")" "stub x01"
echo "stub x02" >"$dir/pristine/x02-scan/kernel.cu"
out=$(cmd_reset x2 --yes)
expect_eq "reset from the build's copy" "$(cat "$root/exercises/02-scan/kernel.cu")" "stub x02"
out=$( (cmd_reset 2 --yes) 2>&1) && fail "reset without a pristine copy must fail" || true
expect_contains "reset without a pristine copy" "$out" "no pristine copy"

# ---- every real chapter's and exercise's hints: numbered 1..N, each closed, none empty ---------
for page in "$cli_root"/chapters/*/README.md "$cli_root"/exercises/[0-9]*/README.md; do
  nums=$(grep -oE '^<details><summary>Hint [0-9]+: ' "$page" | grep -oE '[0-9]+' | tr '\n' ' ')
  [[ -n $nums ]] || continue
  want=$(seq -s ' ' 1 "$(wc -w <<<"$nums")")
  expect_eq "${page#"$cli_root/"}: hints numbered 1..N" "$nums" "$want "
  opened=$(grep -c '^<details>' "$page")
  closed=$(grep -c '^</details>' "$page")
  expect_eq "${page#"$cli_root/"}: every <details> closed on its own line" "$closed" "$opened"
  folder=$(dirname "${page#"$cli_root/"}")
  for n in $nums; do
    id=$(basename "$folder"); [[ $folder == exercises/* ]] && id="x$id"
    text=$(root=$cli_root hint_text "$id" "$n")
    (($(wc -l <<<"$text") >= 2)) || fail "$folder: hint $n has no text"
  done
done

finish
