#!/usr/bin/env bash
# CI: the CPU backend on arm64 Linux. Cross-compiles the runtime (emu/) and its unit tests (emu-tests,
# wb-unit-emu-runtime, emu-bench) with Debian's aarch64 cross compiler and runs them under
# qemu-user (cmake/aarch64-linux-gnu.cmake). Boost.Context, Catch2 and libuv (the command's, which
# the configure finds) for arm64 are Debian's arm64 packages, unpacked into build/arm64/sysroot: libcatch2-dev cannot be installed for two
# architectures at once. The graders are not built here (the x86-64 run tests them).
# Needs root on Debian/Ubuntu for the packages it installs; a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
build=${WB_ARM64_BUILD:-build/arm64}
sysroot="$PWD/$build/sysroot"
jobs=${WB_JOBS:-$(nproc 2>/dev/null || echo 2)}

as_root() {
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "arm64: needs, as root on Debian/Ubuntu: $*" >&2
    exit 1
  fi
  "$@"
}

export DEBIAN_FRONTEND=noninteractive
if ! command -v aarch64-linux-gnu-g++ >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
  echo "arm64: installing g++-aarch64-linux-gnu qemu-user"
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends g++-aarch64-linux-gnu qemu-user >/dev/null
fi

# Debian's arm64 packages of Boost.Context (the version libboost-context-dev stands for: 1.74 on
# bookworm) and Catch2 v3 (bookworm: from bookworm-backports).
boost=$(apt-cache depends libboost-context-dev 2>/dev/null |
        sed -n 's/.*Depends: libboost-context\(1\.[0-9]*\)-dev.*/\1/p' | head -n1)
boost=${boost:-1.74}
pkgs=(libboost$boost-dev:arm64 libboost-context$boost-dev:arm64 libboost-context$boost.0:arm64 libcatch2-dev:arm64
      libuv1-dev:arm64 libuv1:arm64)
if grep -q 'VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
  pkgs[3]=libcatch2-dev:arm64/bookworm-backports
fi
if [[ ! -f $sysroot/.complete ]]; then
  if ! dpkg --print-foreign-architectures | grep -qx arm64 ||
     ! apt-cache show libcatch2-dev:arm64 >/dev/null 2>&1; then
    echo "arm64: adding the arm64 architecture to apt"
    as_root dpkg --add-architecture arm64
    if grep -q 'VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null &&
       ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
      # The same mirror as this machine's own bookworm sources (no host is written here).
      mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)
      [[ -n $mirror ]] || mirror=$(sed -n 's/^deb  *\([^ []*\) .*/\1/p' /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1)
      [[ -n $mirror ]] || { echo "arm64: no Debian mirror in this machine's apt sources" >&2; exit 1; }
      echo "deb $mirror bookworm-backports main" | as_root tee /etc/apt/sources.list.d/workbook-backports.list >/dev/null
    fi
    as_root apt-get update -qq
  fi
  echo "arm64: unpacking ${pkgs[*]} into $build/sysroot"
  rm -rf "$sysroot" "$build/debs"
  mkdir -p "$sysroot" "$build/debs"
  (cd "$build/debs" && apt-get download -qq -o APT::Sandbox::User=root "${pkgs[@]}")
  for deb in "$build"/debs/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
  touch "$sysroot/.complete"
fi

echo "arm64: configuring $build"
cmake -S . -B "$build" -G Ninja --toolchain cmake/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWB_CPU_BACKEND=ON -DWB_CUDA_BACKEND=OFF -DWB_TORCH=OFF \
  -DCatch2_DIR="$sysroot/usr/lib/cmake/Catch2" \
  -DBoost_DIR="$(echo "$sysroot"/usr/lib/aarch64-linux-gnu/cmake/Boost-$boost.*)" -DBoost_USE_STATIC_LIBS=ON \
  -DWB_LIBUV_INCLUDE="$sysroot/usr/include" -DWB_LIBUV_LIBRARY="$sysroot/usr/lib/aarch64-linux-gnu/libuv.so" \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
echo "arm64: building the CPU backend and its unit tests"
cmake --build "$build" -j "$jobs" --target emu-tests wb-unit-emu-runtime emu-bench >"$build/build.log" 2>&1 ||
  { grep -m20 -A5 -E 'error|FAILED' "$build/build.log" >&2; exit 1; }
file "$build/tests/emu/emu-tests" | sed 's/^/arm64: /'
echo "arm64: running them under qemu-aarch64"
ctest --test-dir "$build" -R '^(emu\.|unit\.emu-runtime\.)' --output-on-failure -j "$jobs"
echo "arm64: done in $((SECONDS - start)) s"
