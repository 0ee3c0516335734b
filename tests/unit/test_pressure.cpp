// Global memory pressure (watermarks, kswapd, direct reclaim, the OOM killer), memory.max, and
// the two swap-cache back ends, through whole runs of tests/data/pressure.json (8 x 384M on a
// 2G machine, pmem swap). Each run checks the page and memcg invariants at its end.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "run_cmd.hpp"

using nlohmann::json;
using swapsim_test::run_swapsim;
namespace fs = std::filesystem;

namespace {

json run_pressure(const std::vector<std::string>& sets)
{
    swapsim_test::TempDir d;
    std::vector<std::string> args;
    for (const auto& s : sets)
        args.insert(args.end(), {"--set", s});
    return swapsim_test::run_json("tests/data/pressure.json", args, d.path);
}

double metric(const json& r, const char* k) { return r["metrics"][k].get<double>(); }

const json* lock_row(const json& r, const std::string& name)
{
    for (const auto& l : r["locks"])
        if (l["lock"] == name)
            return &l;
    return nullptr;
}

}  // namespace

TEST_CASE("global pressure: RAM is never exceeded and kswapd and direct reclaim swap out with no OOM", "[pressure]")
{
    json r = run_pressure({});
    const double ram = 2.0 * (1 << 30);
    CHECK(metric(r, "ram_used_peak") <= ram);
    CHECK(metric(r, "memory_peak") <= ram);
    // 3G written into 2G: at least 1G went to swap, freed by kswapd and the tasks themselves.
    CHECK(metric(r, "pswpout") * 4096 >= 1.0 * (1 << 30));
    CHECK(metric(r, "pgscan_kswapd") > 0);
    CHECK(metric(r, "pgsteal_kswapd") > 0);
    CHECK(metric(r, "pgsteal_kswapd") + metric(r, "pgsteal_direct") >= metric(r, "pswpout"));
    CHECK(metric(r, "kswapd_sys_s") > 0);
    CHECK(metric(r, "oom_kill") == 0);
    CHECK(metric(r, "oom_killed_tasks") == 0);
    // Below the min watermark the tasks reclaim themselves: a 16M min_free_kbytes-sized
    // reserve is small against 8 writers, so direct reclaim happens too.
    CHECK(metric(r, "allocstall") > 0);
    CHECK(metric(r, "pgscan_direct") > 0);
}

TEST_CASE("global pressure: without swap the OOM killer ends processes and the run finishes", "[pressure]")
{
    json r = run_pressure({"swap.device=none"});
    CHECK(metric(r, "ram_used_peak") <= 2.0 * (1 << 30));
    CHECK(metric(r, "oom_kill") >= 3);   // 3G of anon in 2G: at least three 384M processes go
    CHECK(metric(r, "oom_killed_tasks") == metric(r, "oom_kill"));
    CHECK(metric(r, "pswpout") == 0);
    int finished = 0;
    for (const auto& p : r["per_process"])
        finished += !p["oom_killed"].get<bool>() && p["throughput_kbps"].get<double>() > 0;
    CHECK(finished >= 1);
    CHECK(finished + metric(r, "oom_killed_tasks") == 8);
}

// Found by tools/bad_input_campaign.py: with one swap cluster (2M) a task is OOM-killed after its
// writes, while it sleeps, and the oom_reaper frees its memory before the last task finishes
// writing; the census at writes done counted its pages as written (exit 3 before).
TEST_CASE("global pressure: a task OOM-killed after its writes is out of the census at writes done", "[pressure]")
{
    json r = run_pressure({"swap.size=2M"});
    CHECK(metric(r, "oom_kill") >= 1);
    const json& n = r["accounting"]["at_writes_done"];
    CHECK(n["pages_written"] == n["resident_pages"].get<uint64_t>() + n["swapped_pages"].get<uint64_t>());
    CHECK(n["processes"].get<int>() + metric(r, "oom_killed_tasks") <= 8);
}

TEST_CASE("memory.max: the charge reclaims in the task and usage and times stay within bounds", "[pressure]")
{
    json r = run_pressure({"machine.dram=8G", "kernel.memcg.max=1G"});
    CHECK(metric(r, "memory_peak") <= 1.0 * (1 << 30));
    CHECK(metric(r, "memcg_max") > 0);
    CHECK(metric(r, "memcg_oom") == 0);
    CHECK(metric(r, "pswpout") * 4096 >= 2.0 * (1 << 30));
    CHECK(metric(r, "pgscan_kswapd") == 0);   // 8G of RAM: no global pressure
    CHECK(metric(r, "user_s") >= 0);
    for (const auto& p : r["per_process"]) {
        CHECK(p["user_s"].get<double>() >= 0);
        CHECK(p["sys_s"].get<double>() >= 0);
        CHECK(p["sys_s"].get<double>() + p["user_s"].get<double>() <= p["wall_s"].get<double>() * 1.0001);
    }
}

TEST_CASE("swap cache: the XArray and the swap table take different locks and the table is cheaper", "[pressure]")
{
    json xa = run_pressure({"machine.dram=8G", "kernel.memcg.max=1G", "kernel.swap_alloc=cluster_lock",
                            "kernel.swap_slot_cache=false"});
    json st = run_pressure({"machine.dram=8G", "kernel.memcg.max=1G", "kernel.swap_alloc=cluster_lock",
                            "kernel.swap_slot_cache=false", "kernel.swap_cache=swap_table"});
    CHECK(metric(xa, "pswpout") > 0);
    // XArray: xa_lock per 64 MiB space for inserts, deletes and clear_shadow at free; the swap
    // table takes no lock of its own (the cluster lock).
    const json* xl = lock_row(xa, "swap cache xa_lock / ci->lock");
    const json* sl = lock_row(st, "swap cache xa_lock / ci->lock");
    REQUIRE(xl);
    REQUIRE(sl);
    CHECK((*xl)["acquisitions"].get<double>() > metric(xa, "pswpout"));
    CHECK((*sl)["acquisitions"].get<double>() == 0);
    CHECK(metric(st, "sys_s") < metric(xa, "sys_s"));
    // workingset_update_node: a folio entering an all-shadow xa_node takes it off the
    // shadow_nodes list, its shadow puts the node back: about two list_lru ops per page
    // swapped out (fewer for a node's first page), none with the swap table.
    const json* xs = lock_row(xa, "shadow_nodes list_lru");
    const json* ss = lock_row(st, "shadow_nodes list_lru");
    REQUIRE(xs);
    REQUIRE(ss);
    const double ops = (*xs)["acquisitions"].get<double>();
    CHECK(ops > 1.8 * metric(xa, "pswpout"));
    CHECK(ops < 2.1 * metric(xa, "pswpout"));
    CHECK((*ss)["acquisitions"].get<double>() == 0);
}

TEST_CASE("swap cache: the shadow_nodes list lock is shared by every reclaiming CPU of a node and contends", "[pressure]")
{
    const std::vector<std::string> base = {"machine.dram=8G", "kernel.memcg.max=1G", "kernel.swap_alloc=cluster_lock",
                                           "kernel.swap_slot_cache=false"};
    auto with = [&](std::vector<std::string> extra) {
        extra.insert(extra.begin(), base.begin(), base.end());
        return run_pressure(extra);
    };
    // Cache-hot list operations (the range's low end) against ones that fetch remote lines.
    json hot = with({"cost.workingset.shadow_list=150"});
    json cold = with({"cost.workingset.shadow_list=3000"});
    const json* h = lock_row(hot, "shadow_nodes list_lru");
    const json* c = lock_row(cold, "shadow_nodes list_lru");
    REQUIRE(h);
    REQUIRE(c);
    // Eight CPUs of one node, one list: at the long hold most acquisitions find it taken and
    // the spinning is sys time; the swap table's runs do not see the parameter at all.
    CHECK((*c)["contended"].get<double>() > 0.5 * (*c)["acquisitions"].get<double>());
    CHECK((*c)["spin_s"].get<double>() > 2 * (*h)["spin_s"].get<double>());
    CHECK(metric(cold, "sys_s") > 1.1 * metric(hot, "sys_s"));
    json st_hot = with({"kernel.swap_cache=swap_table", "cost.workingset.shadow_list=150"});
    json st_cold = with({"kernel.swap_cache=swap_table", "cost.workingset.shadow_list=3000"});
    CHECK(metric(st_hot, "sys_s") == metric(st_cold, "sys_s"));
}

TEST_CASE("global pressure: the shadow-node shrinker frees swap-cache shadow nodes only when the root's own LRU is small",
          "[pressure][slab]")
{
    // The swap cache's xa_nodes are on the root memcg's shadow_nodes list; count_shadow_nodes
    // weighs them against the root's own LRU pages / 8. With the workload in the root (the
    // default, kernel.memcg.root_lru=max) its 2G of LRU pages allow 64k nodes, far more than the
    // ~1G swapped out makes; in a child memcg beside a root with 64M of its own, they do not.
    json in_root = run_pressure({});
    json child = run_pressure({"kernel.memcg.root_lru=64M"});
    REQUIRE(in_root["devices"].contains("slab"));
    REQUIRE(child["devices"].contains("slab"));
    const json& a = in_root["devices"]["slab"];
    const json& b = child["devices"]["slab"];
    CHECK(a["shadow_shrinker_calls"].get<double>() > 0);
    CHECK(a["workingset_nodereclaim"] == 0);
    CHECK(b["workingset_nodereclaim"].get<double>() > 0);
    // Each node reclaimed takes the list lock the swap-out path takes (shadow_lru_isolate),
    // then the space's xa_lock (xa_delete_node); the root run takes neither. (Comparing the
    // list lock's total acquisitions across the two runs is not a test: their swap-outs differ.)
    REQUIRE(lock_row(child, "shadow_nodes list_lru"));
    auto profiled = [](const std::vector<std::string>& sets) {
        swapsim_test::TempDir d;
        std::vector<std::string> args = {"--profile"};
        for (const auto& s : sets)
            args.insert(args.end(), {"--set", s});
        return swapsim_test::run_json("tests/data/pressure.json", args, d.path);
    };
    auto sys_of = [](const json& r, const std::string& fn) {
        for (const json& row : r["sys_profile"])
            if (row["function"] == fn)
                return row["sys_s"].get<double>();
        return 0.0;
    };
    json pa = profiled({}), pb = profiled({"kernel.memcg.root_lru=64M"});
    CHECK(sys_of(pa, "shadow_lru_isolate") == 0);
    CHECK(sys_of(pb, "shadow_lru_isolate") > 0);
    CHECK(sys_of(pb, "xa_delete_node") > 0);
    // memory.max reclaim of the workload's memcg never calls it: the root is not in its subtree.
    json memcg = run_pressure({"machine.dram=8G", "kernel.memcg.max=1G", "kernel.memcg.root_lru=4K"});
    CHECK(!memcg["devices"].contains("slab"));
}
