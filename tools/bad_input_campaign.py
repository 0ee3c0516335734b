#!/usr/bin/env python3
"""Bad-input campaign (issue #28) against the newer features: kbuild, zram, HDD, global memory
pressure, the swap table, sweep, calibrate --cross-validate, compare --targets/--published,
trace output and --set parsing.

Each case runs one swapsim command (60 s timeout) from the source directory with TMPDIR and its
outputs in a fresh folder, and must: end (no hang), exit 0, 1 (a time or budget limit) or 2 (bad
input) -- never a signal or 3 (a broken invariant) --, print exactly one line on stderr when it
fails, name the file or option and, for a scenario value, its JSON path ($.a.b), leave nothing
behind when it fails (its folder, TMPDIR and the source tree unchanged), and, where the case says
so, exit with the status it expects.

Usage: tools/bad_input_campaign.py [--binary build/swapsim] [-j 2] [--only SUBSTRING] [-v]
Exit status 0 when every case passes; the failures and the counts are printed.
"""
import argparse
import concurrent.futures as cf
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 60

# Bases, read once.
def load(path):
    with open(os.path.join(ROOT, path)) as f:
        j = json.load(f)
    j.pop("$schema", None)
    return j

SMALL = "tests/data/small.json"
KBUILD = "tests/data/kbuild-small.json"
ZRAM = "tests/data/swapinout_zram.json"
PRESSURE = "tests/data/pressure.json"

DEL = object()   # a value that deletes the key


def mutate(base, changes):
    """base scenario (path) with dotted keys set (or deleted with DEL), as JSON text."""
    j = load(base)
    for key, value in changes.items():
        parts = key.split(".")
        node = j
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        if value is DEL:
            node.pop(parts[-1], None)
        else:
            node[parts[-1]] = value
    return json.dumps(j, indent=1)


CASES = []


def case(name, args, expect="any", path=None, files=None, mention=None):
    """expect: 'bad' (exit 2), 'ok' (exit 0), 'limit' (exit 1), 'any' (0, 1 or 2).
    path: the JSON path the error line must name. mention: a string it must contain.
    files: {name: text} written to the case folder first; {W} in args is that folder."""
    CASES.append(dict(name=name, args=args, expect=expect, path=path, files=files or {}, mention=mention))


def scen(name, base, changes, expect="any", path=None, cmd="run", extra=(), mention=None):
    """A scenario mutated from base, run (or validated) from the case folder."""
    case(name, [cmd, "{W}/s.json", *extra], expect, path, {"s.json": mutate(base, changes)},
         mention="s.json" if mention is None and expect == "bad" else mention)


def build_cases():
    q = ["--set", "sim.wall_limit=40s"]   # every run that may run long has a budget below the timeout
    # --- A. kbuild -------------------------------------------------------------------------------
    scen("kbuild_jobs_zero", KBUILD, {"workload.kbuild.jobs": 0}, "bad", "$.workload.kbuild.jobs", "validate")
    scen("kbuild_jobs_string", KBUILD, {"workload.kbuild.jobs": "4"}, "bad", "$.workload.kbuild.jobs", "validate")
    scen("kbuild_jobs_float", KBUILD, {"workload.kbuild.jobs": 2.5}, "bad", "$.workload.kbuild.jobs", "validate")
    scen("kbuild_units_zero", KBUILD, {"workload.kbuild.units": 0}, "bad", "$.workload.kbuild.units", "validate")
    scen("kbuild_link_steps_negative", KBUILD, {"workload.kbuild.link_steps": -1}, "bad", "$.workload.kbuild.link_steps", "validate")
    scen("kbuild_link_rss_zero", KBUILD, {"workload.kbuild.link_rss": "0"}, "bad", "$.workload.kbuild.link_rss", "validate")
    scen("kbuild_link_rss_tiny", KBUILD, {"workload.kbuild.link_rss": "1K"}, "bad", "$.workload.kbuild.link_rss", "validate")
    scen("kbuild_heap_reuse_high", KBUILD, {"workload.kbuild.heap_reuse": 51}, "bad", "$.workload.kbuild.heap_reuse", "validate")
    scen("kbuild_heap_reuse_nan", KBUILD, {"workload.kbuild.heap_reuse": "nan"}, "bad", "$.workload.kbuild.heap_reuse", "validate")
    scen("kbuild_steps_zero", KBUILD, {"workload.kbuild.steps": 0}, "bad", "$.workload.kbuild.steps", "validate")
    scen("kbuild_typo_key", KBUILD, {"workload.kbuild.job": 4}, "bad", "$.workload.kbuild.job", "validate")
    scen("kbuild_section_array", KBUILD, {"workload.kbuild": [1, 2]}, "bad", "$.workload.kbuild", "validate")
    scen("kbuild_link_user_negative", KBUILD, {"workload.kbuild.link_user": "-1s"}, "bad", "$.workload.kbuild.link_user", "validate")
    scen("workload_type_unknown", KBUILD, {"workload.type": "kbuid"}, "bad", "$.workload.type", "validate")
    scen("workload_type_number", KBUILD, {"workload.type": 3}, "bad", "$.workload.type", "validate")
    scen("kbuild_jobs_beyond_units", KBUILD, {"workload.kbuild.jobs": 4096, "workload.kbuild.units": 3, "workload.kbuild.link_steps": 0}, extra=q)
    scen("kbuild_no_link_no_user", KBUILD, {"workload.kbuild.link_steps": 0, "workload.kbuild.link_user": "0s", "workload.kbuild.units": 4}, "ok", extra=q)
    scen("kbuild_tiny_memcg", KBUILD, {"kernel.memcg.max": "4M", "workload.kbuild.units": 6}, extra=q)
    scen("kbuild_link_above_max", KBUILD, {"workload.kbuild.link_rss": "1G", "workload.kbuild.units": 4}, extra=q)
    scen("kbuild_no_swap_small_max", KBUILD, {"swap.device": "none", "kernel.memcg.max": "64M", "workload.kbuild.units": 8}, extra=q)
    scen("kbuild_global_pressure", KBUILD, {"kernel.memcg.max": DEL, "machine.dram": "256M", "workload.kbuild.units": 8}, extra=q)
    scen("kbuild_with_usemem_section", KBUILD, {"workload.usemem.nproc": 0}, "bad", "$.workload.usemem.nproc", "validate")
    case("kbuild_set_jobs_exp", ["validate", KBUILD, "--set", "workload.kbuild.jobs=1e3"], "any", mention="workload.kbuild.jobs")
    case("kbuild_wall_budget", ["run", KBUILD, "--set", "workload.kbuild.units=100000", "--set", "sim.wall_limit=3s", "--out", "{W}/o"], "limit", "$.sim.wall_limit")
    # --- B. zram ---------------------------------------------------------------------------------
    scen("zram_disksize_zero", ZRAM, {"swap.zram.disksize": "0"}, "bad", "$.swap.zram.disksize", "validate")
    scen("zram_disksize_huge", ZRAM, {"swap.zram.disksize": "1e16"}, "bad", "$.swap.zram.disksize", "validate")
    scen("zram_disksize_4k", ZRAM, {"swap.zram.disksize": "4K"}, "bad", "$.swap.zram.disksize", "validate")
    scen("zram_disksize_4k_run", ZRAM, {"swap.zram.disksize": "4K"}, "bad", "$.swap.zram.disksize", "run")
    scen("zram_comp_unknown", ZRAM, {"swap.zram.comp_algorithm": "deflate"}, "bad", "$.swap.zram.comp_algorithm", "validate")
    scen("zram_comp_empty", ZRAM, {"swap.zram.comp_algorithm": ""}, "bad", "$.swap.zram.comp_algorithm", "validate")
    scen("zram_multi_pages_string", ZRAM, {"swap.zram.multi_pages": "yes"}, "bad", "$.swap.zram.multi_pages", "validate")
    scen("zram_multi_pages_order_zero", ZRAM, {"swap.zram.multi_pages_order": 0}, "bad", "$.swap.zram.multi_pages_order", "validate")
    scen("zram_multi_pages_order_ten", ZRAM, {"swap.zram.multi_pages_order": 10}, "bad", "$.swap.zram.multi_pages_order", "validate")
    scen("zram_multi_pages_order9_run", ZRAM, {"swap.zram.multi_pages": True, "swap.zram.multi_pages_order": 9}, "bad", "$.swap.zram.multi_pages_order", extra=q)
    scen("zram_multi_pages_2m_run", ZRAM, {"swap.zram.multi_pages": True, "kernel.mthp.enabled": "2M"}, "ok", extra=q)
    scen("zram_section_with_ssd", ZRAM, {"swap.device": "ssd"}, extra=q)
    scen("zram_disksize_above_ram", ZRAM, {"swap.zram.disksize": "64G"}, extra=q)
    scen("zram_under_zswap", ZRAM, {"kernel.zswap.enabled": True}, "ok", extra=q)
    scen("zram_full", ZRAM, {"swap.zram.disksize": "2M", "workload.swapinout.size": "64M", "workload.swapinout.rounds": 2}, extra=q)
    scen("zram_zero_pages_all", ZRAM, {"workload.swapinout.zero_pages": 100}, "ok", extra=q)
    scen("zram_zero_pages_over", ZRAM, {"workload.swapinout.zero_pages": 101}, "bad", "$.workload.swapinout.zero_pages", "validate")
    scen("zram_data_unknown", ZRAM, {"workload.swapinout.data": "json"}, "bad", "$.workload.swapinout.data", "validate")
    case("zram_small_usemem", ["run", SMALL, "--set", "swap.device=zram", "--set", "swap.zram.disksize=96M", "--set", "sim.wall_limit=40s"])
    scen("zram_swap_table", ZRAM, {"kernel.swap_cache": "swap_table"}, "ok", extra=q)
    # --- C. HDD ----------------------------------------------------------------------------------
    case("hdd_rpm_zero", ["validate", SMALL, "--set", "swap.hdd.rpm=0"], "bad", "swap.hdd.rpm")
    case("hdd_rpm_high", ["validate", SMALL, "--set", "swap.hdd.rpm=15001"], "bad", "swap.hdd.rpm")
    case("hdd_bw_zero", ["validate", SMALL, "--set", "swap.hdd.bw=0"], "bad", "swap.hdd.bw")
    case("hdd_bw_no_rate", ["validate", SMALL, "--set", "swap.hdd.bw=160MB"], "bad", "swap.hdd.bw")
    case("hdd_seek_over", ["validate", SMALL, "--set", "swap.hdd.seek_full=1s"], "bad", "swap.hdd.seek_full")
    scen("hdd_track_above_full", SMALL, {"swap.device": "hdd", "swap.hdd.seek_track": "20ms", "swap.hdd.seek_full": "1ms"}, "any", extra=q)
    scen("hdd_run", SMALL, {"swap.device": "hdd", "kernel.zswap.enabled": False, "workload.usemem.size": "64M"}, extra=q)
    scen("hdd_no_seek", SMALL, {"swap.device": "hdd", "kernel.zswap.enabled": False, "swap.hdd.seek_track": "0s", "swap.hdd.seek_full": "0s", "workload.usemem.size": "64M"}, extra=q)
    scen("hdd_one_cluster", SMALL, {"swap.device": "hdd", "kernel.zswap.enabled": False, "swap.size": "2M"}, extra=q)
    scen("hdd_swap_table", SMALL, {"swap.device": "hdd", "kernel.zswap.enabled": False, "kernel.swap_cache": "swap_table", "workload.usemem.size": "64M"}, extra=q)
    scen("hdd_section_string", SMALL, {"swap.device": "hdd", "swap.hdd": "fast"}, "bad", "$.swap.hdd", "validate")
    # --- D. global memory pressure ---------------------------------------------------------------
    scen("dram_1m", PRESSURE, {"machine.dram": "1M"}, extra=q)
    scen("dram_4k", PRESSURE, {"machine.dram": "4K"}, extra=q)
    scen("dram_64m_no_swap", PRESSURE, {"machine.dram": "64M", "swap.device": "none"}, extra=q)
    scen("min_free_above_ram", PRESSURE, {"kernel.vm.min_free_kbytes": 67108864}, extra=q)
    scen("min_free_half_ram", PRESSURE, {"kernel.vm.min_free_kbytes": 1048576}, extra=q)
    scen("wsf_max", PRESSURE, {"kernel.vm.watermark_scale_factor": 3000}, extra=q)
    scen("wsf_zero", PRESSURE, {"kernel.vm.watermark_scale_factor": 0}, "bad", "$.kernel.vm.watermark_scale_factor", "validate")
    scen("min_free_negative", PRESSURE, {"kernel.vm.min_free_kbytes": -1}, "bad", "$.kernel.vm.min_free_kbytes", "validate")
    scen("pressure_swap_1m", PRESSURE, {"swap.size": "1M"}, "bad", "$.swap.size", "validate")
    scen("pressure_swap_one_cluster", PRESSURE, {"swap.size": "2M"}, extra=q)
    scen("pressure_one_big_task", PRESSURE, {"swap.size": "512M", "workload.usemem.nproc": 1, "workload.usemem.size": "3G"}, extra=q)
    scen("pressure_and_memcg_max", PRESSURE, {"kernel.memcg.max": "1G"}, extra=q)
    scen("pressure_high_above_ram", PRESSURE, {"kernel.memcg.high": "4G"}, "bad", "$.kernel.memcg.high", "validate")
    scen("pressure_zswap_full_pool", PRESSURE, {"kernel.zswap.enabled": True, "kernel.zswap.max_pool_percent": 100}, extra=q)
    scen("pressure_zswap_no_writeback", PRESSURE, {"kernel.zswap.enabled": True, "kernel.zswap.writeback": False}, extra=q)
    scen("pressure_membind_missing_node", PRESSURE, {"workload.membind": 1}, "bad", "$.workload.membind", "validate")
    scen("pressure_memoryless_node", PRESSURE, {"machine.sockets": 2, "machine.cores_per_socket": 4,
                                                "machine.memory_nodes": 1}, "ok", extra=q)
    scen("memory_nodes_above_sockets", PRESSURE, {"machine.memory_nodes": 2}, "bad", "$.machine.memory_nodes", "validate")
    scen("membind_to_memoryless_node", PRESSURE, {"machine.sockets": 2, "machine.memory_nodes": 1, "workload.membind": 1},
         "bad", "$.workload.membind", "validate")
    case("codec_speed_zero", ["validate", SMALL, "--set", "machine.codec_speed=0"], "bad", "machine.codec_speed")
    case("zram_zswap_ever_enabled", ["run", SMALL, "--set", "swap.device=zram", "--set", "kernel.zswap.enabled=false",
                                     "--set", "kernel.zswap.ever_enabled=true", "--set", "machine.codec_speed=3",
                                     "--set", "sim.wall_limit=40s"], "ok")
    scen("pressure_size_zero", PRESSURE, {"workload.usemem.size": "0"}, "bad", "$.workload.usemem.size", "validate")
    scen("pressure_repeat", PRESSURE, {"workload.usemem.repeat": 3, "workload.usemem.nproc": 2}, extra=q)
    scen("pressure_swapinout", PRESSURE, {"workload.type": "swapinout", "workload.swapinout.size": "3G", "workload.swapinout.rounds": 1}, extra=q)
    # --- E. swap cache ---------------------------------------------------------------------------
    case("swap_cache_typo", ["validate", SMALL, "--set", "kernel.swap_cache=swaptable"], "bad", "kernel.swap_cache")
    scen("swap_cache_number", SMALL, {"kernel.swap_cache": 1}, "bad", "$.kernel.swap_cache", "validate")
    case("swap_table_si_lock", ["run", SMALL, "--set", "kernel.swap_cache=swap_table", "--set", "kernel.swap_alloc=si_lock", "--set", "sim.wall_limit=40s"], "ok")
    case("swap_table_no_slot_cache", ["run", SMALL, "--set", "kernel.swap_cache=swap_table", "--set", "kernel.swap_slot_cache=false", "--set", "sim.wall_limit=40s"], "ok")
    case("swap_table_pressure", ["run", PRESSURE, "--set", "kernel.swap_cache=swap_table", "--set", "sim.wall_limit=40s"])
    case("swap_table_no_thp_swap", ["run", SMALL, "--set", "kernel.swap_cache=swap_table", "--set", "kernel.thp_swap=false", "--set", "kernel.zswap.enabled=false", "--set", "sim.wall_limit=40s"], "ok")
    # --- F. sweep --------------------------------------------------------------------------------
    case("sweep_swap_cache", ["sweep", SMALL, "--vary", "kernel.swap_cache=xarray,swap_table", "-j", "1", "--set", "sim.wall_limit=40s"], "ok")
    case("sweep_vary_type", ["sweep", SMALL, "--vary", "workload.type=usemem,kbuild", "-j", "1", "--set", "sim.wall_limit=25s"])
    case("sweep_vary_no_values", ["sweep", SMALL, "--vary", "kernel.memcg.high="], "bad", mention="--vary")
    case("sweep_vary_trailing_comma", ["sweep", SMALL, "--vary", "kernel.memcg.high=1G,"], "bad", mention="--vary")
    case("sweep_vary_no_equals", ["sweep", SMALL, "--vary", "kernel.memcg.high"], "bad", mention="--vary")
    case("sweep_vary_missing", ["sweep", SMALL, "--vary"], "bad", mention="--vary")
    case("sweep_no_vary", ["sweep", SMALL], "bad", mention="--vary")
    case("sweep_runs_zero", ["sweep", SMALL, "--vary", "seed=1", "--runs", "0"], "bad", mention="--runs")
    case("sweep_runs_text", ["sweep", SMALL, "--vary", "seed=1", "--runs", "abc"], "bad", mention="--runs")
    case("sweep_runs_huge", ["sweep", SMALL, "--vary", "seed=1", "--runs", "1000000000"], "bad", mention="--runs")
    case("sweep_j_zero", ["sweep", SMALL, "--vary", "seed=1", "-j", "0"], "bad", mention="-j")
    case("sweep_show_empty", ["sweep", SMALL, "--vary", "seed=1", "--show", ""], "bad", mention="--show")
    case("sweep_show_unknown", ["sweep", SMALL, "--vary", "seed=1", "--show", "throughput"], "bad", mention="--show")
    case("sweep_max_points_zero", ["sweep", SMALL, "--vary", "seed=1,2", "--max-points", "0"], "bad", mention="--max-points")
    case("sweep_max_points_text", ["sweep", SMALL, "--vary", "seed=1,2", "--max-points", "x"], "bad", mention="--max-points")
    case("sweep_max_points_exceeded", ["sweep", SMALL, "--vary", "seed=1,2,3", "--max-points", "2"], "bad", mention="3")
    case("sweep_out_is_file", ["sweep", SMALL, "--vary", "seed=1", "--out", "{W}/f"], "bad", files={"f": "x"}, mention="{W}/f")
    case("sweep_job_list_no_out", ["sweep", SMALL, "--vary", "seed=1", "--job-list", "{W}/jobs.txt"], "bad", mention="--job-list")
    case("sweep_job_list_dev_full", ["sweep", SMALL, "--vary", "seed=1", "--out", "{W}/o", "--job-list", "/dev/full"], "bad", mention="/dev/full")
    case("sweep_csv_and_json", ["sweep", SMALL, "--vary", "seed=1", "--csv", "--json"], "bad")
    case("sweep_bad_point", ["sweep", SMALL, "--vary", "swap.size=1G,1M", "--out", "{W}/o"], "bad", "$.swap.size")
    case("sweep_long_value", ["sweep", SMALL, "--vary", "kernel.memcg.high=" + "9" * 100000], "bad", "kernel.memcg.high")
    case("sweep_vary_and_set_same", ["sweep", SMALL, "--vary", "seed=1,2", "--set", "seed=3", "-j", "1"])
    case("sweep_vary_section", ["sweep", SMALL, "--vary", "kernel.memcg=1,2"], "bad", mention="kernel.memcg")
    case("sweep_scenario_missing", ["sweep", "{W}/nope.json", "--vary", "seed=1"], "bad", mention="nope.json")
    # --- G. calibrate --cross-validate -----------------------------------------------------------
    cv = ["calibrate", "--cross-validate"]
    case("cv_no_out", cv, "bad", mention="--out")
    case("cv_out_folder", cv + ["--out", "{W}"], "bad", mention="--out")
    case("cv_out_proc", cv + ["--out", "/proc/self/x.json"], "bad", mention="/proc/self/x.json")
    case("cv_scale_zero", cv + ["--out", "{W}/cv.json", "--scale", "0"], "bad", mention="--scale")
    case("cv_scale_text", cv + ["--out", "{W}/cv.json", "--scale", "big"], "bad", mention="--scale")
    case("cv_tables_unknown", cv + ["--out", "{W}/cv.json", "--tables", "no/such"], "bad", mention="no/such")
    case("cv_one_family", cv + ["--out", "{W}/cv.json", "--tables", "zswap-mthp-v7/case1-64k"], "bad", mention="--tables")
    case("cv_levels_missing", cv + ["--out", "{W}/cv.json", "--levels", "{W}/none.json"], "bad", mention="none.json")
    case("cv_levels_malformed", cv + ["--out", "{W}/cv.json", "--levels", "{W}/l.json"], "bad", files={"l.json": "{\"cells\": ["}, mention="l.json")
    case("cv_levels_wrong_schema", cv + ["--out", "{W}/cv.json", "--levels", "{W}/l.json"], "bad", files={"l.json": "{\"cells\": 5}"}, mention="l.json")
    case("cv_levels_array", cv + ["--out", "{W}/cv.json", "--levels", "{W}/l.json"], "bad", files={"l.json": "[1,2]"}, mention="l.json")
    case("cv_free_unknown", cv + ["--out", "{W}/cv.json", "--free", "cost.nope"], "bad", mention="cost.nope")
    case("cv_free_not_cost", cv + ["--out", "{W}/cv.json", "--free", "workload.usemem.nproc"], "bad", mention="workload.usemem.nproc")
    case("cv_weights_unknown", cv + ["--out", "{W}/cv.json", "--weights", "foo=1"], "bad", mention="foo")
    case("cv_weights_negative", cv + ["--out", "{W}/cv.json", "--weights", "sys_s=-1"], "bad", mention="sys_s")
    case("cv_weights_nan", cv + ["--out", "{W}/cv.json", "--weights", "sys_s=nan"], "bad", mention="sys_s")
    case("cv_with_train", cv + ["--out", "{W}/cv.json", "--train", "zswap-mthp-v7/case1-64k"], "bad", mention="--train")
    case("cv_published_garbage", cv + ["--out", "{W}/cv.json", "--published", "{W}/p.json"], "bad", files={"p.json": "\x01\x02garbage"}, mention="p.json")
    case("cv_j_negative", cv + ["--out", "{W}/cv.json", "-j", "-3"], "bad", mention="-j")
    # --- H. compare --targets / --published ------------------------------------------------------
    small_targets = {"targets": [{"table": "zswap-mthp-v7/regression-4k", "column": c, "scenario": SMALL,
                                  "metrics": ["throughput_kbps", "sys_s"]} for c in ("mm_unstable_zstd", "mm_unstable_deflate_iaa")]}
    case("compare_small_targets", ["compare", "zswap-mthp-v7/regression-4k", "--targets", "{W}/t.json", "--runs", "1", "-j", "1", "--no-write"], "ok",
         files={"t.json": json.dumps(small_targets)})
    case("compare_targets_missing", ["compare", "--all", "--targets", "{W}/none.json", "--no-write"], "bad", mention="none.json")
    case("compare_targets_array", ["compare", "--all", "--targets", "{W}/t.json", "--no-write"], "bad", files={"t.json": "[]"}, mention="t.json")
    case("compare_targets_not_list", ["compare", "--all", "--targets", "{W}/t.json", "--no-write"], "bad", files={"t.json": "{\"targets\": 5}"}, mention="t.json")
    case("compare_targets_entry_fields", ["compare", "--all", "--targets", "{W}/t.json", "--no-write"], "bad",
         files={"t.json": "{\"targets\": [{\"table\": 1}]}"}, mention="t.json")
    case("compare_targets_scenario_missing", ["compare", "zswap-mthp-v7/regression-4k", "--targets", "{W}/t.json", "--runs", "1", "--no-write"], "bad",
         files={"t.json": json.dumps({"targets": [dict(small_targets["targets"][0], scenario="{W}/gone.json")]})}, mention="gone.json")
    case("compare_targets_unknown_metric", ["compare", "zswap-mthp-v7/regression-4k", "--targets", "{W}/t.json", "--runs", "1", "--no-write"], "bad",
         files={"t.json": json.dumps({"targets": [dict(small_targets["targets"][0], metrics=["speed"])]})}, mention="speed")
    case("compare_targets_table_unpublished", ["compare", "--all", "--targets", "{W}/t.json", "--runs", "1", "--no-write"], "bad",
         files={"t.json": json.dumps({"targets": [dict(small_targets["targets"][0], table="my/table")]})}, mention="t.json")
    case("compare_published_tables_empty", ["compare", "--all", "--published", "{W}/p.json", "--no-write"], "bad", files={"p.json": "{\"tables\": []}"}, mention="p.json")
    case("compare_published_table_no_id", ["compare", "--all", "--published", "{W}/p.json", "--no-write"], "bad", files={"p.json": "{\"tables\": [{}]}"}, mention="p.json")
    case("compare_published_binary", ["compare", "--all", "--published", "{W}/p.json", "--no-write"], "bad", files={"p.json": "\x00\x01\x02"}, mention="p.json")
    case("compare_unknown_table", ["compare", "no/such", "--no-write"], "bad", mention="no/such")
    case("compare_runs_zero", ["compare", "zswap-mthp-v7/regression-4k", "--runs", "0", "--no-write"], "bad", mention="--runs")
    case("compare_j_zero", ["compare", "zswap-mthp-v7/regression-4k", "-j", "0", "--no-write"], "bad", mention="-j")
    case("compare_results_is_file", ["compare", "zswap-mthp-v7/regression-4k", "--targets", "{W}/t.json", "--runs", "1", "--results", "{W}/f"], "bad",
         files={"f": "x", "t.json": json.dumps(small_targets)}, mention="{W}/f")
    case("compare_job_list_no_out", ["compare", "--all", "--job-list", "{W}/j.txt"], "bad", mention="--job-list")
    # --- I. trace output -------------------------------------------------------------------------
    case("trace_empty", ["run", SMALL, "--trace", ""], "bad", mention="--trace")
    case("trace_folder", ["run", SMALL, "--trace", "{W}"], "bad", mention="{W}")
    case("trace_missing_folder", ["run", SMALL, "--trace", "{W}/no/t.csv"], "bad", mention="{W}/no/t.csv")
    case("trace_step_zero", ["run", SMALL, "--trace", "{W}/t.csv", "--trace-step", "0"], "bad", mention="--trace-step")
    case("trace_step_negative", ["run", SMALL, "--trace", "{W}/t.csv", "--trace-step", "-1"], "bad", mention="--trace-step")
    case("trace_step_text", ["run", SMALL, "--trace", "{W}/t.csv", "--trace-step", "fast"], "bad", mention="--trace-step")
    case("trace_step_nan", ["run", SMALL, "--trace", "{W}/t.csv", "--trace-step", "nan"], "bad", mention="--trace-step")
    case("trace_step_tiny", ["run", SMALL, "--trace", "{W}/t.csv", "--trace-step", "1e-9", "--set", "sim.wall_limit=20s"])
    case("trace_step_huge", ["run", SMALL, "--trace", "{W}/t.csv", "--trace-step", "1e9"], "bad", mention="--trace-step")
    case("trace_step_alone", ["run", SMALL, "--trace-step", "1"], "bad", mention="--trace")
    case("trace_is_scenario", ["run", "{W}/s.json", "--trace", "{W}/s.json"], "bad", files={"s.json": mutate(SMALL, {})}, mention="s.json")
    case("trace_is_out_result", ["run", SMALL, "--out", "{W}/o", "--trace", "{W}/o/result.json"], "bad", mention="result.json")
    case("trace_dev_null", ["run", SMALL, "--trace", "/dev/null", "--set", "sim.wall_limit=40s"], "ok")
    case("trace_kbuild", ["run", KBUILD, "--trace", "{W}/t.csv", "--set", "workload.kbuild.units=6", "--set", "sim.wall_limit=40s"], "ok")
    case("trace_zram_baseline", ["run", ZRAM, "--trace", "{W}/t.csv", "--baseline", ZRAM, "--set", "sim.wall_limit=40s"], "ok")
    # --- J. --set parsing ------------------------------------------------------------------------
    v = ["validate", SMALL]
    case("set_empty_key", v + ["--set", "=5"], "bad", mention="--set")
    case("set_no_equals", v + ["--set", "kernel.memcg.high"], "bad", mention="--set")
    case("set_double_equals", v + ["--set", "kernel.memcg.high=="], "bad", mention="kernel.memcg.high")
    case("set_empty_segment", v + ["--set", "kernel..memcg=1"], "bad", mention="--set")
    case("set_leading_dot", v + ["--set", ".kernel.memcg.high=1G"], "bad", mention="--set")
    case("set_trailing_space", v + ["--set", "kernel.memcg.high=1G "], "any")
    case("set_section", v + ["--set", "kernel.memcg=5"], "bad", mention="kernel.memcg")
    case("set_below_leaf", v + ["--set", "kernel.memcg.high.x=1"], "bad", mention="kernel.memcg.high")
    case("set_json_array", v + ["--set", "kernel.mthp.enabled=[\"64K\",\"2M\"]"], "any")
    case("set_cpus_overlap", v + ["--set", "workload.cpus=0-3,2"], "bad", mention="workload.cpus")
    case("set_cpus_negative", v + ["--set", "workload.cpus=-1"], "bad", mention="workload.cpus")
    case("set_cpus_huge", v + ["--set", "workload.cpus=4294967296"], "bad", mention="workload.cpus")
    case("set_seed_negative", v + ["--set", "seed=-1"], "bad", mention="seed")
    case("set_seed_float", v + ["--set", "seed=1.5"], "bad", mention="seed")
    case("set_dram_inf", v + ["--set", "machine.dram=1e999"], "bad", mention="machine.dram")
    case("set_hex", v + ["--set", "kernel.memcg.high=0x10"], "bad", mention="kernel.memcg.high")
    case("set_percent_suffix", v + ["--set", "kernel.swappiness=60%"], "bad", mention="kernel.swappiness")
    case("set_unicode_key", v + ["--set", "kérnel.memcg.high=1G"], "bad", mention="--set")
    case("set_schema", v + ["--set", "$schema=x"], "any")
    case("set_sources", v + ["--set", "sources.kernel.memcg.high=mine"], "any")
    case("set_name_empty", v + ["--set", "name="], "any")
    case("set_newline_value", v + ["--set", "description=a\nb"], "any")
    case("set_null", v + ["--set", "kernel.memcg.high=null"], "bad", mention="kernel.memcg.high")
    case("set_object", v + ["--set", "kernel.memcg.high={}"], "bad", mention="kernel.memcg.high")
    case("set_time_hours", v + ["--set", "sim.time_limit=1h"], "any")
    case("set_missing_arg", v + ["--set"], "bad", mention="--set")
    case("set_wall_limit_zero", v + ["--set", "sim.wall_limit=0"], "bad", mention="sim.wall_limit")
    case("set_rss_limit_small", v + ["--set", "sim.rss_limit=1M"], "bad", mention="sim.rss_limit")


def run_case(c, binary):
    work = tempfile.mkdtemp(prefix="swapsim_campaign.")
    tmp = os.path.join(work, "tmp")
    os.mkdir(tmp)
    W = os.path.join(work, "w")
    os.mkdir(W)
    for name, text in c["files"].items():
        with open(os.path.join(W, name), "w") as f:
            f.write(text.replace("{W}", W))
    before = sorted(os.listdir(W))
    args = [a.replace("{W}", W) for a in c["args"]]
    env = dict(os.environ, TMPDIR=tmp)
    env.pop("SWAPSIM_SANITIZE", None)
    t0 = time.time()
    # Its own process group: a case that hangs is killed with every simulation it started.
    p = subprocess.Popen([binary] + args, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = p.communicate(timeout=TIMEOUT)
        status = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        _, err = p.communicate()
        status = "hang"
    err = err.decode("utf-8", "replace")
    wall = time.time() - t0
    problems = []
    if status == "hang":
        problems.append("hang: no end in %d s" % TIMEOUT)
    elif status < 0 or status >= 128:
        problems.append("crash: signal %d" % (-status if status < 0 else status - 128))
    elif status == 3:
        problems.append("broken invariant (exit 3)")
    elif status not in (0, 1, 2):
        problems.append("crash: exit %d" % status)
    if status in (1, 2):
        lines = err.count("\n")
        if lines != 1 or not err.endswith("\n"):
            problems.append("message: %d lines on stderr" % lines)
        first = err.splitlines()[0] if err else ""
        if c["path"] and c["path"] not in first:
            problems.append("message: no JSON path %s" % c["path"])
        mention = c["mention"].replace("{W}", W) if c["mention"] else None
        if mention and mention not in first:
            problems.append("message: does not name %s" % mention)
        if len(first) > 600:
            problems.append("message: %d characters" % len(first))
    expect = c["expect"]
    want = {"bad": (2,), "ok": (0,), "limit": (1,), "any": (0, 1, 2)}[expect]
    if status != "hang" and status in (0, 1, 2, 3) and status not in want:
        problems.append("status %s, expected %s" % (status, "/".join(map(str, want))))
    if status != 0:
        after = sorted(os.listdir(W))
        if after != before:
            problems.append("left behind in its folder: %s" % sorted(set(after) - set(before)))
    if os.listdir(tmp):
        problems.append("left behind in TMPDIR: %s" % os.listdir(tmp))
    shutil.rmtree(work, ignore_errors=True)
    return dict(name=c["name"], status=status, wall=wall, problems=problems, err=err.strip()[:300])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "swapsim"))
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("-v", action="store_true", help="print every case's status and first line")
    a = ap.parse_args()
    build_cases()
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    cases = [c for c in CASES if a.only in c["name"]]
    git_before = subprocess.run(["git", "status", "--porcelain", "--ignored=no"], cwd=ROOT, capture_output=True, text=True).stdout
    t0 = time.time()
    with cf.ThreadPoolExecutor(a.j) as ex:
        results = list(ex.map(lambda c: run_case(c, os.path.abspath(a.binary)), cases))
    git_after = subprocess.run(["git", "status", "--porcelain", "--ignored=no"], cwd=ROOT, capture_output=True, text=True).stdout
    kinds = {"crash": 0, "hang": 0, "broken": 0, "left": 0, "message": 0, "status": 0}
    for r in results:
        for p in r["problems"]:
            for k in kinds:
                if p.startswith(k):
                    kinds[k] += 1
        if a.v or r["problems"]:
            print("%-36s exit %-4s %5.1fs %s" % (r["name"], r["status"], r["wall"], "; ".join(r["problems"]) or "ok"))
            if r["problems"] or a.v:
                print("    " + (r["err"].replace("\n", "\n    ") or "(no stderr)"))
    if git_after != git_before:
        print("source tree changed:\n" + git_after)
        kinds["left"] += 1
    bad = sum(1 for r in results if r["problems"])
    print("cases %d, failing %d (crash %d, hang %d, broken invariant %d, left behind %d, message %d, status %d); "
          "exit 0/1/2: %d/%d/%d; %.0f s" % (
              len(results), bad, kinds["crash"], kinds["hang"], kinds["broken"], kinds["left"], kinds["message"],
              kinds["status"], sum(r["status"] == 0 for r in results), sum(r["status"] == 1 for r in results),
              sum(r["status"] == 2 for r in results), time.time() - t0))
    return 1 if bad or git_after != git_before else 0


if __name__ == "__main__":
    sys.exit(main())
