#!/usr/bin/env bash
# Developer script for the lent GPU machine (see ../shared/gpu/README.md): builds the CUDA
# backend, runs the whole suite, then every chapter's solution grader with full timing, the
# stubs' verdicts and PyTorch's anchors. Logs go to $OUT (or build/gpu/verify).
#   source .gpu/env.sh && bash bench/gpu_verify.sh [build|suite|timing]...   (default: all three)
set -uo pipefail
out=${OUT:-build/gpu/verify}
mkdir -p "$out"
steps=("$@")
((${#steps[@]})) || steps=(build suite timing)
torch_dir=$(python3 -c 'import torch, os; print(os.path.join(torch.utils.cmake_prefix_path, "Torch"))' 2>/dev/null || true)
for step in "${steps[@]}"; do
  case $step in
    build)
      cmake --preset gpu -DCatch2_DIR="$PWD/.gpu/root/usr/lib/cmake/Catch2" ${torch_dir:+-DTorch_DIR="$torch_dir"} \
        >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
      cmake --build --preset gpu >"$out/build.log" 2>&1 || { grep -m10 -B2 -A10 'error' "$out/build.log"; exit 1; }
      echo "build: ok" ;;
    suite)
      # The suite checks verdicts, not speed: a short timing budget per grader is enough there.
      WB_TIMING_BUDGET_S=0.3 ctest --preset gpu -j6 --timeout 600 >"$out/ctest.log" 2>&1
      grep -E "tests passed|tests failed|Total Test time" "$out/ctest.log"
      sed -n '/The following tests FAILED/,$p' "$out/ctest.log" | head -30 ;;
    timing)
      for exe in build/gpu/*.cuda.solution; do
        name=$(basename "$exe" .cuda.solution)
        "$exe" >"$out/$name.solution.log" 2>&1
        sed -n '/(NVIDIA/,/^  (speed/p' "$out/$name.solution.log"
        grep -E '^  (verdict|speed):' "$out/$name.solution.log"
        "build/gpu/$name.cuda.stub" 2>&1 | grep -E '^  verdict:'
      done
      python3 bench/torch_anchors.py 2>&1 | tee "$out/torch_anchors.log" ;;
  esac
done
