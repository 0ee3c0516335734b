#!/usr/bin/env python3
"""Write the seed-001 (swap table phase I v4) usemem scenarios: both published tables, before and
after, and the HDD pair of the "~40% faster" claim. Run from the repository root; then
tools/make_seed000_scenarios.py rewrites calibration/targets.json with them."""
import json
import os

SEED = "seed 001 (swap table phase I v4 cover letter, Kairui Song, 2025-09)"
MACHINE = "inferred: the runs state no machine; the cover letter's largest test machine is a \"48c96t/128G x86_64 server\""
TABLES = {
    "usemem-31x1G-4G-memcg-pmem": dict(nproc=31, size="1G", dram="128G", memcg="4G",
        quote="usemem --init-time -O -y -x -n 31 1G (4G memcg, PMEM as swap)"),
    "usemem-32x1536M-16G-global-pmem": dict(nproc=32, size="1536M", dram="16G", memcg=None,
        quote="usemem --init-time -O -y -x -n 32 1536M (16G memory, global pressure, PMEM as swap)"),
}


def kernel(after):
    return {
        "swap_cache": "swap_table" if after else "xarray",
        "swap_alloc": "cluster_lock",
        "swap_slot_cache": False,
        "zswap": {"enabled": False},
    }


def kernel_sources(after):
    col = "after: the series' swap table" if after else "before: v6.17's XArray swap cache"
    return {
        "kernel.swap_cache": f"{SEED}: {col}",
        "kernel.swap_alloc": "inferred: the series applies on v6.17-rc (mm-new 2025-09), whose allocator takes per-cluster locks (v6.14+)",
        "kernel.swap_slot_cache": "inferred: the per-CPU swap slot cache was removed in v6.15, before the series' base",
        "kernel.zswap.enabled": f"inferred: {SEED} names PMEM as the swap device and no zswap",
    }


def machine(dram, dram_src):
    return ({"sockets": 2, "cores_per_socket": 24, "threads_per_core": 2, "cpu_freq": "2.5GHz", "dram": dram},
            {"machine.sockets": MACHINE + " (two sockets of 24 cores)",
             "machine.cores_per_socket": MACHINE,
             "machine.threads_per_core": MACHINE + " (96 threads on 48 cores)",
             "machine.cpu_freq": "inferred: not stated; the seed-000 clock, at which the model's cycle costs are stated",
             "machine.dram": dram_src})


def usemem_scenario(table, col):
    t = TABLES[table]
    after = col == "after"
    dram_src = (f"{SEED}: \"16G memory, global pressure\"" if t["memcg"] is None else MACHINE + " (128G)")
    mach, msrc = machine(t["dram"], dram_src)
    k = kernel(after)
    ksrc = kernel_sources(after)
    if t["memcg"]:
        k["memcg"] = {"max": t["memcg"]}
        ksrc["kernel.memcg.max"] = f"{SEED}: \"4G memcg\" (memory.max: the limit a memcg test sets)"
    sc = {
        "$schema": "../../swapsim.schema.json",
        "name": f"{table}/{col}",
        "description": f"{t['quote']}: {'after, the swap table' if after else 'before, the XArray swap cache'}",
        "machine": mach,
        "swap": {"device": "pmem", "size": "64G"},
        "kernel": k,
        "workload": {"type": "usemem", "usemem": {"nproc": t["nproc"], "size": t["size"], "init_time": True,
                                                   "anonymous": True, "sync_rw": True, "sync_free": True,
                                                   "sleep": "0s"}},
        "sources": dict(msrc, **ksrc, **{
            "swap.device": f"{SEED}: \"PMEM as swap\"",
            "swap.size": "inferred: not stated; a 64G pmem namespace holds every swapped page of both tables",
            "workload.type": f"{SEED}: \"vm-scability test\" ({t['quote']})",
            "workload.usemem.nproc": f"{SEED}: {t['quote']}",
            "workload.usemem.size": f"{SEED}: {t['quote']}",
            "workload.usemem.init_time": f"{SEED}: usemem --init-time",
            "workload.usemem.anonymous": f"{SEED}: usemem -O",
            "workload.usemem.sync_rw": f"{SEED}: usemem -y",
            "workload.usemem.sync_free": f"{SEED}: usemem -x",
            "workload.usemem.sleep": f"{SEED}: no usemem -s",
        }),
    }
    return sc


def hdd_scenario(col):
    sc = usemem_scenario("usemem-31x1G-4G-memcg-pmem", col)
    after = col == "after"
    sc["name"] = f"hdd-usemem/{col}"
    sc["description"] = ("usemem 31 x 1G in a 4G memcg, a rotational disk as swap: " +
                         ("after, the swap table (no cluster shuffle)" if after else "before, the XArray swap cache with the cluster shuffle"))
    sc["swap"] = {"device": "hdd", "size": "64G"}
    sc["sources"]["swap.device"] = f"{SEED}: \"HDD swap is also ~40% faster with usemem because we removed an old contention workaround\""
    sc["sources"]["workload.usemem.nproc"] = "inferred: the claim names no usemem command; the 4G memcg table's"
    sc["sources"]["workload.usemem.size"] = "inferred: the claim names no usemem command; the 4G memcg table's"
    return sc


def write(path, sc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(sc, f, indent=2)
        f.write("\n")


def main():
    for table in TABLES:
        for col in ("before", "after"):
            write(os.path.join("scenarios", "swap-table-p1-v4", table, col + ".json"), usemem_scenario(table, col))
    for col in ("before", "after"):
        write(os.path.join("scenarios", "swap-table-p1-v4", "hdd-usemem", col + ".json"), hdd_scenario(col))


if __name__ == "__main__":
    main()
