# Shared by the command line's tests (tests/cli/test_*.sh): copies cmake/workbook.sh into a scratch
# repository (so that commands which write learner files write there), sources it (its functions
# only) with a scratch build folder, and gives small assertions. fake_graded ID adds a chapter or
# exercise folder with a stub and a page of hints; verdict FILE ARGS... writes a verdict document
# (wb-verdicts write's arguments).
#   source tests/cli/lib.sh   (from a test script; the repository root is two folders up)
set -euo pipefail
cli_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/wb-cli.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# The real build's reader and writer of verdicts (the suite's build folder, WB_BUILD_DIR): the
# command reads every verdict through it, and the stand-in graders write theirs with it.
export WB_VERDICTS=${WB_VERDICTS:-${WB_BUILD_DIR:-$cli_root/build/cpu}/cli/wb-verdicts}
[[ -x $WB_VERDICTS ]] || { echo "tests/cli: $WB_VERDICTS is not built (cmake --build <build> --target wb-verdicts)" >&2; exit 1; }
export WB_BACKEND=cpu WB_BUILD_DIR="$scratch/repo/build/cpu"
unset WB_STATE_DIR
mkdir -p "$scratch/repo/cmake"
cp "$cli_root/cmake/workbook.sh" "$scratch/repo/cmake/"
# shellcheck source=../../cmake/workbook.sh
source "$scratch/repo/cmake/workbook.sh"
wb_init
mkdir -p "$dir"
failures=0

fake_graded() {  # id [number of hints]
  local d="$root/$(src_dir "$1")" i
  mkdir -p "$d"
  printf '// %s: your file\n// TODO: the kernel\n' "$1" >"$d/kernel.cu"
  {
    echo "# $1"
    echo
    echo "## Hints"
    for ((i = 1; i <= ${2:-3}; i++)); do
      printf '\n<details><summary>Hint %d: step %d</summary>\n\nThe text of hint %d.\nIts second line.\n\n</details>\n' "$i" "$i" "$i"
    done
    printf '\n<details><summary>The solution, step by step (try the hints first)</summary>\n\nno peeking\n\n</details>\n'
  } >"$d/README.md"
  echo "$1" >>"$dir/chapters.txt"
}

verdict() {  # file wb-verdicts-write-arguments...
  local f=$1
  shift
  "$WB_VERDICTS" write "$f" "$@"
}

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
expect_contains() {  # what text needle
  [[ $2 == *"$3"* ]] || fail "$1: expected to contain '$3', got: $2"
}
expect_not_contains() {  # what text needle
  [[ $2 != *"$3"* ]] || fail "$1: expected not to contain '$3', got: $2"
}
expect_eq() {  # what got want
  [[ $2 == "$3" ]] || fail "$1: expected '$3', got '$2'"
}
finish() {
  if ((failures)); then
    echo "$failures check(s) failed" >&2
    exit 1
  fi
  echo "all checks passed"
}
