#!/usr/bin/env bash
# The workbook's command line (docs/command-line.md shows each command at work; `help` lists them).
#   bash cmake/workbook.sh grade [NN ...]   grade your kernels (status, hint, watch, check, profile, reset)
#   bash cmake/workbook.sh test             the workbook's own test suite; docs: the rendered lessons
# This script only bootstraps: it picks the backend, sets up and configures the builds, builds the
# command (cli/, a C++ program) and runs it. It keeps to bash 3.2 (macOS) and POSIX tools.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x /usr/local/cuda/bin/nvcc ] && PATH="$PATH:/usr/local/cuda/bin"
jobs=${WB_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}

have_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU 0'; }
have_nvcc() { command -v nvcc >/dev/null; }

# configure PRESET WHAT [DIR]: sets up what WHAT needs (cmake/setup.sh), then configures the
# preset's build, unless it is configured with it already and neither the presets nor what setup
# found changed since (ninja re-runs CMake itself when a CMakeLists.txt changed).
configure() {
  d=${3:-$root/build/$1}
  case $d in /*) ;; *) d="$PWD/$d" ;; esac
  mkdir -p "$d"
  WB_PRESET=$1 bash "$root/cmake/setup.sh" "$2"
  mark="$d/wb-configured" stamp="$root/build/setup-$2.stamp"
  if [ -f "$mark" ] && [ -f "$d/build.ninja" ] && [ "$(cat "$mark")" = "$1" ] &&
     [ "$mark" -nt "$root/CMakePresets.json" ] && { [ ! -f "$stamp" ] || [ "$mark" -nt "$stamp" ]; }; then
    return 0
  fi
  rm -f "$mark"
  (cd "$root" && cmake --preset "$1" -B "$d") >"$d/configure.log" 2>&1 || { cat "$d/configure.log" >&2; exit 1; }
  echo "$1" >"$mark"
}

case ${1:-} in
  test)  # the CUDA backend too where it can run (a GPU), or where asked (WB_CUDA=ON: CI compiles it)
    shift
    p=cpu
    case ${WB_CUDA:-} in
      # Without a GPU the CUDA backend can only be compiled: the `ci` preset compiles its graders,
      # solutions and stubs for one architecture, not its copy of every variant.
      ON) have_nvcc || { echo "WB_CUDA=ON, but nvcc was not found" >&2; exit 2; }
          if have_gpu; then p=all; else p=ci; fi ;;
      OFF) ;;
      *) if have_gpu && have_nvcc; then p=all; fi ;;
    esac
    configure "$p" test
    cmake --build "$root/build/$p" -j "$jobs"
    exec ctest --test-dir "$root/build/$p" --output-on-failure -j "$jobs" "$@" ;;
  docs)
    configure cpu docs
    exec cmake --build "$root/build/cpu" --target docs ;;
esac

# The learner's commands: the program in build/cli (WB_CLI_BUILD_DIR), which needs only a compiler,
# CMake, Ninja, CLI11, nlohmann_json and libuv (status, hint and reset work before any backend is
# configured); WB_CLI names one built already (the test suite's).
backend=${WB_BACKEND:-}
if [ -z "$backend" ]; then
  if have_gpu && have_nvcc; then backend=cuda; else backend=cpu; fi
fi
case $backend in
  cpu|cuda) ;;
  *) echo "WB_BACKEND must be cpu or cuda" >&2; exit 2 ;;
esac
wb=${WB_CLI:-}
if [ -z "$wb" ]; then
  cli=${WB_CLI_BUILD_DIR:-$root/build/cli}
  mkdir -p "$cli"
  bash "$root/cmake/setup.sh" cli
  if [ ! -f "$cli/build.ninja" ]; then
    cmake -S "$root/cli" -B "$cli" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$cli/configure.log" 2>&1 ||
      { cat "$cli/configure.log" >&2; exit 1; }
  fi
  ninja -C "$cli" -j "$jobs" wb >"$cli/build.log" 2>&1 ||
    { cat "$cli/build.log" >&2; echo "the command (cli/) did not build: see above" >&2; exit 1; }
  wb="$cli/wb"
fi
if [ "$backend" = cpu ]; then preset=cpu; else preset=gpu; fi
case ${1:-} in  # the commands that build graders: the backend's build, configured
  grade|watch|check|profile) [ -n "${WB_NO_CONFIGURE:-}" ] || configure "$preset" grade "${WB_BUILD_DIR:-}" ;;
esac
WB_ROOT=$root WB_BACKEND=$backend WB_JOBS=$jobs exec "$wb" "$@"
