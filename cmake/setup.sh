#!/usr/bin/env bash
# Finds or installs what the workbook needs to build, grade and test:
#   CMake >= 3.24, a C++17 compiler, Ninja, Catch2 v3, Doxygen + Graphviz (docs).
# On Debian/Ubuntu as root it installs what is missing (Catch2 v3 from bookworm-backports on
# bookworm); elsewhere it stops with the exact list to install. The CUDA toolkit is optional:
# without nvcc only the CPU backend is built.
#   bash cmake/setup.sh          # check and install
#   bash cmake/setup.sh --check  # only check; exit 1 and print the list if anything is missing
set -euo pipefail

check_only=0
[[ "${1:-}" == "--check" ]] && check_only=1

have_catch2() {
  # Catch2 v3 ships Catch2Config.cmake and catch_all.hpp; v2 ships neither.
  local d
  for d in /usr/lib/*/cmake/Catch2 /usr/lib/cmake/Catch2 /usr/local/lib/cmake/Catch2 \
           /usr/local/lib/*/cmake/Catch2 /usr/share/cmake/Catch2; do
    [[ -f "$d/Catch2Config.cmake" ]] && return 0
  done
  [[ -n "${CMAKE_PREFIX_PATH:-}" ]] && for d in ${CMAKE_PREFIX_PATH//;/ }; do
    [[ -f "$d/include/catch2/catch_all.hpp" ]] && return 0
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
command -v doxygen >/dev/null  || missing_pkgs+=(doxygen)
command -v dot >/dev/null      || missing_pkgs+=(graphviz)

if ((${#missing_pkgs[@]} == 0)); then
  echo "setup: everything needed is here"
  exit 0
fi

explain() {
  echo "setup: missing: ${missing_pkgs[*]}" >&2
  echo "setup: install them, e.g. on Debian bookworm (Catch2 v3 is in bookworm-backports):" >&2
  echo "  echo 'deb http://deb.debian.org/debian bookworm-backports main' | sudo tee /etc/apt/sources.list.d/backports.list" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing_pkgs[*]/libcatch2-dev/libcatch2-dev/bookworm-backports}" >&2
  echo "setup: or elsewhere: CMake >= 3.24, Ninja, a C++17 compiler, Catch2 v3, Doxygen, Graphviz" >&2
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
if ((${#missing_pkgs[@]})); then explain; exit 1; fi
echo "setup: done"
