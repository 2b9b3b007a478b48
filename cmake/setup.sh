#!/usr/bin/env bash
# Finds or installs what the workbook needs to build, grade and test:
#   CMake >= 3.24, a C++17 compiler, Ninja, Catch2 v3, Boost.Context (the CPU backend's fibers; not
#   needed when WB_PRESET=gpu, the CUDA backend alone), Doxygen + Graphviz (docs), GNU patch (the test
#   suite applies its planted bugs with it), and for chapter 05
#   the `torch` Python package (its libtorch and CMake config) and pytest, with pip.
# On Debian/Ubuntu as root it installs what is missing (Catch2 v3 from bookworm-backports on
# bookworm); elsewhere it stops with the exact list to install. The CUDA toolkit is optional:
# without nvcc only the CPU backend is built. Without torch, chapter 05 is reported skipped and
# the other chapters are unaffected; WB_TORCH=OFF skips installing it.
#   bash cmake/setup.sh          # check and install
#   bash cmake/setup.sh --check  # only check; exit 1 and print the list if anything is missing
set -euo pipefail

check_only=0
[[ "${1:-}" == "--check" ]] && check_only=1

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

cmake_ok() {
  command -v cmake >/dev/null || return 1
  local v; v=$(cmake --version | head -n1 | awk '{print $3}')
  [[ "$(printf '%s\n3.24\n' "$v" | sort -V | head -n1)" == "3.24" ]]
}

missing_pkgs=()
cmake_ok                       || missing_pkgs+=(cmake)
command -v ninja >/dev/null    || missing_pkgs+=(ninja-build)
command -v c++ >/dev/null      || missing_pkgs+=(g++)
have_catch2                    || missing_pkgs+=(libcatch2-dev)
# The CPU backend's fibers; the CUDA backend alone (WB_PRESET=gpu) needs no Boost.
[[ ${WB_PRESET:-} == gpu ]] || have_boost_context || missing_pkgs+=(libboost-context-dev)
command -v doxygen >/dev/null  || missing_pkgs+=(doxygen)
command -v dot >/dev/null      || missing_pkgs+=(graphviz)
command -v patch >/dev/null    || missing_pkgs+=(patch)  # the test suite's planted bugs are patches

# Chapter 05: PyPI's Linux torch wheel (with its CUDA libraries: about 3 GB to download, 5 GB
# installed, about a minute here) for the python3 that CMake will ask. Optional: on failure,
# chapter 05 is skipped with the reason.
torch_step() {
  [[ ${WB_TORCH:-ON} == OFF ]] && return 0
  local want=()
  python3 -c 'import torch' 2>/dev/null || want+=(torch)
  python3 -c 'import pytest' 2>/dev/null || want+=(pytest)
  ((${#want[@]})) || return 0
  if ((check_only)); then
    echo "setup: optional, for chapter 05: python3 -m pip install ${want[*]}" >&2
    return 0
  fi
  echo "setup: installing ${want[*]} with pip (chapter 05; torch is a large download)"
  python3 -m pip install --quiet "${want[@]}" ||
    echo "setup: could not install ${want[*]}: chapter 05 will be reported skipped" >&2
}

if ((${#missing_pkgs[@]} == 0)); then
  torch_step
  echo "setup: everything needed is here"
  exit 0
fi

explain() {
  echo "setup: missing: ${missing_pkgs[*]}" >&2
  echo "setup: install them, e.g. on Debian bookworm (Catch2 v3 is in bookworm-backports):" >&2
  echo "  echo 'deb http://deb.debian.org/debian bookworm-backports main' | sudo tee /etc/apt/sources.list.d/backports.list" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing_pkgs[*]/libcatch2-dev/libcatch2-dev/bookworm-backports}" >&2
  echo "setup: on macOS with Homebrew: brew install cmake ninja catch2 boost doxygen graphviz" >&2
  echo "setup: or elsewhere: CMake >= 3.24, Ninja, a C++17 compiler, Catch2 v3, Boost.Context, Doxygen, Graphviz, GNU patch" >&2
}

if ((check_only)) || [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
  explain
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
pkgs=()
for p in "${missing_pkgs[@]}"; do
  if [[ $p == libcatch2-dev ]] && grep -q 'VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
    # bookworm's own libcatch2-dev is v2; v3 comes from backports.
    if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
      echo 'deb http://deb.debian.org/debian bookworm-backports main' > /etc/apt/sources.list.d/workbook-backports.list
    fi
    pkgs+=(libcatch2-dev/bookworm-backports)
  else
    pkgs+=("$p")
  fi
done
echo "setup: installing ${pkgs[*]}"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
missing_pkgs=()
have_catch2 || missing_pkgs+=(libcatch2-dev)
[[ ${WB_PRESET:-} == gpu ]] || have_boost_context || missing_pkgs+=(libboost-context-dev)
if ((${#missing_pkgs[@]})); then explain; exit 1; fi
torch_step
echo "setup: done"
