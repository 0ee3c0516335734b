#!/usr/bin/python3
# Plots for results/ with Debian's matplotlib (python3-matplotlib, for /usr/bin/python3):
#   plot_results.py compare CELLS.json OUT.png        model against published, error labels
#   plot_results.py sweep SWEEP.csv OUT.png X SERIES METRIC... [--title T]
#   plot_results.py trace TRACE.csv OUT.png [--title T]   one run's time series (run --trace)
# matplotlib because Debian keeps it current and it draws bar charts with labels, shared time
# axes and log scales without a template language; the output is a PNG per figure.
import argparse
import csv
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COMPARE_METRICS = [("throughput_kbps", "throughput (KB/s per process)"), ("elapsed_s", "elapsed (s)"),
                   ("sys_s", "sys time (s)"), ("zswpout", "zswpout (pages)")]


def short(table, column):
    t = table.split("/")[-1].replace("iaa-batching-", "batch-").replace("regression-", "reg-")
    c = column.replace("zswap_mthp_", "mthp ").replace("baseline_", "base ").replace("deflate_iaa", "iaa")
    c = c.replace("iaa_canned_batching", "canned batch").replace("iaa_fixed_batching", "fixed batch")
    c = c.replace("iaa_fixed_v7", "iaa v7").replace("mm_unstable_", "mm ").replace("zswap_mthp_v6_", "v6 ")
    return f"{t}\n{c}"


def compare(args):
    cells = json.load(open(args.cells))
    fig, axes = plt.subplots(len(COMPARE_METRICS), 1, figsize=(22, 17))
    for ax, (metric, label) in zip(axes, COMPARE_METRICS):
        rows = [c for c in cells if c["metric"] == metric and c["published"] and c["model"] is not None
                and c["table"].startswith("zswap-mthp-v7/")]
        xs = range(len(rows))
        pub = [c["published"] for c in rows]
        mod = [c["model"] for c in rows]
        ax.bar([x - 0.2 for x in xs], pub, 0.4, label="published", color="#777777")
        bars = ax.bar([x + 0.2 for x in xs], mod, 0.4, label="model", color="#2a6fbb")
        for b, c in zip(bars, rows):
            e = 100 * c["rel_error"]
            ax.annotate(f"{e:+.0f}%", (b.get_x() + b.get_width() / 2, b.get_height()), ha="center",
                        va="bottom", fontsize=7, color="#b22222" if abs(e) > 15 else "black")
        ax.set_ylabel(label)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([short(c["table"], c["column"]) for c in rows], fontsize=6.5)
        ax.set_xlim(-0.6, len(rows) - 0.4)
        ax.margins(y=0.12)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(loc="upper right")
    fig.suptitle("zswap-mthp-v7 tables: published against model (label: model error)", fontsize=13)
    fig.tight_layout()
    fig.savefig(args.out, dpi=90)


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def sweep(args):
    rows = read_csv(args.csv)
    series = sorted({r[args.series] for r in rows}, key=float)
    fig, axes = plt.subplots(1, len(args.metrics), figsize=(5.2 * len(args.metrics), 4.2))
    if len(args.metrics) == 1:
        axes = [axes]
    for ax, m in zip(axes, args.metrics):
        for s in series:
            pts = sorted(((float(r[args.x]), float(r[m])) for r in rows if r[args.series] == s and r[m] != ""))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{args.series.split('.')[-1]}={s}")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted({float(r[args.x]) for r in rows}))
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_xlabel(args.x)
        ax.set_ylabel(m)
        if m.endswith("_us"):   # waits span 0 to 1000 us
            ax.set_yscale("symlog", linthresh=1)
            ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(args.title or args.csv, fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=90)


def trace(args):
    rows = read_csv(args.csv)
    t = [float(r["t_s"]) for r in rows]
    col = lambda k: [float(r[k]) for r in rows]  # noqa: E731
    gib = 2.0 ** 30
    fig, axes = plt.subplots(5, 1, figsize=(10, 12), sharex=True)
    ax = axes[0]
    ax.plot(t, [v / gib for v in col("memcg_usage_bytes")], label="memory.current")
    high = col("memory_high_bytes")
    if high and high[0] > 0:
        ax.plot(t, [v / gib for v in high], "--", color="#b22222", label="memory.high")
    ax.set_ylabel("memcg (GiB)")
    ax.legend(loc="lower right")
    axes[1].plot(t, [v / 1e6 for v in col("swapout_pages_per_s")], color="#2a6fbb")
    axes[1].set_ylabel("swap-out\n(M pages/s)")
    axes[2].plot(t, col("tasks_in_reclaim"), label="in reclaim (at t)")
    axes[2].plot(t, col("throttled_tasks"), label="throttled by memory.high")
    axes[2].plot(t, col("io_wait_tasks"), label="waiting for I/O")
    axes[2].set_ylabel("tasks")
    axes[2].legend(loc="upper right", fontsize=8)
    axes[3].plot(t, col("lock_spin_cpus"), color="#8a2be2")
    axes[3].set_ylabel("CPUs spinning\non spinlocks")
    axes[4].plot(t, col("iaa_queue_depth"), label="IAA jobs waiting")
    axes[4].plot(t, col("ssd_queue_depth"), label="SSD requests waiting")
    axes[4].set_ylabel("queue depth")
    axes[4].legend(loc="upper right", fontsize=8)
    axes[4].set_xlabel("simulated time (s)")
    for a in axes:
        a.grid(alpha=0.3)
    fig.suptitle(args.title or args.csv, fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=90)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare")
    c.add_argument("cells")
    c.add_argument("out")
    s = sub.add_parser("sweep")
    s.add_argument("csv")
    s.add_argument("out")
    s.add_argument("x")
    s.add_argument("series")
    s.add_argument("metrics", nargs="+")
    s.add_argument("--title")
    t = sub.add_parser("trace")
    t.add_argument("csv")
    t.add_argument("out")
    t.add_argument("--title")
    a = p.parse_args()
    {"compare": compare, "sweep": sweep, "trace": trace}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
