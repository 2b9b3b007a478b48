# Shared by the command line's tests (tests/cli/test_*.sh): sources cmake/workbook.sh (its
# functions only) with a scratch build folder, and gives small assertions.
#   source tests/cli/lib.sh   (from a test script; the repository root is two folders up)
set -euo pipefail
cli_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/wb-cli.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export WB_BACKEND=cpu WB_BUILD_DIR="$scratch/build" WB_STATE_DIR="$scratch/state"
# shellcheck source=../../cmake/workbook.sh
source "$cli_root/cmake/workbook.sh"
wb_init
mkdir -p "$dir"
failures=0

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
