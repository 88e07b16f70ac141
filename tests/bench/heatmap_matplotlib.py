#!/usr/bin/python3
"""The anchor of `make bench`'s heatmap: the same labelled attention heatmap
as tviz draws it, made with matplotlib (imshow + colour bar + a number in
every cell + tick labels + title, savefig as a 1200 x 1000 PNG), timed the
way bench.c times tviz: the median of several runs, the file kept in memory.

Usage: heatmap_matplotlib.py STAGE.json [RUNS]
STAGE.json: {"title": ..., "rows": [labels], "cols": [labels], "data": [[...], ...]}
Prints "median_ms X" (and the PNG's size); exits 3 when matplotlib is absent.
"""
import io
import json
import statistics
import sys
import time

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed (Debian: python3-matplotlib)")
    sys.exit(3)


def draw(stage):
    data = stage["data"]
    fig, ax = plt.subplots(figsize=(12, 10), dpi=100)  # 1200 x 1000 pixels
    im = ax.imshow(data, cmap="viridis", vmin=0, vmax=1)
    fig.colorbar(im, ax=ax, label="probability")
    for i, row in enumerate(data):
        for j, v in enumerate(row):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", color="white" if v < 0.5 else "black", fontsize=9)
    ax.set_xticks(range(len(stage["cols"])), stage["cols"], rotation=45, ha="left")
    ax.set_yticks(range(len(stage["rows"])), stage["rows"])
    ax.xaxis.tick_top()
    ax.set_xlabel("keys: source words")
    ax.set_ylabel("queries: target words")
    ax.set_title(stage["title"])
    out = io.BytesIO()
    fig.savefig(out, format="png")
    plt.close(fig)
    return out.getbuffer().nbytes


def main():
    stage = json.load(open(sys.argv[1], encoding="utf-8"))
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 9
    draw(stage)  # warm-up: fonts, caches
    times, size = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        size = draw(stage)
        times.append(time.perf_counter() - t0)
    print(f"median_ms {statistics.median(times) * 1e3:.2f} bytes {size} matplotlib {matplotlib.__version__}")


if __name__ == "__main__":
    main()
