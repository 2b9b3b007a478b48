#!/usr/bin/env bash
# On a machine with a GPU, compute-sanitizer and ncu: the command line's `check` and `profile` on
# chapter 03 with known kernels copied over the learner's file in turn, which is put back after:
#   check 03    with the racy transpose (mutant no_barrier): racecheck must report the race;
#   check 03    with the solution: all three tools clean;
#   profile 03  with the naive transpose (mutant naive) beside the solution: stores at ~32 sectors
#               per request against 4, and a far lower DRAM throughput.
# Output goes to stdout and, when $OUT is set, to $OUT/<step>.txt.
#   bash tests/cli/gpu_check_profile.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
f=chapters/03-coalescing/transpose.cu
solution=solutions/03-coalescing/transpose.cu
saved=$(mktemp)
cp "$f" "$saved"
trap 'cp "$saved" "$root/$f"; rm -f "$saved"' EXIT
out_dir=${OUT:-}
[[ -z $out_dir ]] || mkdir -p "$out_dir"

# A variant as the learner's file: the solution, or a mutant (patched at configure time into the
# build folder, else with GNU patch here), with its namespace renamed to the learner's.
install() {  # solution | <mutant name>
  local src=$solution tmp
  if [[ $1 != solution ]]; then
    src=build/gpu/variants/mutants/03-coalescing/$1/transpose.cu
    if [[ ! -f $src ]]; then
      tmp=$(mktemp)
      patch -s --fuzz=0 -o "$tmp" "$solution" "tests/mutants/03-coalescing/$1.patch"
      src=$tmp
    fi
  fi
  sed 's/namespace solution/namespace student/' "$src" >"$f"
}

step() {  # name variant command...
  local name=$1 variant=$2
  shift 2
  install "$variant"
  echo "=== $name: bash cmake/workbook.sh $* (chapter 03's file is the $variant)"
  if [[ -n $out_dir ]]; then
    WB_BACKEND=cuda bash cmake/workbook.sh "$@" 2>&1 | tee "$out_dir/$name.txt"
  else
    WB_BACKEND=cuda bash cmake/workbook.sh "$@" 2>&1
  fi
}

mkdir -p build
# Configured here directly, so that the GPU machine needs nothing of cmake/setup.sh.
cmake --preset gpu >build/gpu-configure.log 2>&1 || { cat build/gpu-configure.log; exit 1; }
export WB_NO_CONFIGURE=1
step check-racy no_barrier check 03
step check-solution solution check 03
step profile-naive naive profile 03
