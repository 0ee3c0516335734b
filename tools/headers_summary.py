#!/usr/bin/env python3
# Summary of tools/measure_headers.sh's dependency files as JSON
# (calibration/workloads/kbuild-headers-6.1.json): per unit the headers it reads and their pages,
# over the sample the union and the popularity of each header. Run from the kernel tree.
# Usage: tools/headers_summary.py DEPS_DIR UNITS_IN_BUILD SAMPLE
import json, math, os, sys

deps_dir, units_total, sample = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
PAGE = 4096
units = []
for f in sorted(os.listdir(deps_dir)):
    text = open(os.path.join(deps_dir, f)).read().replace("\\\n", " ")
    _, _, rest = text.partition(":")
    hdrs = sorted({d for d in rest.split() if d.endswith(".h") and os.path.exists(d)})
    units.append(hdrs)
size = {}
count = {}
for hs in units:
    for h in hs:
        if h not in size:
            size[h] = os.path.getsize(h)
        count[h] = count.get(h, 0) + 1
pages = {h: max(1, math.ceil(s / PAGE)) for h, s in size.items()}
n = len(units)


def q(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else 0


per_unit_headers = [len(hs) for hs in units]
per_unit_bytes = [sum(size[h] for h in hs) for hs in units]
per_unit_pages = [sum(pages[h] for h in hs) for hs in units]
# Popularity: the headers read by at least a share of the units, their bytes and pages.
bands = {}
for share in (0.9, 0.5, 0.25, 0.1, 0.0):
    hs = [h for h in size if count[h] / n > share or (share == 0.0)]
    bands[f">{int(share * 100)}%"] = {"headers": len(hs), "bytes": sum(size[h] for h in hs),
                                      "pages": sum(pages[h] for h in hs)}
# Union as the sample grows (is it saturating?).
growth = []
seen = set()
for i, hs in enumerate(units, 1):
    seen.update(hs)
    if i in (10, 25, 50, 100, 150, 200, 300, 400) or i == n:
        growth.append({"units": i, "headers": len(seen), "pages": sum(pages[h] for h in seen)})
# Page reads weighted by popularity: the share of all header-page reads that go to the hottest
# pages (headers sorted by units reading them).
by_pop = sorted(size, key=lambda h: -count[h])
reads_total = sum(count[h] * pages[h] for h in size)
cum, hot = 0, []
acc_pages = 0
for h in by_pop:
    cum += count[h] * pages[h]
    acc_pages += pages[h]
    for frac in (0.5, 0.8, 0.9, 0.99):
        if not any(x["reads_share"] == frac for x in hot) and cum >= frac * reads_total:
            hot.append({"reads_share": frac, "pages": acc_pages})
print(json.dumps({
    "made_by": "tools/measure_headers.sh",
    "tree": "Debian linux-source-6.1, x86-64 defconfig",
    "compile_units_in_build": units_total,
    "sample_requested": sample,
    "sample_units": n,
    "per_unit": {
        "headers": {"mean": round(sum(per_unit_headers) / n, 1), "p10": q(per_unit_headers, .1), "p50": q(per_unit_headers, .5), "p90": q(per_unit_headers, .9)},
        "bytes": {"mean": round(sum(per_unit_bytes) / n), "p10": q(per_unit_bytes, .1), "p50": q(per_unit_bytes, .5), "p90": q(per_unit_bytes, .9)},
        "pages": {"mean": round(sum(per_unit_pages) / n, 1), "p10": q(per_unit_pages, .1), "p50": q(per_unit_pages, .5), "p90": q(per_unit_pages, .9)},
    },
    "union": {"headers": len(size), "bytes": sum(size.values()), "pages": sum(pages.values())},
    "popularity_bands": bands,
    "union_growth": growth,
    "hottest_pages_for_reads_share": hot,
    "note": "pages: each header's size rounded up to 4 KiB (its page-cache pages); a read is a unit opening a header once",
}, indent=1))
