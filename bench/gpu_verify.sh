#!/usr/bin/env bash
# Developer script for the lent GPU machine (see ../shared/gpu/README.md): builds the CUDA
# backend, runs the whole suite, then every chapter's solution grader with full timing, the
# stubs' verdicts and PyTorch's anchors; `sanitizer` (not in the default) tabulates what
# compute-sanitizer costs each grader (bench/sanitizer_costs.sh). Logs go to $OUT (or build/gpu/verify).
#   source .gpu/env.sh && bash bench/gpu_verify.sh [build|suite|timing|sanitizer]...   (default: the first three)
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
      # Each grader's verdict and table row from the files it writes (its log is kept, not read).
      for exe in build/gpu/*.cuda.solution; do
        name=$(basename "$exe" .cuda.solution)
        WB_VERDICT_FILE="$out/$name.solution.json" WB_TABLE_ROW_FILE="$out/$name.row" "$exe" >"$out/$name.solution.log" 2>&1
        WB_VERDICT_FILE="$out/$name.stub.json" "build/gpu/$name.cuda.stub" >"$out/$name.stub.log" 2>&1
        python3 - "$name" "$out/$name.solution.json" "$out/$name.stub.json" "$out/$name.row" <<'PY'
import json, sys
name, solution, stub, row = sys.argv[1:]
def verdict(path):
    try:
        v = json.load(open(path))
        return v["kind"] + (": " + v["detail"] if v.get("detail") else ""), v.get("speed", "")
    except (OSError, ValueError, KeyError):
        return "no verdict", ""
kind, speed = verdict(solution)
print(f"{name}: solution {kind}" + (f"; {speed}" if speed else "") + f"; stub {verdict(stub)[0]}")
try:
    print("  table row: " + open(row).read().strip())
except OSError:
    pass
PY
      done
      python3 bench/torch_anchors.py 2>&1 | tee "$out/torch_anchors.log" ;;
    sanitizer)
      OUT="$out/sanitizer" bash bench/sanitizer_costs.sh build/gpu ;;
  esac
done
