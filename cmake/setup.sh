#!/usr/bin/env bash
# Finds, or installs, what one workbook command needs, and nothing it does not:
#   bash cmake/setup.sh grade   to build and grade: a C++17 compiler, CMake >= 3.24, Ninja, Catch2 v3,
#                               nlohmann_json (the verdicts' JSON), CLI11 (the command's arguments),
#                               libuv (the command's processes and file watching),
#                               Boost.Context (the CPU backend's fibers; not with WB_PRESET=gpu, the
#                               CUDA backend alone);
#                               and for chapter 05 (optional) torch and pytest in the project's
#                               virtual environment, .venv
#   bash cmake/setup.sh test    grade's, and GNU patch (the test suite's planted bugs are patches);
#                               Doxygen and Graphviz where they can be installed (the docs tests)
#   bash cmake/setup.sh docs    grade's build tools (not torch), Doxygen and Graphviz
#   bash cmake/setup.sh cli     the learner's command alone (cli/: a C++17 compiler, CMake, Ninja,
#                               CLI11, nlohmann_json, libuv): status, hint and reset need no more
#   bash cmake/setup.sh all     all of them (the default)
#   ... --check                 only check: exit 1 and print what to install if anything required is missing
# Missing packages: as root on Debian/Ubuntu it installs them with apt-get (Catch2 v3 from
# bookworm-backports on bookworm); otherwise it stops and prints the exact command to run.
# torch: a python3 that imports torch and pytest already is used as it is; otherwise
# `python3 -m venv --system-site-packages .venv` (so a torch already installed for python3 is
# used as it is), then pip installs torch and pytest into .venv when they are missing there; CMake
# uses .venv/bin/python3 when it exists (cmake/WorkbookTorch.cmake). Without torch, chapter 05 is
# reported skipped and nothing else changes; WB_TORCH=OFF skips it. The CUDA toolkit is optional:
# without nvcc only the CPU backend is built.
# A run that found everything remembers it in build/setup-<what>.stamp, keyed on the tools' paths
# and modification times: later runs return at once while those are unchanged (WB_SETUP=force
# checks again).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

what=all check_only=0
for arg in "$@"; do
  case $arg in
    grade|test|docs|all|cli) what=$arg ;;
    --check) check_only=1 ;;
    *) echo "setup: unknown argument '$arg' (grade, test, docs, cli or all; --check)" >&2; exit 2 ;;
  esac
done
venv=${WB_VENV:-$root/.venv}
need_torch=0
[[ $what == grade || $what == test || $what == all ]] && [[ ${WB_TORCH:-ON} != OFF ]] && need_torch=1

# ---- the cache ----
stamp=$root/build/setup-$what.stamp
# What the last complete check saw: every tool's path and time, Catch2's config, the venv's python
# and the torch and pytest files it found (listed in the stamp's second line), the package
# database, this script. Only stat and glob here: no tool is run.
cache_key() {  # the files chapter 05's step found
  local files=("$root/cmake/setup.sh" /var/lib/dpkg/status "$@") t p
  for t in cmake ninja c++ patch doxygen dot python3; do
    p=$(type -P "$t" || true)
    files+=("${p:-/nonexistent/$t}")
  done
  files+=("$venv/bin/python3" /usr/lib/cmake/Catch2/Catch2Config.cmake /usr/lib/*/cmake/Catch2/Catch2Config.cmake
          /usr/local/lib/cmake/Catch2/Catch2Config.cmake /usr/local/lib/*/cmake/Catch2/Catch2Config.cmake
          /usr/lib/*/cmake/boost_context-*/boost_context-config.cmake
          /usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake /usr/share/cmake/CLI11/CLI11Config.cmake
          /usr/include/uv.h /usr/local/include/uv.h /opt/homebrew/include/uv.h)
  echo "$what ${WB_TORCH:-ON} ${WB_PRESET:-} $venv ${CMAKE_PREFIX_PATH:-}"
  # GNU stat (Linux) or BSD stat (macOS); missing files print nothing either way.
  if stat -c %Y / >/dev/null 2>&1; then
    stat -L -c '%n %Y' "${files[@]}" 2>/dev/null || true
  else
    stat -L -f '%N %m' "${files[@]}" 2>/dev/null || true
  fi
}
if ((!check_only)) && [[ ${WB_SETUP:-} != force && -f $stamp ]]; then
  read -r -a found < <(sed -n 2p "$stamp") || true
  [[ $(sed -n '3,$p' "$stamp") == "$(cache_key "${found[@]}")" ]] && exit 0
fi

# ---- what is missing ----
have_catch2() {
  # Catch2 v3 ships Catch2Config.cmake and catch_all.hpp; v2 ships neither.
  local d
  for d in /usr/lib/*/cmake/Catch2 /usr/lib/cmake/Catch2 /usr/local/lib/cmake/Catch2 \
           /usr/local/lib/*/cmake/Catch2 /usr/share/cmake/Catch2 /opt/homebrew/lib/cmake/Catch2; do
    [[ -f "$d/Catch2Config.cmake" ]] && return 0
  done
  [[ -n "${CMAKE_PREFIX_PATH:-}" ]] && for d in ${CMAKE_PREFIX_PATH//;/ }; do
    [[ -f "$d/include/catch2/catch_all.hpp" ]] && return 0
  done
  return 1
}

have_boost_context() {
  # Boost.Context's CMake package (Debian: libboost-context-dev; Homebrew: boost).
  local d prefixes=${CMAKE_PREFIX_PATH:-}
  for d in /usr/lib/*/cmake /usr/lib/cmake /usr/local/lib/cmake /usr/local/lib/*/cmake \
           /opt/homebrew/lib/cmake ${prefixes//;/ }; do
    compgen -G "$d/boost_context-*/boost_context-config.cmake" >/dev/null && return 0
    compgen -G "$d/lib/cmake/boost_context-*/boost_context-config.cmake" >/dev/null && return 0
  done
  return 1
}

# have_cmake_package NAME HEADER: NAME's CMake package config (Debian puts header-only libraries'
# in /usr/share/cmake), or its HEADER under a CMAKE_PREFIX_PATH entry (a GPU machine's own prefix).
have_cmake_package() {
  local d prefixes=${CMAKE_PREFIX_PATH:-}
  for d in /usr/share/cmake /usr/lib/cmake /usr/lib/*/cmake /usr/local/share/cmake /usr/local/lib/cmake \
           /usr/local/lib/*/cmake /opt/homebrew/share/cmake /opt/homebrew/lib/cmake; do
    [[ -f "$d/$1/$1Config.cmake" || -f "$d/$1/$1-config.cmake" ]] && return 0
  done
  for d in ${prefixes//;/ }; do
    [[ -f "$d/include/$2" ]] && return 0
  done
  return 1
}

# libuv's header (Debian's libuv1-dev ships no CMake package; cli/CMakeLists.txt finds uv.h and the library).
have_libuv() {
  local d prefixes=${CMAKE_PREFIX_PATH:-}
  for d in /usr /usr/local /opt/homebrew ${prefixes//[;:]/ }; do
    [[ -f "$d/include/uv.h" ]] && return 0
  done
  return 1
}

cmake_ok() {
  command -v cmake >/dev/null || return 1
  local v; v=$(cmake --version | head -n1); v=${v##* }
  [[ "$(printf '%s\n3.24\n' "$v" | sort -V | head -n1)" == "3.24" ]]
}

# The Debian packages this command needs and lacks.
missing() {
  cmake_ok                         || echo cmake
  command -v ninja >/dev/null      || echo ninja-build
  command -v c++ >/dev/null        || echo g++
  have_cmake_package nlohmann_json nlohmann/json.hpp || echo nlohmann-json3-dev
  have_cmake_package CLI11 CLI/CLI.hpp               || echo libcli11-dev
  have_libuv                                         || echo libuv1-dev
  [[ $what == cli ]] && return 0
  have_catch2                      || echo libcatch2-dev
  # The CPU backend's fibers; the CUDA backend alone (WB_PRESET=gpu) needs no Boost.
  [[ ${WB_PRESET:-} == gpu ]] || have_boost_context || echo libboost-context-dev
  if [[ $what == test || $what == all ]]; then
    command -v patch >/dev/null    || echo patch
  fi
  if [[ $what == docs || $what == all ]]; then
    command -v doxygen >/dev/null  || echo doxygen
    command -v dot >/dev/null      || echo graphviz
  fi
}

apt_command() {  # packages...: the command that installs them, as root or with sudo
  local pkgs=("${@/libcatch2-dev/libcatch2-dev/bookworm-backports}")
  grep -qs 'VERSION_CODENAME=bookworm' /etc/os-release || pkgs=("$@")
  echo "sudo apt-get update && sudo apt-get install -y ${pkgs[*]}"
}

explain() {  # packages...
  echo "setup: \`$what\` needs: $*" >&2
  if grep -qs 'VERSION_CODENAME=bookworm' /etc/os-release && [[ " $* " == *" libcatch2-dev "* ]]; then
    echo "setup: on Debian bookworm, Catch2 v3 is in bookworm-backports: add that suite of your mirror to your apt sources," >&2
    echo "  e.g. the line 'deb <your bookworm mirror> bookworm-backports main' in /etc/apt/sources.list.d/backports.list" >&2
  fi
  echo "setup: install them, e.g.:" >&2
  echo "  $(apt_command "$@")" >&2
  echo "setup: on macOS with Homebrew: brew install cmake ninja catch2 nlohmann-json cli11 libuv boost doxygen graphviz" >&2
  echo "setup: or elsewhere: CMake >= 3.24, Ninja, a C++17 compiler, Catch2 v3, nlohmann_json 3, CLI11 2, libuv, Boost.Context (grade); GNU patch (test); Doxygen, Graphviz (docs)" >&2
}

can_apt() { ((!check_only)) && [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; }

apt_install() {  # packages...
  export DEBIAN_FRONTEND=noninteractive
  local pkgs=() p
  for p in "$@"; do
    if [[ $p == libcatch2-dev ]] && grep -qs 'VERSION_CODENAME=bookworm' /etc/os-release; then
      # bookworm's own libcatch2-dev is v2; v3 comes from backports.
      if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
        # The same mirror as this machine's own bookworm sources (no host is written here).
        local mirror
        mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)
        [[ -n $mirror ]] || mirror=$(sed -n 's/^deb  *\([^ []*\) .*/\1/p' /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1)
        [[ -n $mirror ]] || { echo "setup: no Debian mirror in this machine's apt sources for bookworm-backports" >&2; exit 1; }
        echo "deb $mirror bookworm-backports main" > /etc/apt/sources.list.d/workbook-backports.list
      fi
      pkgs+=(libcatch2-dev/bookworm-backports)
    else
      pkgs+=("$p")
    fi
  done
  echo "setup: installing ${pkgs[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
}

# Chapter 05: torch and pytest in the project's venv. PyPI's Linux torch wheel comes with its CUDA
# libraries: about 3 GB to download, 5 GB installed. Optional: on failure it says why, and
# chapter 05 is reported skipped. Sets `found` to the files of torch and pytest it found (for the
# cache key).
torch_step() {
  # A python3 that already has both (a GPU machine's own environment, itself often a venv whose
  # packages a new --system-site-packages venv would not see) is used as it is: no venv, no pip.
  if [[ ! -x $venv/bin/python3 ]] && command -v python3 >/dev/null && python3 -c 'import torch.utils, pytest' 2>/dev/null; then
    read -r -a found < <(python3 -c 'import os, pytest, torch.version
print(os.path.realpath(torch.version.__file__), os.path.realpath(pytest.__file__))' 2>/dev/null) || true
    return 0
  fi
  if [[ ! -x $venv/bin/python3 ]]; then
    if ! command -v python3 >/dev/null; then
      echo "setup: no python3: chapter 05 will be reported skipped (install python3 and python3-venv for it)" >&2
      return 0
    fi
    if ! python3 -c 'import ensurepip' 2>/dev/null; then  # Debian ships venv's pip in python3-venv
      if can_apt; then
        apt_install python3-venv
      else
        echo "setup: optional, for chapter 05: a Python venv needs python3-venv; until it is installed, chapter 05 is reported skipped:" >&2
        echo "  $(apt_command python3-venv)" >&2
        return 0
      fi
    fi
    ((check_only)) && { echo "setup: optional, for chapter 05: bash cmake/setup.sh grade (makes $venv with torch and pytest)" >&2; return 0; }
    echo "setup: making the Python venv $venv for chapter 05"
    python3 -m venv --system-site-packages "$venv" >&2 || {
      echo "setup: could not make $venv: chapter 05 will be reported skipped" >&2; rm -rf "$venv"; return 0; }
  fi
  local py=$venv/bin/python3 want=()
  "$py" -c 'import torch.utils' 2>/dev/null || want+=(torch)
  "$py" -c 'import pytest' 2>/dev/null || want+=(pytest)
  if ((${#want[@]})); then
    if ((check_only)); then
      echo "setup: optional, for chapter 05: $py -m pip install ${want[*]}" >&2
      return 0
    fi
    echo "setup: installing ${want[*]} into $venv with pip (chapter 05; torch is a download of about 3 GB)"
    "$py" -m pip install --quiet "${want[@]}" >&2 ||
      { echo "setup: could not install ${want[*]}: chapter 05 will be reported skipped" >&2; return 0; }
  fi
  read -r -a found < <("$py" -c 'import os, pytest, torch.version
print(os.path.realpath(torch.version.__file__), os.path.realpath(pytest.__file__))' 2>/dev/null) || true
}

need=()
while IFS= read -r p; do need+=("$p"); done < <(missing)
if ((${#need[@]})); then
  if ! can_apt; then
    explain "${need[@]}"
    exit 1
  fi
  apt_install "${need[@]}"
  need=()
  while IFS= read -r p; do need+=("$p"); done < <(missing)
  if ((${#need[@]})); then explain "${need[@]}"; exit 1; fi
fi
# Optional for the test suite: Doxygen and Graphviz render the docs for its docs tests, which are
# reported skipped without them.
if [[ $what == test ]] && ! { command -v doxygen && command -v dot; } >/dev/null; then
  if can_apt; then
    apt_install doxygen graphviz || echo "setup: could not install doxygen and graphviz: the docs tests will be reported skipped" >&2
  elif ((!check_only)); then
    echo "setup: optional, for the docs tests (reported skipped until then): $(apt_command doxygen graphviz)" >&2
  fi
fi
found=()
((need_torch)) && torch_step
((check_only)) && { echo "setup: everything \`$what\` needs is here"; exit 0; }
mkdir -p "$root/build"
{ echo "# cmake/setup.sh $what: what its last check saw (delete this file to check again)"
  echo "${found[*]}"
  cache_key "${found[@]}"; } >"$stamp.new"
mv "$stamp.new" "$stamp"
echo "setup: everything \`$what\` needs is here"
