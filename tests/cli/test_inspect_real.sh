#!/usr/bin/env bash
# check's and profile's readers of the CPU backend's output, on the real thing: the test suite's
# own graders of chapter 03's planted bugs (built instrumented, in WB_BUILD_DIR), so that a change
# in the backend's messages or its WB_EMU_PROFILE rows shows here.
set -euo pipefail
export WB_BACKEND=cpu
source "$(dirname "$0")/../../cmake/workbook.sh"
: "${WB_BUILD_DIR:?set WB_BUILD_DIR to a build folder with the CPU backend}"
wb_init
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
has() { [[ $2 == *"$3"* ]] || fail "$1: no '$3' in: $2"; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The tile read with no __syncthreads() after it is filled: a race, with both lines.
{ WB_SANITIZER_CHILD=1 "$dir/03-coalescing.cpu.mutants.no_barrier" '[racecheck]' 2>&1 || true; } >"$scratch/race.log"
out=$(emu_fault_summary "$scratch/race.log")
has "race" "$out" "shared-memory races (as racecheck):"
[[ $out =~ racecheck\):\ +[0-9]+\ faults?,\ the\ first:\ shared-memory\ race\ on\ .tile.*read\ it\ at\ [^\ ]*transpose.cu:[0-9]+\;\ thread\ [0-9]+\ writes\ it\ at ]] ||
  fail "the race, with the reading and the writing line: $out"
has "race: nothing else" "$out" "barriers and warp masks (as synccheck):     none"

# The solution: no fault of any kind.
{ WB_SANITIZER_CHILD=1 "$dir/03-coalescing.cpu.solution" '[racecheck]' 2>&1 || true; } >"$scratch/clean.log"
out=$(emu_fault_summary "$scratch/clean.log")
[[ $(grep -c ' none$' <<<"$out") == 3 ]] || fail "the solution: three kinds, none found: $out"

# Sectors per request per line: the naive transpose's stores take a sector per thread.
WB_EMU_PROFILE="$scratch/naive.tsv" "$dir/03-coalescing.cpu.mutants.naive" '[coalescing]' >/dev/null 2>&1 || true
out=$(emu_profile_table "$scratch/naive.tsv")
[[ $out =~ transpose.cu:[0-9]+\ +store\ +[0-9]+\ +32\.0\ +4\.0 ]] || fail "naive stores: 32.0 sectors per request, ideal 4.0: $out"
[[ $out =~ transpose.cu:[0-9]+\ +load\ +[0-9]+\ +4\.0\ +4\.0 ]] || fail "naive loads: 4.0 sectors per request: $out"
WB_EMU_PROFILE="$scratch/solution.tsv" "$dir/03-coalescing.cpu.solution" '[coalescing]' >/dev/null 2>&1 || true
out=$(emu_profile_table "$scratch/solution.tsv")
[[ $out =~ transpose.cu:[0-9]+\ +store\ +[0-9]+\ +4\.0\ +4\.0 ]] || fail "the solution's stores: 4.0 sectors per request: $out"

# Bank conflicts per line: the tile without its padding column is read down a column, 32 ways.
WB_EMU_PROFILE="$scratch/unpadded.tsv" "$dir/03-coalescing.cpu.mutants.unpadded_tile" '[coalescing]' >/dev/null 2>&1 || true
out=$(emu_profile_table "$scratch/unpadded.tsv")
has "unpadded tile" "$out" "transpose_kernel, shared memory:"
[[ $out =~ transpose.cu:[0-9]+\ +load\ +[0-9]+\ +32\.0\ +1\.0 ]] || fail "unpadded tile: a 32-way conflict on its loads: $out"
out=$(emu_profile_table "$scratch/solution.tsv")
[[ $out =~ transpose.cu:[0-9]+\ +load\ +[0-9]+\ +1\.0\ +1\.0 ]] || fail "the solution's padded tile: no bank conflict: $out"

((failures == 0)) || exit 1
echo "all checks passed"
