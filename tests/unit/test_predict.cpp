// Predicting what the fit has not seen (#26): the cross-validation's pieces, the physical range
// of every fitted cost, memory.high's reclaim target across workload shapes, and CPU time
// under oversubscription.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "calibrate/crossval.hpp"
#include "run_cmd.hpp"
#include "scenario/registry.hpp"

using namespace swapsim;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Dir {
    fs::path path;
    explicit Dir(const std::string& name)
        : path(fs::temp_directory_path() / (name + "." + std::to_string(::getpid())))
    {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~Dir() { fs::remove_all(path); }
};

json run_default(const std::vector<std::string>& sets, const fs::path& out)
{
    std::vector<std::string> args = {"run", "scenarios/default.json", "--out", out.string()};
    for (const auto& s : sets) {
        args.push_back("--set");
        args.push_back(s);
    }
    auto r = swapsim_test::run_swapsim(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return json::parse(swapsim_test::slurp((out / "result.json").string()));
}

double cost_s(const scenario::Config& c, const std::string& name)
{
    return c.num(name) / c.num("machine.cpu_freq");   // cycles at the scenario's clock
}

}  // namespace

TEST_CASE("cross-validation: table families group one setup's folio sizes", "[predict]")
{
    CHECK(calibrate::family_of("zswap-mthp-v7/case1-64k") == "zswap-mthp-v7/case1");
    CHECK(calibrate::family_of("zswap-mthp-v7/case1-2m") == "zswap-mthp-v7/case1");
    CHECK(calibrate::family_of("zswap-mthp-v7/regression-4k") == "zswap-mthp-v7/regression");
    CHECK(calibrate::family_of("zsmalloc-multipages-v2/zstd-16k-mthp-100MiB-x100") ==
          "zsmalloc-multipages-v2/zstd-16k-mthp-100MiB-x100");
    auto targets = compare::load_targets("calibration/targets.json");
    auto fam = calibrate::families(targets);
    CHECK(std::find(fam.begin(), fam.end(), "zswap-mthp-v7/iaa-batching") != fam.end());
    CHECK(fam.size() >= 5);
}

TEST_CASE("cross-validation: the linearised fit finds the costs that made its data, inside their bounds", "[predict]")
{
    // Three cells that depend on two costs; the "published" values come from known steps.
    std::vector<calibrate::LinearCell> cells = {
        {"t1", "sys_s", 0.0, 0.0, {1.0, 0.2}},
        {"t1", "throughput_kbps", 0.0, 0.0, {-0.5, -0.5}},
        {"t2", "sys_s", 0.0, 0.0, {0.1, 1.0}},
    };
    const std::vector<double> truth = {0.3, -0.2};
    for (auto& c : cells)
        c.published = c.sens[0] * truth[0] + c.sens[1] * truth[1];
    std::map<std::string, double> w = {{"sys_s", 1}, {"throughput_kbps", 1}};
    auto dx = calibrate::fit_linear(cells, {"t1", "t2"}, w, {-1, -1}, {1, 1});
    CHECK(dx[0] == Approx(0.3).margin(1e-6));
    CHECK(dx[1] == Approx(-0.2).margin(1e-6));
    // A bound the data wants to pass is where the fit stops.
    dx = calibrate::fit_linear(cells, {"t1", "t2"}, w, {-1, -0.1}, {0.25, 1});
    CHECK(dx[0] == Approx(0.25));
    CHECK(dx[1] == Approx(-0.1));
    // Leaving t2 out: only t1's cells count; a cost no training cell depends on stays put.
    std::vector<calibrate::LinearCell> only_second = {{"t2", "sys_s", 0.0, 0.5, {0.0, 1.0}}};
    dx = calibrate::fit_linear(only_second, {"t1"}, w, {-1, -1}, {1, 1});
    CHECK(dx[0] == 0.0);
    CHECK(dx[1] == 0.0);
}

TEST_CASE("cross-validation: results/cross-validation.md is the rendering of the committed JSON next to it", "[predict]")
{
    std::ifstream j("results/cross-validation.json"), m("results/cross-validation.md");
    REQUIRE(j.good());
    REQUIRE(m.good());
    const std::string md((std::istreambuf_iterator<char>(m)), std::istreambuf_iterator<char>());
    CHECK(calibrate::render_cross_validation(json::parse(j)) == md);
}

TEST_CASE("cross-validation: a scaled scenario divides every size and keeps the rest", "[predict]")
{
    Dir d("swapsim_scaled");
    std::string out = (d.path / "s.json").string();
    REQUIRE(calibrate::write_scaled_scenario("scenarios/zswap-mthp-v7/case1-64k/zswap_mthp_zstd.json", 64, out));
    json s = json::parse(std::ifstream(out));
    json o = json::parse(std::ifstream("scenarios/zswap-mthp-v7/case1-64k/zswap_mthp_zstd.json"));
    CHECK(s["workload"]["usemem"]["size"] == "16384K");
    CHECK(s["kernel"]["memcg"]["high"] == "655360K");
    CHECK(s["workload"]["usemem"]["nproc"] == o["workload"]["usemem"]["nproc"]);
    CHECK(s["kernel"]["zswap"] == o["kernel"]["zswap"]);
    auto r = swapsim_test::run_swapsim({"validate", out});
    CHECK(r.status == 0);
    CHECK_FALSE(calibrate::write_scaled_scenario("tests/data/swapinout_zram.json", 64, (d.path / "z.json").string()));
    CHECK_FALSE(fs::exists(d.path / "z.json"));
}

TEST_CASE("cross-validation: a global-pressure scenario is scaled with its machine's memory, a memcg one is not", "[predict]")
{
    Dir d("swapsim_scaled_global");
    const std::string global = "scenarios/swap-table-p1-v4/usemem-32x1536M-16G-global-pmem/before.json";
    const std::string memcg = "scenarios/swap-table-p1-v4/usemem-31x1G-4G-memcg-pmem/before.json";
    REQUIRE(calibrate::write_scaled_scenario(global, 64, (d.path / "g.json").string()));
    REQUIRE(calibrate::write_scaled_scenario(memcg, 64, (d.path / "m.json").string()));
    json g = json::parse(std::ifstream(d.path / "g.json")), m = json::parse(std::ifstream(d.path / "m.json"));
    CHECK(g["machine"]["dram"] == "262144K");           // 16G / 64
    CHECK(g["workload"]["usemem"]["size"] == "24576K"); // 1536M / 64
    CHECK(m["machine"]["dram"] == json::parse(std::ifstream(memcg))["machine"]["dram"]);
    CHECK(m["kernel"]["memcg"]["max"] == "65536K");
}

TEST_CASE("cross-validation: a changes-only table is scored on after / before, its absolute cells dropped", "[predict]")
{
    compare::Table t;
    t.id = "s/t";
    t.columns = {"before", "after"};
    t.metrics = {"sys_s", "sum_throughput_mbps"};
    t.changes.push_back({"after_vs_before", "Change", "after", "before"});
    std::map<std::string, compare::Table> tables{{t.id, t}};
    using C = compare::Cell;
    std::vector<C> cells = {
        {"s/t", "before", "sys_s", 200.0, 100.0, {}, {}}, {"s/t", "after", "sys_s", 150.0, 90.0, {}, {}},
        {"s/t", "before", "sum_throughput_mbps", 10.0, 20.0, {}, {}}, {"s/t", "after", "sum_throughput_mbps", 12.0, 30.0, {}, {}},
        {"other/x", "c", "sys_s", 5.0, 6.0, {}, {}}};
    auto out = calibrate::as_changes(cells, tables, {"s/t"});
    REQUIRE(out.size() == 3);
    CHECK(out[0].table == "other/x");
    CHECK(out[1].metric == "sys_s change");
    CHECK(out[1].column == "after_vs_before");
    CHECK(*out[1].published == Approx(0.75));
    CHECK(*out[1].model == Approx(0.9));
    CHECK(*out[1].rel_error == Approx(0.2));   // 0.9 / 0.75 - 1
    CHECK(*out[2].model == Approx(1.5));
    CHECK(calibrate::base_metric("sys_s change") == "sys_s");
    CHECK(calibrate::base_metric("sys_s") == "sys_s");
    // Without the table named, nothing changes.
    CHECK(calibrate::as_changes(cells, tables, {}).size() == cells.size());
}

TEST_CASE("every fitted cost has a physical range with its source, and the committed fit sits inside it", "[predict][registry]")
{
    const auto& reg = scenario::registry();
    for (const auto& d : reg.all()) {
        if (!d.fitted || d.kind != scenario::Kind::Real || d.unit == "bytes/s")
            continue;
        INFO(d.name);
        if (d.def.is_number() && d.def.get<double>() == 0)
            continue;   // a what-if that is off (cost.zsmalloc.free_cold)
        CHECK(d.min > 0);
        CHECK(d.max < 1e9);
        CHECK(d.source.find("range") != std::string::npos);
    }
    // The costs calibrate frees: a finite range, a source that says where it comes from, and
    // the committed value at least 2% (in log) away from either end: no fitted cost on a bound.
    scenario::Config committed = scenario::load_defaults();
    for (const auto& n : reg.fit_defaults()) {
        const scenario::ParamDef* d = reg.find(n);
        INFO(n);
        REQUIRE(d);
        CHECK(d->min > 0);
        CHECK(std::isfinite(d->max));
        CHECK(d->source.find("range") != std::string::npos);
        double v = committed.num(n);
        CHECK(std::log(v / d->min) > 0.02);
        CHECK(std::log(d->max / v) > 0.02);
    }
}

TEST_CASE("memory.high frees each task's charge debt per event whatever the shape, and memory.max a reclaim batch", "[predict][run]")
{
    // mem_cgroup_handle_over_high: reclaim_high(memcg, nr_pages) with nr_pages the task's debt,
    // MEMCG_CHARGE_BATCH (64) per stock refill charged over high, SWAP_CLUSTER_MAX (32) on a
    // retry; try_charge_memcg at memory.max reclaims max(nr_pages, SWAP_CLUSTER_MAX) for the
    // charge that failed. shrink_lruvec stops at the target after a round, so a call frees its
    // target while the inactive list scanned at DEF_PRIORITY (size >> 12) holds it: the shapes
    // are scaled down only so far (16G of memory.high: 322k inactive pages >> 12 = 78 >= 64).
    Dir d("swapsim_shapes");
    // 70 x 1G in 40G, and 30 x 10G in 150G, each with memory.high scaled to 16G or 15G.
    json a = run_default({"workload.usemem.size=410M", "kernel.memcg.high=16G"}, d.path / "a");
    json b = run_default({"workload.usemem.nproc=30", "workload.usemem.size=1G", "kernel.memcg.high=15G"}, d.path / "b");
    // 16 x 2G in a 16G memory.max, scaled to 16 x 256M in 2G.
    json c = run_default({"workload.usemem.nproc=16", "workload.usemem.size=256M", "kernel.memcg.high=max",
                          "kernel.memcg.max=2G"}, d.path / "c");
    auto evicted = [](const json& r) {
        return r["metrics"]["zswpout"].get<double>() + r["metrics"].value("pswpout", 0.0);
    };
    double per_high_a = evicted(a) / a["metrics"]["memcg_high"].get<double>();
    double per_high_b = evicted(b) / b["metrics"]["memcg_high"].get<double>();
    INFO("pages per memcg_high event: " << per_high_a << " (70 tasks), " << per_high_b << " (30 tasks)");
    CHECK(per_high_a >= 32);
    CHECK(per_high_a <= 64 + 16);   // the debt, plus at most one 64K folio of a last round
    CHECK(per_high_b >= 32);
    CHECK(per_high_b <= 64 + 16);
    CHECK(std::fabs(per_high_a / per_high_b - 1) < 0.05);   // the target does not depend on the shape
    CHECK(c["metrics"]["memcg_high"].get<double>() == 0);
    double per_max = evicted(c) / c["metrics"]["memcg_max"].get<double>();
    INFO("pages per memcg_max event: " << per_max);
    CHECK(per_max >= 16);        // a 64K folio at least
    CHECK(per_max <= 32 + 16 + 16);   // SWAP_CLUSTER_MAX, a folio over it, page tables
    CHECK(c["metrics"]["memcg_oom"].get<double>() == 0);

    // sys per swapped-out page: every stored page pays its compression and zswap_store_page
    // once, and a share of one reclaim call; contention only adds.
    scenario::Config cfg = scenario::load_defaults();
    double floor = cost_s(cfg, "cost.compress.zstd.usemem_comp") + cost_s(cfg, "cost.zswap.store_page");
    for (const json* r : {&a, &b, &c}) {
        double per_event = r == &c ? per_max : r == &a ? per_high_a : per_high_b;
        double lower = floor + cost_s(cfg, "cost.reclaim.entry") / per_event;
        double sys_per_page = (*r)["metrics"]["sys_s"].get<double>() / evicted(*r);
        INFO((*r)["scenario"] << ": sys per swapped-out page " << sys_per_page * 1e6 << " us, lower bound " << lower * 1e6);
        CHECK(sys_per_page >= lower);
        CHECK(sys_per_page <= 2 * lower);
        CHECK((*r)["metrics"]["user_s"].get<double>() >= 0);
    }
}

TEST_CASE("70 tasks on 8 CPUs share them: CPU time fits in elapsed x 8, and takes at least 70/8 of a task's", "[predict][run]")
{
    Dir d("swapsim_70on8");
    json r = run_default({"workload.cpus=0-7", "kernel.mthp.enabled=2M", "workload.usemem.size=16M",
                          "kernel.memcg.high=640M", "workload.usemem.sleep=0s"}, d.path / "r");
    const json& m = r["metrics"];
    double elapsed = m["elapsed_s"];
    double cpu = m["user_s"].get<double>() + m["sys_s"].get<double>();
    CHECK(cpu <= elapsed * 8 * (1 + 1e-9));
    double sum = 0;
    int n = 0;
    for (const auto& p : r["per_process"]) {
        double u = p["user_s"], s = p["sys_s"];
        CHECK(u >= 0);
        CHECK(s >= 0);
        sum += u + s;
        n++;
    }
    REQUIRE(n == 70);
    INFO("elapsed " << elapsed << " s, mean CPU per task " << sum / n << " s");
    CHECK(sum / n > 0.05);   // enough CPU per task for the bound to bite
    CHECK(elapsed >= 70.0 / 8 * (sum / n) * (1 - 1e-9));
}

TEST_CASE("a swap device that fills mid-run: anon is no longer scanned, memory.high throttles, and the run ends within 2x a normal run's wall time", "[predict][run]")
{
    // get_scan_count scans anon only while can_reclaim_anon_pages (get_nr_swap_pages() > 0);
    // with every slot taken, reclaim_high frees nothing, usage climbs past memory.high and
    // mem_cgroup_handle_over_high retries MAX_RECLAIM_RETRIES times, then sleeps the penalty.
    // 70 x 1G in 40G behind a 4G device, scaled by 1/32 (the swap file in front left out).
    Dir d("swapsim_swapfull");
    const std::vector<std::string> shape = {"workload.usemem.size=32M", "kernel.memcg.high=1280M", "swap.swapfile_free=0"};
    auto with = [&](std::vector<std::string> extra) {
        extra.insert(extra.begin(), shape.begin(), shape.end());
        return extra;
    };
    json normal = run_default(with({}), d.path / "normal");
    json full = run_default(with({"swap.size=128M"}), d.path / "full");
    const json& n = normal["metrics"];
    const json& f = full["metrics"];
    const double slots = 128.0 * 256 - 1;   // 4K slots less the header
    INFO("normal: zswpout " << n["zswpout"] << ", wall " << normal["wall_clock"]["wall_s"] << " s; full: zswpout "
         << f["zswpout"] << ", memcg_swap_fail " << f["memcg_swap_fail"] << ", memcg_high " << f["memcg_high"]
         << ", elapsed " << f["elapsed_s"] << " s, wall " << full["wall_clock"]["wall_s"] << " s");
    CHECK(n["zswpout"].get<double>() > 2 * slots);   // the normal run needs more than the device
    // Every zswap entry holds a slot: the device caps the stores (exits free slots for more).
    CHECK(f["zswpout"].get<double>() < 0.5 * n["zswpout"].get<double>());
    CHECK(n["memcg_swap_fail"].get<double>() == 0);
    CHECK(f["memcg_swap_fail"].get<double>() > 0);   // folio_alloc_swap failed before the scans stopped
    // ... and not on every later reclaim call: a call that scanned would fail on each folio.
    CHECK(f["memcg_swap_fail"].get<double>() < slots);
    CHECK(f["memcg_swap_fail"].get<double>() < 0.1 * f["memcg_high"].get<double>());
    CHECK(f["memory_peak"].get<double>() > 1280.0 * 1.05 * (1 << 20));   // usage went past memory.high
    double throttled = 0;
    for (const auto& p : full["per_process"])
        throttled += p["throttled_s"].get<double>();
    CHECK(throttled > 0);   // the penalty sleeps, capped at 2 s per return to user
    CHECK(f["elapsed_s"].get<double>() > n["elapsed_s"].get<double>());
    CHECK(f["user_s"].get<double>() >= 0);
    CHECK(full["wall_clock"]["wall_s"].get<double>() <= 2 * normal["wall_clock"]["wall_s"].get<double>());
}
