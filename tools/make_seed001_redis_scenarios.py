#!/usr/bin/env python3
"""Write the scenarios of seed 001's Redis tables (swap table phase I v4 cover text).

swap-table-p1-v4/redis-get-n2000000 and redis-get-n2500000: `redis-benchmark -r K -n K -d 1024
-c 12 -P 32 -t get` on an ARM64 VM of 12 cores and 1536M with 5G of ZRAM, Redis set to use 2500M,
without and with BGSAVE, before (XArray swap cache) and after (swap table). One folder per table,
{no-bgsave,bgsave}-{before,after}.json in it (calibrate/tables.cpp names the columns
"<no-bgsave|bgsave>/<before|after>" from the rows' conditions). Each scenario states only the
published setup and records in "sources" where every setting comes from; "inferred" marks what
the seed leaves out. Run from the repository root:
    python3 tools/make_seed001_redis_scenarios.py
tools/make_seed000_scenarios.py then lists them in calibration/targets.json.
"""
import json
import os

SEED = "seed 001 (swap table phase I v4 cover text, 2025-09-16)"
OUT = "scenarios/swap-table-p1-v4"
TABLES = {"redis-get-n2000000": 2000000, "redis-get-n2500000": 2500000}


def scenario(keys, bgsave):
    cmd = f"redis-benchmark -r {keys} -n {keys} -d 1024 -c 12 -P 32 -t get"
    s = {"$schema": "", "name": "",
         "description": f"{SEED}: {cmd}, " + ("with" if bgsave else "no") + " BGSAVE, ARM64 VM 12 cores 1536M, ZRAM 5G",
         "machine": {"sockets": 1, "cores_per_socket": 12, "threads_per_core": 1, "cpu_freq": "2.5GHz",
                     "dram": "1536M"},
         "kernel": {"zswap": {"enabled": False}, "swap_alloc": "cluster_lock", "swap_slot_cache": False},
         "swap": {"device": "zram", "zram": {"disksize": "5G", "comp_algorithm": "zstd"}},
         "workload": {"type": "redis",
                      "redis": {"keyspace": keys, "requests": keys, "set_requests": keys, "value_size": 1024,
                                "clients": 12, "pipeline": 32, "maxmemory": "2500M", "bgsave": bgsave,
                                "data": "redis-1024"}}}
    src = {
        "machine.cores_per_socket": SEED + ": \"a ARM64 VM with 1536M memory 12 cores\" (one vCPU per core: inferred)",
        "machine.sockets": "inferred: one socket (not stated)",
        "machine.threads_per_core": "inferred: not stated",
        "machine.cpu_freq": "inferred: not stated (the per-GET CPU is the measured one, calibration/workloads/redis-get-1024.json)",
        "machine.dram": SEED + ": \"1536M memory\" (inferred: all of it usable; the kernel's and other processes' "
                        "share is not stated)",
        "kernel.zswap.enabled": "inferred: swap to zram alone (zswap off)",
        "kernel.swap_alloc": ("inferred: the series applies on v6.17-rc (mm-new 2025-09), whose allocator takes "
                              "per-cluster locks (v6.14+)"),
        "kernel.swap_slot_cache": "inferred: the per-CPU swap slot cache was removed in v6.15, before the series' base",
        "swap.device": SEED + ": \"ZRAM swap size is set to 5G\"",
        "swap.zram.disksize": SEED + ": \"ZRAM swap size is set to 5G\"",
        "swap.zram.comp_algorithm": "inferred: not stated (zstd)",
        "workload.type": SEED + ": \"Redis / Valkey bench\"",
        "workload.redis.keyspace": SEED + f": {cmd}",
        "workload.redis.requests": SEED + f": {cmd}",
        "workload.redis.value_size": SEED + f": {cmd}",
        "workload.redis.clients": SEED + f": {cmd}",
        "workload.redis.pipeline": SEED + f": {cmd}",
        "workload.redis.set_requests": (f"inferred: the keys were loaded by the same command with -t set "
                                        f"(-r {keys} -n {keys}: ~63% of the keyspace; not stated)"),
        "workload.redis.data": (SEED + f": {cmd} (inferred: the keys were loaded by redis-benchmark -d 1024, whose "
                                "value is one 1 KiB string of 64 symbols in every key; its pages measured in "
                                "calibration/compressors/redis-1024.json)"),
        "workload.redis.maxmemory": SEED + ": \"Redis is set to use 2500M memory\" (maxmemory, noeviction: inferred)",
        "workload.redis.bgsave": SEED + (": \"with BGSAVE\" (inferred: BGSAVE issued as the GET run starts)"
                                         if bgsave else ": \"no BGSAVE\""),
    }
    s["sources"] = src
    return s


def main():
    for table, keys in TABLES.items():
        folder = os.path.join(OUT, table)
        os.makedirs(folder, exist_ok=True)
        for bgsave in (False, True):
            for col, sc in (("before", "xarray"), ("after", "swap_table")):
                x = scenario(keys, bgsave)
                name = ("bgsave" if bgsave else "no-bgsave") + "-" + col
                x["name"] = table + "-" + name
                x["$schema"] = os.path.relpath("scenarios/swapsim.schema.json", folder)
                x["kernel"]["swap_cache"] = sc
                x["sources"]["kernel.swap_cache"] = SEED + (": after the series (swap table)" if sc == "swap_table"
                                                            else ": before the series (v6.17's XArray swap cache)")
                with open(os.path.join(folder, name + ".json"), "w") as f:
                    json.dump(x, f, indent=2)
                    f.write("\n")


if __name__ == "__main__":
    main()
