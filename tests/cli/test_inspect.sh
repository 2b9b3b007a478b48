#!/usr/bin/env bash
# check and profile, on both backends, with stand-ins for the graders, compute-sanitizer and
# Nsight Compute that print the recorded outputs in tests/cli/data/ (constructed from the tools'
# documented formats: see data/README.md). No GPU and no build needed.
source "$(dirname "$0")/lib.sh"
data="$cli_root/tests/cli/data"
fake_graded 03-coalescing
fake_graded 01-naive-add
mkdir -p "$scratch/bin" "$dir/grades"
fixture() { sed "s|@ROOT@|$root|g" "$data/$1"; }
cmake() { return 0; }  # every build succeeds
export WB_NO_CONFIGURE=1 PATH="$scratch/bin:$PATH"

# ---- the parsers, on the recorded outputs --------------------------------------------------------
fixture memcheck.log >"$scratch/memcheck.log"
fixture racecheck.log >"$scratch/racecheck.log"
fixture synccheck.log >"$scratch/synccheck.log"
out=$(sanitizer_summary memcheck "$scratch/memcheck.log")
expect_eq "memcheck summary" "$out" "memcheck:  7 errors: Invalid __global__ write of size 4 bytes at chapters/03-coalescing/transpose.cu:24 (by thread (0,3,0) in block (2,0,0))"
out=$(sanitizer_summary racecheck "$scratch/racecheck.log")
expect_eq "racecheck summary" "$out" "racecheck: 1 hazard (1 error, 0 warnings): Error: Race reported between Write access at chapters/03-coalescing/transpose.cu:19"
out=$(sanitizer_summary synccheck "$scratch/synccheck.log")
expect_eq "synccheck summary" "$out" "synccheck: clean (0 errors)"
echo "========= COMPUTE-SANITIZER" >"$scratch/cut.log"
out=$(sanitizer_summary memcheck "$scratch/cut.log")
expect_contains "a run without a summary line" "$out" "did not finish"

fixture ncu-yours.csv >"$scratch/yours.csv"
fixture ncu-solution.csv >"$scratch/solution.csv"
out=$(ncu_table "$scratch/yours.csv")
expect_eq "ncu: one row per kernel, its first launch" "$(wc -l <<<"$out")" 1
expect_eq "ncu row" "$out" $'transpose_kernel\t1.412\t12.5\t4.0\t32.0\t87.2\tlg_throttle (31.7 cycles per instruction)'
out=$(ncu_table "$scratch/solution.csv")
expect_eq "ncu row, microseconds, a template in an anonymous namespace" "$out" \
  $'transpose_kernel<32, 4>\t0.191\t80.0\t4.0\t4.0\t91.5\tlong_scoreboard (14.8 cycles per instruction)'

fixture emu-fault.log >"$scratch/emu.log"
out=$(emu_fault_summary "$scratch/emu.log")
expect_contains "emu races" "$out" "shared-memory races (as racecheck):         2 faults, the first: shared-memory race on \`tile\` (__shared__) at byte offset 4 (element [0][1] of 4 bytes): thread 1 read it at chapters/03-coalescing/transpose.cu:23; thread 32 writes it at chapters/03-coalescing/transpose.cu:19"$'\n'
expect_contains "emu bounds" "$out" "out-of-bounds or misaligned (as memcheck):  2 faults, the first: read of 4 bytes outside its array at chapters/03-coalescing/transpose.cu:18"
expect_contains "emu unwritten" "$out" "reads of unwritten shared memory:           1 fault, the first: read of \`tile\` at byte offset 132 (element 33 of 4 bytes), which no thread of the block has written, at chapters/03-coalescing/transpose.cu:23"
expect_contains "emu barriers" "$out" "barriers and warp masks (as synccheck):     none"
expect_contains "emu: failed cases" "$out" "also failed their checks"

fixture emu-profile.tsv >"$scratch/emu.tsv"
out=$(emu_profile_table "$scratch/emu.tsv")
expect_contains "emu profile: load line, summed" "$out" "chapters/03-coalescing/transpose.cu:18       load         192              4.0    4.0"
expect_contains "emu profile: store line, summed" "$out" "chapters/03-coalescing/transpose.cu:19       store        192             32.0    4.0"
expect_contains "emu profile: global table" "$out" "  transpose_kernel, global memory:"
expect_contains "emu profile: shared table" "$out" "  transpose_kernel, shared memory:"$'\n'"    line                                         access  requests   wavefronts/req  ideal"
expect_contains "emu profile: a bank conflict" "$out" "chapters/03-coalescing/transpose.cu:23       load         128             32.0    1.0"
expect_contains "emu profile: no bank conflict" "$out" "chapters/03-coalescing/transpose.cu:19       store        128              1.0    1.0"

expect_eq "catch_escape" "$(catch_escape 'c = a + b for sizes, [primes]')" 'c = a + b for sizes\, \[primes\]'

# ---- the GPU commands, end to end with stand-ins ------------------------------------------------
WB_BACKEND=cuda
wb_init
mkdir -p "$dir/grades"
for exe in grade-03-coalescing-cuda 03-coalescing.cuda.solution grade-01-naive-add-cuda; do
  cat >"$dir/$exe" <<'EOF'
#!/usr/bin/env bash
if [[ $1 == --list-tests ]]; then
  [[ $2 == '[racecheck]' && $0 == *03-coalescing* ]] && echo "small transposes for compute-sanitizer racecheck"
  [[ $2 == '[correctness]' ]] && printf '%s\n' "c = a + b for sizes around the block size, primes and about a million" "an empty array"
  exit 0
fi
echo "grader ran with: $*"
EOF
  chmod +x "$dir/$exe"
done
cat >"$scratch/bin/compute-sanitizer" <<EOF
#!/usr/bin/env bash
[[ \$1 == --tool ]] || exit 99
echo "compute-sanitizer \$*" >>"$scratch/sanitizer-calls"
sed "s|@ROOT@|$root|g" "$data/\$2.log"
[[ \$2 == synccheck ]] || exit 86
EOF
cat >"$scratch/bin/ncu" <<EOF
#!/usr/bin/env bash
echo "ncu \$*" >>"$scratch/ncu-calls"
while (( \$# )); do
  case \$1 in --log-file) log=\$2; shift ;; esac
  last=\$1; shift
done
which=yours; [[ \$(cat "$scratch/ncu-calls") == *solution* && \$(wc -l <"$scratch/ncu-calls") -gt 1 ]] && which=solution
sed "s|@ROOT@|$root|g" "$data/ncu-\$which.csv" >"\$log"
EOF
chmod +x "$scratch/bin/compute-sanitizer" "$scratch/bin/ncu"

out=$(cmd_check 3 2>&1)
expect_contains "check 03: memcheck line" "$out" "  memcheck:  7 errors: Invalid __global__ write of size 4 bytes at chapters/03-coalescing/transpose.cu:24"
expect_contains "check 03: racecheck line" "$out" "  racecheck: 1 hazard (1 error, 0 warnings): Error: Race reported between Write access at chapters/03-coalescing/transpose.cu:19"
expect_contains "check 03: synccheck line" "$out" "  synccheck: clean (0 errors)"
calls=$(cat "$scratch/sanitizer-calls")
expect_contains "check 03 runs the small racecheck cases" "$calls" "--tool racecheck --error-exitcode 86 --print-limit 20 $dir/grade-03-coalescing-cuda [racecheck]"
expect_eq "check runs three tools" "$(wc -l <"$scratch/sanitizer-calls")" 3
rm -f "$scratch/sanitizer-calls"
out=$(WB_PRINT_COMMAND=1 cmd_check 1 2>&1)
expect_contains "check 01: the first correctness case, escaped" "$out" \
  "compute-sanitizer --tool memcheck --error-exitcode 86 --print-limit 20 $dir/grade-01-naive-add-cuda c = a + b for sizes around the block size\\, primes and about a million"
[[ ! -f $scratch/sanitizer-calls ]] || fail "WB_PRINT_COMMAND ran compute-sanitizer"

out=$(cmd_profile 3 2>&1)
expect_contains "profile: header" "$out" "yours                      solution"
expect_contains "profile: kernels" "$out" "kernel                           transpose_kernel           transpose_kernel<32, 4>"
expect_contains "profile: DRAM" "$out" "DRAM throughput (% of peak)      12.5                       80.0"
expect_contains "profile: loads" "$out" "global loads: sectors/request    4.0                        4.0"
expect_contains "profile: stores" "$out" "global stores: sectors/request   32.0                       4.0"
expect_contains "profile: occupancy" "$out" "achieved occupancy (%)           87.2                       91.5"
expect_contains "profile: stall" "$out" "top warp stall                   lg_throttle (31.7 cycles per instruction) long_scoreboard (14.8 cycles per instruction)"
calls=$(cat "$scratch/ncu-calls")
expect_contains "profile: ncu's options" "$calls" "ncu --clock-control none --kernel-name-base demangled --kernel-name regex:student:: --launch-count 4 --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,"
expect_contains "profile: the solution's grader" "$calls" "$dir/03-coalescing.cuda.solution [timing]"
out=$(WB_PRINT_COMMAND=1 cmd_profile 3 2>&1)
expect_contains "profile --print-command" "$out" "   ncu --clock-control none --kernel-name-base demangled"

# ---- the CPU backend: the instrumented graders ---------------------------------------------------
WB_BACKEND=cpu
wb_init
mkdir -p "$dir/grades"
cat >"$dir/inspect-03-coalescing-cpu" <<EOF
#!/usr/bin/env bash
if [[ \$1 == --list-tests ]]; then [[ \$2 == '[racecheck]' ]] && echo "small transposes"; exit 0; fi
sed "s|@ROOT@|$root|g" "$data/emu-fault.log"
[[ -n \${WB_EMU_PROFILE:-} ]] && sed "s|@ROOT@|$root|g" "$data/emu-profile.tsv" >>"\$WB_EMU_PROFILE"
exit 1
EOF
cp "$dir/inspect-03-coalescing-cpu" "$dir/inspect-03-coalescing-solution-cpu"
chmod +x "$dir"/inspect-*
out=$(cmd_check coalescing 2>&1)
expect_contains "check on the CPU backend: races" "$out" "  shared-memory races (as racecheck):         2 faults"
expect_contains "check on the CPU backend: says so" "$out" "CPU backend: what a GPU's compute-sanitizer would find"
out=$(cmd_profile 3 2>&1)
expect_contains "profile on the CPU backend: yours" "$out" "yours ([racecheck]), per source line"
expect_contains "profile on the CPU backend: solution" "$out" "solution ([racecheck]), per source line"
expect_contains "profile on the CPU backend: a line" "$out" "chapters/03-coalescing/transpose.cu:19       store        192             32.0    4.0"
expect_not_contains "profile on the CPU backend: no times" "$out" "duration"
# A grader with a [coalescing] case: profile runs that one (what its verdict counts).
sed -i 's/\[\[ \$2 == .\[racecheck\]. \]\]/[[ $2 == "[racecheck]" || $2 == "[coalescing]" ]]/' "$dir/inspect-03-coalescing-cpu"
grep -q coalescing "$dir/inspect-03-coalescing-cpu" || fail "the stand-in grader was not given a [coalescing] case"
out=$(cmd_profile 3 2>&1)
expect_contains "profile on the CPU backend: the coalescing case first" "$out" "yours ([coalescing]), per source line"

# A chapter this backend does not build (CUDA only, or no libtorch): said.
cmake() { echo "ninja: error: unknown target 'inspect-03-coalescing-cpu'"; return 1; }
out=$(cmd_profile 3 2>&1)
expect_contains "profile of a chapter skipped here" "$out" "03-coalescing has no inspect-03-coalescing-cpu on this backend: it is graded as skipped here"

# A file that does not compile: said, and nothing run.
cmake() { echo "$root/chapters/03-coalescing/kernel.cu:7:1: error: expected declaration"; return 1; }
out=$(cmd_check 3 2>&1)
expect_contains "check of a file that does not compile" "$out" "inspect-03-coalescing-cpu does not compile: chapters/03-coalescing/kernel.cu:7:1: error: expected declaration"
finish
