#!/usr/bin/env python3
"""Markdown table of `swapsim run --profile` results: sys seconds per kernel function
(spin on spinlocks in brackets), one column per result.json given as NAME=PATH."""
import json
import sys


def main(args):
    cols, prof, total = [], {}, {}
    for a in args:
        name, path = a.split("=", 1)
        r = json.load(open(path))
        cols.append(name)
        total[name] = r["metrics"]["sys_s"]
        for row in r["sys_profile"]:
            prof.setdefault(row["function"], {})[name] = (row["sys_s"], row["spin_s"])
    fns = sorted(prof, key=lambda f: -max(prof[f].get(c, (0, 0))[0] for c in cols))
    print("| function | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    print("| **sys (s)** | " + " | ".join(f"**{total[c]:.1f}**" for c in cols) + " |")
    for f in fns:
        if max(prof[f].get(c, (0, 0))[0] for c in cols) < 0.05:
            continue
        cells = []
        for c in cols:
            s, spin = prof[f].get(c, (0.0, 0.0))
            cells.append(f"{s:.1f} ({spin:.1f})" if spin >= 0.05 else f"{s:.1f}")
        print(f"| `{f}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
