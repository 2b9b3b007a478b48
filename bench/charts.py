"""The docs' charts, drawn from the measurements the bench scripts write (never by hand).

    python3 bench/charts.py exercises <exercises.csv> <out.svg>
        bench/exercise_table.sh's data: each exercise's library time over its solution's
    python3 bench/charts.py variants <timings.csv> <table title> <out.svg>
        one timing table of a benchmark run with WB_TIMINGS_CSV=<timings.csv> (the grader
        library appends every table it prints): each variant's rate, and its % of the peak

Needs matplotlib (e.g. `.venv/bin/python3 -m pip install matplotlib`, then run this with that
python). The SVG is written with a fixed hash salt and no date, so the same data gives the same
file.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.hashsalt"] = "cuda-workbook"
plt.rcParams["font.size"] = 9
plt.rcParams["svg.fonttype"] = "none"  # text stays text: smaller, and searchable


def save(fig, path, note):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.text(0.01, -0.04, note, fontsize=7, color="#555555")
    fig.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})
    print(f"charts: {path}")


def exercises(data, out):
    with open(data, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["ratio"] not in ("", "-")]
    device = rows[0]["device"] if rows else ""
    rows.reverse()  # x01 at the top
    names = [f'{r["exercise"]} vs {r["library"]}' for r in rows]
    ratios = [float(r["ratio"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(rows) + 1.2))
    colors = ["#2e7d32" if x >= 1 else "#c62828" for x in ratios]
    ax.barh(names, ratios, color=colors)
    ax.set_xscale("log")
    ax.axvline(1, color="black", linewidth=0.8)
    for y, x in enumerate(ratios):
        ax.text(x * 1.04, y, f"{x:.2f}", va="center", fontsize=8)
    ax.set_xlabel("library time / solution time (log scale): above 1 the solution is faster")
    ax.set_title(f"Exercises: the solution against the best library ({device}, {rows[0]['date'] if rows else ''})")
    save(fig, out, f"data: {data}, from bench/exercise_table.sh")


def variants(data, title, out):
    with open(data, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["table"] == title]
    if not rows:
        sys.exit(f"charts: no table titled {title!r} in {data}")
    rows.reverse()
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(rows) + 1.2))
    rates = [float(r["rate"]) for r in rows]
    ax.barh([r["variant"] for r in rows], rates, color="#1565c0")
    for y, r in enumerate(rows):
        ax.text(float(r["rate"]) * 1.01, y, f'{float(r["rate"]):.0f} ({float(r["pct_peak"]):.0f}% of peak)',
                va="center", fontsize=8)
    ax.set_xlabel(rows[0]["unit"])
    ax.set_xlim(0, max(rates) * 1.35)
    ax.set_title(f'{title} ({rows[0]["device"]})')
    save(fig, out, f"data: {data}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "exercises":
        exercises(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "variants":
        variants(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
