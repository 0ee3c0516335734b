#!/usr/bin/env python3
"""Write the scenarios of seed 001's kernel-build rows (swap table phase I v4 cover text).

One folder per row of swap-table-p1-v4/kbuild-matrix-zram-zswap (named after -j and the memcg
limit) and one per 48-core 4G VM table, with before.json (the XArray swap cache) and, once the
after.json (the swap table). Each scenario states only the published setup and records in
"sources" where every setting comes from; "inferred" marks what the seed leaves out. The rows
whose order-0 swap traffic runs to ~10^9 page swaps simulate memory in units of
sim.page_unit pages (PAGE_UNIT; the granularity test is in tests/unit/test_kbuild.cpp).
Run from the repository root:
    python3 tools/make_seed001_kbuild_scenarios.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_seed001_scenarios import machine as server_machine  # noqa: E402  one "48c96t/128G" server

SEED = "seed 001 (swap table phase I v4 cover text, 2025-09-16)"
OUT = "scenarios/swap-table-p1-v4"

# Pages per simulated page where order-0 swap traffic is heavy (not with mTHP, not where nothing
# swaps): a simulation granularity, not a setting of the machine.
PAGE_UNIT = {"j6-192M-zram": 16, "j12-256M-zram": 16, "j24-384M-zram": 16, "j48-768M-zram": 16,
             "kbuild-48c-4G-vm-zswap-nvme": 16, "kbuild-48c-4G-vm-zram16G": 16}
ROWS = [  # (folder, -j, memcg limit, backend, mTHP)
    ("j6-192M-zram", 6, "192M", "zram", None),
    ("j12-256M-zram", 12, "256M", "zram", None),
    ("j24-384M-zram", 24, "384M", "zram", None),
    ("j48-768M-zram", 48, "768M", "zram", None),
    ("j24-512M-zram-64k", 24, "512M", "zram", "64K"),
    ("j48-1G-zram-64k", 48, "1G", "zram", "64K"),
    ("j48-3G-zswap", 48, "3G", "zswap", None),
]


def scenario(name, jobs, limit, backend, mthp, vm=None):
    s = {"$schema": "", "name": name,
         "description": f"{SEED}: make -j{jobs} defconfig on tmpfs, " +
                        (f"{limit} memcg limit, {backend}" if limit else f"48c 4G VM, {backend}, no memcg")}
    src = {"workload.type": SEED + ": \"building kernel with defconfig on tmpfs\"",
           "workload.kbuild.jobs": SEED + f": -j{jobs}"}
    if vm:
        s["machine"] = {"sockets": 1, "cores_per_socket": 48, "threads_per_core": 1, "cpu_freq": "2.5GHz",
                        "dram": "2560M"}
        src["machine.cores_per_socket"] = SEED + ": \"a 48c VM\" (one vCPU per core: inferred)"
        src["machine.dram"] = (SEED + ": \"4G memory\" and \"system components take up about 1.5G already\": "
                               "the build has 4G - 1.5G (inferred: those 1.5G neither freed nor reclaimed); no memcg")
        src["machine.cpu_freq"] = "inferred: not stated"
    else:
        # The matrix machine is not stated: the same "48c96t/128G" server as the usemem tables.
        s["machine"], msrc = server_machine("128G", "inferred: the cover's \"48c96t/128G x86_64 servers\" (128G)")
        src.update(msrc)
        s["kernel"] = {"memcg": {"max": limit}}
        src["kernel.memcg.max"] = SEED + f": memcg limit {limit} (memory.max: inferred, the seed says \"memcg limit\")"
    k = s.setdefault("kernel", {})
    if backend == "zram":
        s["swap"] = {"device": "zram", "zram": {"disksize": "16G", "comp_algorithm": "zstd"}}
        k["zswap"] = {"enabled": False}
        src["swap.zram.disksize"] = SEED + ": \"16G ZRAM\""
        src["swap.zram.comp_algorithm"] = "inferred: not stated (zstd)"
    else:
        s["swap"] = {"device": "ssd", "size": "32G"}
        k["zswap"] = {"enabled": True, "compressor": "zstd"}
        src["kernel.zswap.enabled"] = SEED + ": \"ZSWAP\""
        src["kernel.zswap.compressor"] = "inferred: not stated (zstd)"
        src["swap.device"] = ("inferred: backing device not stated for the matrix row; an SSD" if not vm else
                              SEED + ": \"ZSWAP with 32G NVMEs\"")
    k["swap_alloc"] = "cluster_lock"
    k["swap_slot_cache"] = False
    src["kernel.swap_alloc"] = ("inferred: the series applies on v6.17-rc (mm-new 2025-09), whose allocator "
                                "takes per-cluster locks (v6.14+)")
    src["kernel.swap_slot_cache"] = "inferred: the per-CPU swap slot cache was removed in v6.15, before the series' base"
    if name in PAGE_UNIT:
        s["sim"] = {"page_unit": PAGE_UNIT[name]}
        src["sim.page_unit"] = ("swapsim: simulation granularity for ~10^9 order-0 page swaps; halving it moves "
                                "sys and real < 3% (tests/unit/test_kbuild.cpp)")
    if mthp:
        k["mthp"] = {"enabled": mthp}
        src["kernel.mthp.enabled"] = SEED + ": \"With 64k folio\""
    s["workload"] = {"type": "kbuild", "kbuild": {"jobs": jobs}}
    src.setdefault("machine.sockets", "inferred: one socket (not stated)")
    src.setdefault("machine.threads_per_core", "inferred: not stated")
    src.setdefault("swap.device", SEED + ": \"16G ZRAM\"")
    src.setdefault("swap.size", SEED + ": \"32G NVMEs\" (matrix row: inferred, not stated)")
    src.setdefault("kernel.zswap.enabled", "inferred: the ZRAM rows swap to zram alone (zswap off)")
    s["sources"] = src
    return s


def write(folder, s, swap_cache=True):
    os.makedirs(folder, exist_ok=True)
    variants = [("before", None)] + ([("after", "swap_table")] if swap_cache else [])
    for name, sc in variants:
        x = json.loads(json.dumps(s))
        x["name"] = os.path.basename(folder) + "-" + name
        x["$schema"] = os.path.relpath("scenarios/swapsim.schema.json", folder)
        if swap_cache:
            x.setdefault("kernel", {})["swap_cache"] = sc or "xarray"
            x["sources"]["kernel.swap_cache"] = SEED + (": after the series (swap table)" if sc else
                                                       ": before the series (v6.17's XArray swap cache)")
        with open(os.path.join(folder, name + ".json"), "w") as f:
            json.dump(x, f, indent=2)
            f.write("\n")


def main():
    swap_cache = True
    for folder, jobs, limit, backend, mthp in ROWS:
        write(f"{OUT}/kbuild-matrix-zram-zswap/{folder}",
              scenario(folder, jobs, limit, backend, mthp), swap_cache)
    write(f"{OUT}/kbuild-48c-4G-vm-zswap-nvme", scenario("kbuild-48c-4G-vm-zswap-nvme", 48, None, "zswap", None, vm=True), swap_cache)
    write(f"{OUT}/kbuild-48c-4G-vm-zram16G", scenario("kbuild-48c-4G-vm-zram16G", 48, None, "zram", None, vm=True), swap_cache)


if __name__ == "__main__":
    main()
