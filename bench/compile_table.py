"""The exercises' solutions against torch.compile, from one GPU run of each: the solution's time
from bench/exercise_table.sh's data (docs/data/exercises-gpu.csv) and torch.compile's from
bench/torch_compile.py's JSON lines, for the exercises both have. Writes the table between the
compile-table markers of exercises/README.md and its data to docs/data/torch-compile-gpu.csv.

    python3 bench/torch_compile.py > torch_compile.jsonl     # on the GPU, in the same session as
    bash bench/exercise_table.sh                             # this (the same machine, one after the other)
    python3 bench/compile_table.py torch_compile.jsonl
"""
import csv
import json
import re
import sys

PAGE = "exercises/README.md"


def ms(text):
    return float(text.split()[0])


def main():
    compiled = {}
    with open(sys.argv[1]) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            compiled.setdefault(r["exercise"], r)  # an exercise's first op is its table's (x16: the GEMV)
    with open("docs/data/exercises-gpu.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["exercise"] in compiled and r["solution_time"] not in ("", "-")]
    out = []
    for r in rows:
        c = compiled[r["exercise"]]
        out.append({"exercise": r["exercise"], "size": r["size"], "solution_ms": ms(r["solution_time"]),
                    "compiled_ms": c["compiled_ms"], "eager_ms": c["eager_ms"], "op": c["op"],
                    "ratio": c["compiled_ms"] / ms(r["solution_time"]), "device": r["device"], "date": r["date"]})
    with open("docs/data/torch-compile-gpu.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0]) if out else ["exercise"])
        w.writeheader()
        w.writerows(out)
    device = out[0]["device"] if out else "?"
    date = out[0]["date"] if out else "?"
    table = [f"Measured on {device}, {date}: the solution's time from the table above, torch.compile's "
             "(Inductor, default mode) from `bench/torch_compile.py` in the same session, each op as the "
             "exercise's contract states it. Above 1, the solution is faster.", "",
             "| exercise | size | solution | torch.compile | eager PyTorch | torch.compile / solution |",
             "|---|---|---|---|---|---|"]
    for r in out:
        table.append(f"| {r['exercise']} | {r['size']} | {r['solution_ms']:.4f} ms | {r['compiled_ms']:.4f} ms | "
                     f"{r['eager_ms']:.4f} ms | {r['ratio']:.2f} |")
    text = open(PAGE).read()
    new = re.sub(r"(<!-- compile-table:begin -->\n).*?(\n<!-- compile-table:end -->)",
                 lambda m: m.group(1) + "\n".join(table) + m.group(2), text, flags=re.S)
    if new == text and "\n".join(table) not in text:
        sys.exit(f"{PAGE}: the compile-table markers were not found")
    open(PAGE, "w").write(new)
    print(f"{PAGE}: {len(out)} rows against torch.compile; docs/data/torch-compile-gpu.csv")


if __name__ == "__main__":
    main()
