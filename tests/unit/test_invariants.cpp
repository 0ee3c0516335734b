// The end-of-run invariants (report/invariants.hpp) and the run's budget: each invariant is
// caught when broken, real runs satisfy them and expose what they need, a broken one is exit
// status 3, and runaway scenarios end at sim.wall_limit or sim.rss_limit with one line.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "report/invariants.hpp"
#include "run_cmd.hpp"
#include "scenario/registry.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A result that satisfies every invariant: 2 CPUs, 1 GiB RAM, memory.max 512M.
json good_result()
{
    json r;
    r["metrics"] = {{"elapsed_s", 10.0}, {"user_s", 4.0}, {"sys_s", 12.0}, {"ram_used_peak", 600e6},
                    {"memory_peak", 500e6}, {"pswpout", 30}, {"zswpout", 100}};
    r["per_process"] = json::array({{{"pid", 1}, {"user_s", 2.0}, {"sys_s", 6.0}, {"wall_s", 10.0}},
                                    {{"pid", 2}, {"user_s", 2.0}, {"sys_s", 6.0}, {"wall_s", 9.0}}});
    r["accounting"]["swap_out"] = {{"pgsteal_direct", 120}, {"pageout_freed", 0}, {"written_unmapped", 10},
                                   {"written_again", 2}, {"written_resident", 3}, {"zswpout", 100}, {"pswpout", 30},
                                   {"freed_clean", 5}};
    r["accounting"]["memcg"] = {{"forced_over_max_bytes", 0}};
    r["accounting"]["at_writes_done"] = {{"processes", 2}, {"pages_written", 1000}, {"resident_pages", 800},
                                         {"swapped_pages", 200}, {"swap_slots_in_use", 230}, {"swap_slot_cache", 20},
                                         {"zswap_stored_pages", 150}, {"zswap_pool_bytes", 200000}};
    return r;
}

swapsim::report::Limits limits() { return {2, double(1ull << 30), 512.0 * (1 << 20)}; }

std::string check(const json& r) { return swapsim::report::check_result(r, limits()); }

}  // namespace

TEST_CASE("invariants: each broken invariant is caught and named", "[invariants]")
{
    CHECK(check(good_result()) == "");
    json r = good_result();
    r["per_process"][1]["user_s"] = -1e-6;
    CHECK(check(r).find("no negative time: pid 2 user_s") == 0);
    r = good_result();
    r["metrics"]["sys_s"] = -0.5;
    CHECK(check(r).find("no negative metric: sys_s") == 0);
    r = good_result();
    r["per_process"][1]["sys_s"] = 7.5;   // 9.5 s of CPU in 9 s
    CHECK(check(r).find("user + sys <= wall time of each task: pid 2") == 0);
    r = good_result();
    r.erase("per_process");
    r["metrics"]["sys_s"] = 16.5;   // 20.5 s of CPU in 10 s on 2 CPUs
    CHECK(check(r).find("user + sys <= elapsed x allowed CPUs") == 0);
    r = good_result();
    r["metrics"]["ram_used_peak"] = double(1ull << 30) + 4096;
    CHECK(check(r).find("memory <= RAM") == 0);
    r = good_result();
    r["metrics"]["memory_peak"] = 512.0 * (1 << 20) + 8192;
    CHECK(check(r).find("memcg peak <= memory.max") == 0);
    r["accounting"]["memcg"]["forced_over_max_bytes"] = 4096;   // zswap's forced charge covers half
    CHECK(check(r).find("memcg peak <= memory.max") == 0);
    r["accounting"]["memcg"]["forced_over_max_bytes"] = 8192;
    CHECK(check(r) == "");
    auto lim = limits();
    lim.memcg_max = std::numeric_limits<double>::infinity();   // memory.max "max"
    CHECK(swapsim::report::check_result(r, lim) == "");
    r = good_result();
    r["accounting"]["swap_out"]["pswpout"] = 52;   // 22 pages written that nothing accounts for
    CHECK(check(r).find("pgsteal = zswpout + pswpout") == 0);
    r = good_result();
    r["accounting"]["at_writes_done"]["resident_pages"] = 799;
    CHECK(check(r).find("pages written = resident + swapped out at_writes_done") == 0);
    r = good_result();
    r["accounting"]["at_writes_done"]["swap_slots_in_use"] = 199;
    CHECK(check(r).find("pages swapped out <= swap slots in use") == 0);
}

TEST_CASE("invariants: runs expose and satisfy them, pswpout above pgsteal explained", "[invariants]")
{
    struct Case {
        std::vector<std::string> args;
        const char* census;
    };
    // swapin.json with the zswap pool at 0%: every page goes to the SSD, written asynchronously.
    // pswpout exceeded pgsteal_direct there: pages written whose folio reclaim never freed.
    std::vector<Case> cases = {
        {{"run", "tests/data/swapin.json", "--set", "kernel.zswap.max_pool_percent=0"}, "at_writes_done"},
        {{"run", "tests/data/small.json"}, "at_writes_done"},
        {{"run", "tests/data/swapinout_zram.json"}, "after_pageout"},
        // memory.max with zswap and no writeback: zswap's charges, forced in reclaim, pass it.
        {{"run", "tests/data/small.json", "--set", "kernel.memcg.high=max", "--set", "kernel.memcg.max=64M", "--set",
          "kernel.zswap.writeback=false", "--set", "workload.usemem.size=64M"},
         "at_writes_done"},
    };
    for (auto& c : cases) {
        fs::path d = fs::temp_directory_path() / ("swapsim_inv." + std::to_string(::getpid()));
        fs::remove_all(d);
        c.args.insert(c.args.end(), {"--out", d.string()});
        INFO(c.args[1]);
        auto r = swapsim_test::run_swapsim(c.args);
        REQUIRE(r.status == 0);
        json j = json::parse(swapsim_test::slurp((d / "result.json").string()));
        fs::remove_all(d);
        const json& s = j["accounting"]["swap_out"];
        uint64_t lhs = s["pgsteal_direct"].get<uint64_t>() + s["pageout_freed"].get<uint64_t>() +
                       s["written_unmapped"].get<uint64_t>() + s["written_again"].get<uint64_t>() +
                       s["written_resident"].get<uint64_t>();
        uint64_t rhs = s["zswpout"].get<uint64_t>() + s["pswpout"].get<uint64_t>() + s["freed_clean"].get<uint64_t>();
        CHECK(lhs == rhs);
        CHECK(s["pswpout"] == j["metrics"]["pswpout"]);
        const json& n = j["accounting"][c.census];
        CHECK(n["pages_written"].get<uint64_t>() > 0);
        CHECK(n["pages_written"] == n["resident_pages"].get<uint64_t>() + n["swapped_pages"].get<uint64_t>());
        if (c.args.size() > 3 && c.args[3] == "kernel.memcg.high=max") {
            double over = j["metrics"]["memory_peak"].get<double>() - 64.0 * (1 << 20);
            CHECK(j["accounting"]["memcg"]["forced_over_max_bytes"].get<double>() >= over);
        }
        if (c.args[1] == "tests/data/swapin.json") {
            CHECK(s["zswpout"] == 0);
            CHECK(s["pswpout"].get<uint64_t>() > s["pgsteal_direct"].get<uint64_t>());
            // The pages written that reclaim did not free: unmapped by munmap or exit, written
            // again, or still resident at the census (written, then referenced: kept in the swap
            // cache; usemem's 14 footprint pages per task make some).
            CHECK(s["written_unmapped"].get<uint64_t>() + s["written_again"].get<uint64_t>() +
                      s["written_resident"].get<uint64_t>() ==
                  s["pswpout"].get<uint64_t>() - s["pgsteal_direct"].get<uint64_t>() + s["freed_clean"].get<uint64_t>());
        }
    }
}

TEST_CASE("budget: runaway scenarios stop at sim.wall_limit or sim.rss_limit with one line, exit 1, nothing left",
          "[invariants][reliability]")
{
    fs::path out = fs::temp_directory_path() / ("swapsim_budget." + std::to_string(::getpid()));
    fs::path trace = out.string() + ".csv";
    fs::remove_all(out);
    const std::vector<std::vector<std::string>> runaway = {
        {"kernel.zswap.max_pool_percent=0", "kernel.zswap.writeback=false"},
        {"workload.usemem.repeat=1000"},
    };
    for (const auto& sets : runaway) {
        std::vector<std::string> args = {"run", "tests/data/swapin.json", "--set", "sim.wall_limit=2s",
                                         "--out", out.string(), "--trace", trace.string()};
        for (const auto& s : sets)
            args.insert(args.end(), {"--set", s});
        INFO(sets[0]);
        auto t0 = std::chrono::steady_clock::now();
        auto r = swapsim_test::run_swapsim(args);
        double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        CHECK(r.status == 1);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK((r.err.find("$.sim.wall_limit") != std::string::npos || r.err.find("sim.time_limit") != std::string::npos));
        CHECK(r.err.find("tests/data/swapin.json") != std::string::npos);
        CHECK(wall < 30);
        CHECK(!fs::exists(out));
        CHECK(!fs::exists(trace));
    }
    // 4 x 2G: past 64M of resident memory within a fraction of a second.
    auto r = swapsim_test::run_swapsim(
        {"run", "tests/data/swapin.json", "--set", "workload.usemem.size=2G", "--set", "sim.rss_limit=64M"});
    CHECK(r.status == 1);
    CHECK(r.err.find("$.sim.rss_limit: the run used more than 64M of memory") != std::string::npos);
    // A 4K memory.swap.max was a runaway until reclaim stopped scanning anon without swap room
    // (get_scan_count): it now ends (0.9 s; the budget is for sanitiser builds), every
    // swap-out refused and counted.
    r = swapsim_test::run_swapsim({"run", "tests/data/swapin.json", "--set", "sim.wall_limit=300s", "--set",
                                   "kernel.memcg.swap_max=4K", "--out", out.string()});
    CHECK(r.status == 0);
    json m = json::parse(swapsim_test::slurp((out / "result.json").string()))["metrics"];
    CHECK(m["memcg_swap_fail"].get<double>() > 1000);
    CHECK(m["memcg_high"].get<double>() > 1000);
    fs::remove_all(out);
}

TEST_CASE("validate makes the checks run makes: swap size, mapping size, tasks the machine can run", "[invariants]")
{
    auto r = swapsim_test::run_swapsim({"validate", "tests/data/small.json", "--set", "swap.size=1M"});
    CHECK(r.status == 2);
    CHECK(r.err.find("--set: $.swap.size: swap device of 1M is smaller than one swap cluster") == 0);
    r = swapsim_test::run_swapsim({"run", "tests/data/small.json", "--set", "swap.size=1M"});
    CHECK(r.status == 2);
    CHECK(r.err.find("--set: $.swap.size:") == 0);
    // More processes than vm.max_map_count leaves stacks for: refused before anything runs.
    int64_t over = swapsim::scenario::max_simulated_tasks() + 1;
    if (over <= 100000) {
        r = swapsim_test::run_swapsim({"run", "tests/data/small.json", "--set",
                                       "workload.usemem.nproc=" + std::to_string(over), "--set", "workload.usemem.size=4K",
                                       "--set", "workload.cpus=all"});
        CHECK(r.status == 2);
        CHECK(r.err.find("--set: $.workload.usemem.nproc: " + std::to_string(over) + " processes need about") == 0);
        CHECK(r.err.find("vm.max_map_count") != std::string::npos);
    }
}

TEST_CASE("a NUL byte in a scenario is an error, not the end of the file", "[invariants]")
{
    swapsim_test::TempFile f;
    std::string text = std::string("{\"name\": \"x\"}") + '\0' + "{{{ not json";
    std::ofstream(f.path, std::ios::binary) << text;
    auto r = swapsim_test::run_swapsim({"validate", f.path});
    CHECK(r.status == 2);
    CHECK(r.err.find("malformed JSON: a NUL byte") != std::string::npos);
    CHECK(r.out.empty());
}

TEST_CASE("a trace that cannot be written fails the run, and a device is never removed", "[invariants]")
{
    auto r = swapsim_test::run_swapsim({"run", "tests/data/small.json", "--trace", "/dev/full"});
    CHECK(r.status == 1);
    CHECK(r.err.find("/dev/full: cannot write the trace") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(fs::is_character_file("/dev/full"));
}
