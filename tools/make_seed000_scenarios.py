#!/usr/bin/env python3
"""Write the scenarios that reproduce the seed-000 (zswap mTHP v7) table columns.

Each scenario states only the published setup (machine, kernel configuration, workload),
never a model cost, and records in "sources" where every setting comes from.
Run from the repository root: python3 tools/make_seed000_scenarios.py
"""
import json
import os

SEED = "seed 000 (zswap-mTHP v7 cover letter, 2024-09-24)"
COMMON_SOURCES = {
    "machine.sockets": SEED + ": \"dual-socket 56 cores per socket\"",
    "machine.cores_per_socket": SEED + ": \"56 cores per socket\"",
    "machine.cpu_freq": SEED + ": \"Core frequency was fixed at 2500MHz\"",
    "machine.dram": SEED + ": \"503 GiB RAM\"",
    "machine.threads_per_core": "Sapphire Rapids Xeon: Hyper-Threading, 2 threads per core (the seed's 56-core "
                                "parts expose 224 logical CPUs)",
    "kernel.zswap.enabled": SEED + ": zswap is the swap cache under test (the SSD only backs it)",
    "workload.type": SEED + ": \"The vm-scalability \\\"usemem\\\" test\"",
    "swap.device": SEED + ": \"823G SSD disk partition swap\"",
    "swap.size": SEED + ": \"823G SSD disk partition swap\"",
    "swap.swapfile_free": "inferred from Case 1 (training): its THP_SWAP=Y columns fail 2,204-2,215 64K and "
                          "114-144 2M slot allocations per run, which v6.12 does on an empty partition only while a "
                          "higher-priority swap file (e.g. a distro /swap.img) still has room for order-0 slots; "
                          "147M reproduces case1-64k zstd's memcg_swap_fail (2,204)",
    "kernel.memcg.high": SEED + ": \"run in a cgroup whose memory.high was fixed at 40G\"",
    "kernel.page_cluster": SEED + ": \"SWAP page-cluster : 2\"",
    "workload.usemem.nproc": SEED + ": usemem --init-time -w -O -s 10 -n 70 1g",
    "workload.usemem.size": SEED + ": usemem ... 1g",
    "workload.usemem.sleep": SEED + ": usemem -s 10",
    "workload.usemem.init_time": SEED + ": usemem --init-time",
    "workload.usemem.anonymous": SEED + ": usemem -O",
    "workload.cpus": "inferred: the runs use one socket (\"8 compress engines available per socket\"), and "
                     "zswpout/memcg_high = 64-68 pages per memory.high event matches reclaim of one NUMA node "
                     "(two nodes would reclaim 128); socket 0 = CPUs 0-55 and their SMT siblings 112-167",
}


def base():
    return {
        "$schema": "../../swapsim.schema.json",
        "machine": {"sockets": 2, "cores_per_socket": 56, "threads_per_core": 2, "cpu_freq": "2.5GHz",
                    "dram": "503G"},
        "swap": {"device": "ssd", "size": "823G", "swapfile_free": "147M"},
        "kernel": {"memcg": {"high": "40G"}, "page_cluster": 2, "zswap": {"enabled": True}},
        "workload": {"type": "usemem", "cpus": "0-55,112-167",
                     "usemem": {"nproc": 70, "size": "1G", "sleep": "10s", "init_time": True, "anonymous": True}},
    }


IAA_V7 = {
    "machine.iaa.devices_per_socket": SEED + ": \"4 IAA devices per socket\"",
    "kernel.iaa.verify_compress": SEED + ": \"IAA compression verification is enabled\"",
    "kernel.iaa.sync_mode": "iaa_crypto default sync_mode in the v6.12 driver; seed 000 does not name another",
    "kernel.iaa.distribute": SEED + ": \"using only 1 IAA device per core, that avails of 2 compress engines\" "
                             "(the driver's per-CPU mapping)",
}
IAA_BATCH = {
    "machine.iaa.devices_per_socket": SEED + ": \"4 IAA devices per socket\"",
    "kernel.iaa.verify_compress": "not restated for the batching columns; the batching series (RFC v1 .. v13) "
                                  "turns verify_compress off by default",
    "kernel.iaa.sync_mode": "IAA batching RFC v1: batches are submitted, then polled (iaa_crypto async mode)",
    "kernel.iaa.distribute": SEED + ": \"we distribute compress jobs from all cores to the 8 compress engines "
                             "available per socket\"",
    "kernel.zswap.batch_size": SEED + ": \"We further compress the pages in each mTHP in parallel\"; "
                               "ZSWAP_MAX_BATCH_SIZE 8 in the batching series",
}


def with_iaa(s, batching):
    s["machine"]["iaa"] = {"devices_per_socket": 4}
    if batching:
        s["kernel"]["iaa"] = {"sync_mode": "async", "verify_compress": False, "distribute": "per_package"}
        s["kernel"]["zswap"]["batch_size"] = 8
        s["sources"].update(IAA_BATCH)
    else:
        s["kernel"]["iaa"] = {"sync_mode": "sync", "verify_compress": True, "distribute": "per_cpu"}
        s["sources"].update(IAA_V7)
    return s


def scenario(table, column, desc, mthp, thp_swap, large, compressor, extra_sources, sleep="10s"):
    s = base()
    s["name"] = f"{table}/{column}"
    s["description"] = desc
    s["kernel"]["mthp"] = {"enabled": mthp}
    s["kernel"]["thp_swap"] = thp_swap
    s["kernel"]["zswap"]["large_folios"] = large
    s["kernel"]["zswap"]["compressor"] = compressor
    s["workload"]["usemem"]["sleep"] = sleep
    src = dict(COMMON_SOURCES)
    src.update(extra_sources)
    s["sources"] = src
    return s


def write(table, column, s):
    d = os.path.join("scenarios", "zswap-mthp-v7", table)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, column + ".json"), "w") as f:
        json.dump(s, f, indent=2)
        f.write("\n")


def main():
    for comp in ("zstd", "deflate_iaa"):
        columns(comp)


def columns(comp):
    cname = comp.replace("_", "-")
    iaa = comp == "deflate_iaa"
    zstd = {"kernel.zswap.compressor": SEED + f": \"ZSWAP Compressors : zstd, deflate-iaa\" ({cname} column)"}

    def finish(s):
        return with_iaa(s, False) if iaa else s
    # 4K regression table: v6 data; the v7 changelog says --sleep 10 and the SSD were new in v7.
    for col, kern in ((f"mm_unstable_{comp}", "mm-unstable 8-28-2024"), (f"zswap_mthp_v6_{comp}", "zswap-mTHP v6")):
        src = dict(zstd)
        src.update({
            "kernel.mthp.enabled": "seed 000 regression table: \"without mTHP, i.e., only 4K folios\"",
            "kernel.thp_swap": "kernel default (no 4K folio is large)",
            "kernel.zswap.large_folios": "seed 000: " + kern + "; with 4K folios only the setting is moot",
            "workload.usemem.sleep": "seed 000 'Changes since v6': \"all experiments are run with usemem --sleep 10\" "
                                     "is new in v7, so the v6 data ran without -s",
        })
        write("regression-4k", col, finish(scenario("regression-4k", col, f"usemem 70 x 1G, 4K folios only, {cname} ({kern})",
                                                    "none", True, True, cname, src, sleep="0s")))
    for size, table1, table2, tbl_b in (("64K", "case1-64k", "case2-64k", "iaa-batching-64k"),
                                        ("2M", "case1-2m", "case2-2m", "iaa-batching-2m")):
        mthp_src = {"kernel.mthp.enabled": SEED + f": \"{size} mTHP\" (hugepages-{'64' if size == '64K' else '2048'}kB enabled)"}
        # Case 1 baseline: CONFIG_THP_SWAP=N, folios split before zswap.
        src = dict(zstd, **mthp_src)
        src.update({"kernel.thp_swap": SEED + ": Case 1 baseline \"CONFIG_THP_SWAP set to off\"",
                    "kernel.zswap.large_folios": SEED + ": baseline kernel mm-unstable 9-23-2024 (zswap rejects large folios)"})
        write(table1, f"baseline_{comp}", finish(scenario(table1, f"baseline_{comp}",
              f"Case 1 baseline: {size} mTHP split to 4K (CONFIG_THP_SWAP=N), zswap {cname}", size, False, False, cname, src)))
        # zswap-mTHP 'after': stored whole.
        src = dict(zstd, **mthp_src)
        src.update({"kernel.thp_swap": SEED + ": \"CONFIG_THP_SWAP=Y\"",
                    "kernel.zswap.large_folios": SEED + ": zswap-mTHP v7 stores mTHP whole"})
        after = finish(scenario(table1, f"zswap_mthp_{comp}", f"zswap-mTHP: {size} mTHP stored whole in zswap, {cname}",
                                size, True, True, cname, src))
        write(table1, f"zswap_mthp_{comp}", after)
        if size == "64K" and not iaa:   # the default scenario of `swapsim run` is this column
            d = dict(after, name="default")
            d["$schema"] = "swapsim.schema.json"
            d["description"] = ("usemem 70 x 1G in a 40G memory.high cgroup, 64K mTHP stored whole in zswap "
                                "with zstd: seed 000 case1-64k 'after' zstd column")
            with open(os.path.join("scenarios", "default.json"), "w") as f:
                json.dump(d, f, indent=2)
                f.write("\n")
        a2 = dict(after, name=f"{table2}/zswap_mthp_{comp}")
        write(table2, f"zswap_mthp_{comp}", a2)
        bcol = "iaa_fixed_v7" if iaa else "zstd_v7"
        write(tbl_b, bcol, dict(after, name=f"{tbl_b}/{bcol}"))
        if iaa:
            for bcol, bcomp in (("iaa_fixed_batching", "deflate-iaa"), ("iaa_canned_batching", "deflate-iaa-canned")):
                src = {"kernel.zswap.compressor": SEED + f": IAA {'Canned' if 'canned' in bcomp else 'Fixed'} + Batching column",
                       "kernel.thp_swap": SEED + ": zswap-mTHP, CONFIG_THP_SWAP=Y",
                       "kernel.zswap.large_folios": SEED + ": zswap stores mTHP whole"}
                src.update(mthp_src)
                b = scenario(tbl_b, bcol, f"{size} mTHP in zswap, {bcomp} with IAA compress batching (out-of-tree series)",
                             size, True, True, bcomp, src)
                write(tbl_b, bcol, with_iaa(b, True))
        # Case 2 baseline: zswap rejects mTHP, the SSD stores it.
        src = dict(zstd, **mthp_src)
        src.update({"kernel.thp_swap": SEED + ": Case 2 \"CONFIG_THP_SWAP is enabled in before and after\"",
                    "kernel.zswap.large_folios": SEED + ": Case 2 baseline \"zswap rejecting mTHP, and the mTHP being stored by the 823G SSD swap\""})
        write(table2, f"baseline_{comp}", finish(scenario(table2, f"baseline_{comp}",
              f"Case 2 baseline: zswap rejects {size} mTHP, the 823G SSD stores it ({cname} for split pages)",
              size, True, False, cname, src)))


def write_targets():
    """calibration/targets.json: every seed-000 column that has a scenario, seed 003's, seed 001's usemem
    tables', its kbuild rows and its Redis tables, with the metrics its table prints."""
    tables = json.load(open(os.path.join("calibration", "published", "seed-tables.json")))["tables"]
    targets = []
    for t in tables:
        if not t["id"].startswith("zswap-mthp-v7/") or t.get("duplicate_of"):
            continue
        table = t["id"].split("/", 1)[1]
        for col in t["columns"]:
            path = os.path.join("scenarios", "zswap-mthp-v7", table, col["key"] + ".json")
            if not os.path.exists(path):
                continue
            targets.append({"table": t["id"], "column": col["key"], "scenario": path,
                            "metrics": [r["metric"] for r in t["rows"]]})
    # Seed 003 (zsmalloc/zram multi-page objects): scenarios written by hand, one per column.
    seed003 = "zsmalloc-multipages-v2/zstd-16k-mthp-100MiB-x100"
    for t in tables:
        if t["id"] != seed003:
            continue
        for col, name in (("without_patches", "without"), ("with_patches", "with")):
            path = os.path.join("scenarios", seed003, name + ".json")
            if os.path.exists(path):
                targets.append({"table": t["id"], "column": col, "scenario": path,
                                "metrics": [r["metric"] for r in t["rows"]]})
    # Seed 001 kernel-build matrix (tools/make_seed001_kbuild_scenarios.py): one column per row
    # and kernel, "<row>/<before|after>" (compare/tables.cpp expands the rows' conditions).
    # The tight rows map the build's memory in units of sim.page_unit pages (docs/workloads.md).
    # One seed each ("runs": 1): a build is 2,728 jobs, whose seed-to-seed spread is under 1%
    # (tests/unit/test_kbuild.cpp's granularity runs, seeds 1-3), and a row costs minutes.
    kbuild = "swap-table-p1-v4/kbuild-matrix-zram-zswap"
    rows = sorted(os.listdir(os.path.join("scenarios", kbuild)), key=lambda r: (int(r.split("-")[0][1:]), r))
    for row in rows:
        for col in ("before", "after"):
            path = os.path.join("scenarios", kbuild, row, col + ".json")
            if os.path.exists(path):
                targets.append({"table": kbuild, "column": row + "/" + col, "scenario": path,
                                "metrics": ["sys_s", "real_s"], "runs": 1})
    # ... and its two 48-core 4G VM builds: one column per kernel.
    for vm in ("kbuild-48c-4G-vm-zswap-nvme", "kbuild-48c-4G-vm-zram16G"):
        for col in ("before", "after"):
            path = os.path.join("scenarios", "swap-table-p1-v4", vm, col + ".json")
            if os.path.exists(path):
                targets.append({"table": "swap-table-p1-v4/" + vm, "column": col, "scenario": path,
                                "metrics": ["sys_s", "real_s"], "runs": 1})
    # Seed 001 (swap table phase I): tools/make_seed001_scenarios.py writes one scenario per column.
    for t in tables:
        if not t["id"].startswith("swap-table-p1-v4/usemem-"):
            continue
        for col in t["columns"]:
            path = os.path.join("scenarios", t["id"], col["key"] + ".json")
            if os.path.exists(path):
                targets.append({"table": t["id"], "column": col["key"], "scenario": path,
                                "metrics": [r["metric"] for r in t["rows"]]})
    # ... and its "HDD swap is also ~40% faster with usemem" claim: a before/after pair (compare
    # shows it as a one-row table with the published change only).
    for col in ("before", "after"):
        path = os.path.join("scenarios", "swap-table-p1-v4", "hdd-usemem", col + ".json")
        if os.path.exists(path):
            targets.append({"table": "swap-table-p1-v4/hdd-usemem", "column": col, "scenario": path,
                            "metrics": ["sum_throughput_mbps"]})
    # ... and its Redis tables (tools/make_seed001_redis_scenarios.py): one column per BGSAVE mode
    # and kernel, "<no-bgsave|bgsave>/<before|after>" (the rows' conditions, as the matrix's).
    for table in ("redis-get-n2000000", "redis-get-n2500000"):
        for mode in ("no-bgsave", "bgsave"):
            for col in ("before", "after"):
                path = os.path.join("scenarios", "swap-table-p1-v4", table, mode + "-" + col + ".json")
                if os.path.exists(path):
                    targets.append({"table": "swap-table-p1-v4/" + table, "column": mode + "/" + col,
                                    "scenario": path, "metrics": ["rps"]})
    with open(os.path.join("calibration", "targets.json"), "w") as f:
        json.dump({"comment": "Written by tools/make_seed000_scenarios.py: the scenario that reproduces each "
                              "published column, and the metrics to compare.", "targets": targets}, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
    write_targets()
