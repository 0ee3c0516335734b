// The metric table (report/metrics.cpp): one entry per metric, read by result.json, the run
// table, compare's targets and published rows, and `swapsim metrics`.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "compare/tables.hpp"
#include "report/metrics.hpp"

using nlohmann::json;
using namespace swapsim::report;

TEST_CASE("metric table: each metric once, documented, with a counter to read", "[metrics]")
{
    std::set<std::string> names;
    for (const Metric& m : metrics()) {
        INFO(m.name);
        CHECK(names.insert(m.name).second);
        CHECK(!m.unit.empty());
        CHECK(!m.kernel.empty());
        CHECK(!m.mechanism.empty());
        CHECK(m.get);
        CHECK((m.workloads & ANY) != 0);
        CHECK((m.shown & ~m.workloads) == 0);   // a run table prints only what its result holds
        CHECK(find_metric(m.per_size() ? sized(m.name, 4) : m.name) == &m);
        if (m.source == Source::Vmstat)
            CHECK(m.kernel.rfind("/proc/vmstat " + m.name, 0) == 0);
        if (m.per_size())
            CHECK(m.source == Source::MthpStats);
    }
    CHECK(find_metric("no_such_metric") == nullptr);
    CHECK(fmt_of("sys_s") == Fmt::Seconds);
    CHECK(fmt_of("compression_ratio_pct") == Fmt::Percent);
    CHECK(higher_is_better("throughput_kbps"));
    CHECK(!higher_is_better("swap_in_time_ms"));
}

TEST_CASE("metric table: every published row's label is a seed label of its metric", "[metrics]")
{
    std::ifstream f("calibration/published/seed-tables.json");
    REQUIRE(f);
    json pub = json::parse(f);
    size_t checked = 0;
    std::set<std::string> published_only;
    for (const json& t : pub.at("tables"))
        for (const json& r : t.value("rows", json::array())) {
            std::string metric = r.at("metric"), label = r.value("published_label", metric);
            const Metric* m = find_metric(metric);
            if (!m) {   // a published metric the model has no counter for yet
                published_only.insert(metric);
                continue;
            }
            INFO(t.at("id").get<std::string>() << " " << metric << " '" << label << "'");
            CHECK(has_label(*m, metric, label));
            checked++;
        }
    CHECK(checked > 100);
    // Every metric calibration/targets.json compares is in the table (load_targets checks).
    auto targets = swapsim::compare::load_targets("calibration/targets.json");
    for (const auto& t : targets)
        for (const auto& m : t.metrics)
            CHECK(published_only.count(m) == 0);
}

TEST_CASE("targets naming an unknown metric are refused with its JSON path", "[metrics]")
{
    namespace fs = std::filesystem;
    fs::path p = fs::temp_directory_path() / ("swapsim-targets-" + std::to_string(::getpid()) + ".json");
    std::ofstream(p) << R"({"targets": [{"table": "t", "column": "c", "scenario": "s.json", "metrics": ["sys_s", "zswpot"]}]})";
    try {
        swapsim::compare::load_targets(p.string());
        FAIL("no error");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()) == p.string() + ": /targets/0/metrics/1: unknown metric 'zswpot' (see `swapsim metrics`)");
    }
    fs::remove(p);
}

TEST_CASE("run table rows: the table's order, per-size runs repeated size by size", "[metrics]")
{
    json r;
    for (const char* m : {"throughput_kbps", "sys_s", "zswpout", "pswpout", "zswpout_64kB", "swpout_64kB", "zswpout_2048kB",
                          "swpout_2048kB", "swpout_fallback_64kB", "swpout_fallback_2048kB", "swpin_64kB", "swap_ra"})
        r["metrics"][m] = 1;
    std::vector<std::string> got;
    for (const Row& row : rows_for(r))
        got.push_back(row.metric);
    std::vector<std::string> want = {"throughput_kbps", "throughput_kbps_sum", "elapsed_s", "sys_s", "user_s", "memcg_high",
                                     "memcg_swap_fail", "pswpin", "pswpout", "zswpin", "zswpout", "thp_swpout",
                                     "thp_swpout_fallback", "swpout_fallback_64kB", "swpout_fallback_2048kB", "pgmajfault",
                                     "zswpout_64kB", "swpout_64kB", "zswpout_2048kB", "swpout_2048kB", "swap_ra",
                                     "swap_ra_hit"};
    CHECK(got == want);
    // A swapinout result (it holds swap_out_time_ms): its own rows, swpout and swpin together.
    json s;
    for (const char* m : {"swap_out_time_ms", "sys_s", "swpout_16kB", "swpin_16kB"})
        s["metrics"][m] = 1;
    got.clear();
    for (const Row& row : rows_for(s))
        got.push_back(row.metric);
    want = {"swap_out_time_ms", "swap_in_time_ms", "compression_ratio_pct", "sys_s", "pswpin", "pswpout", "pgmajfault",
            "swpout_16kB", "swpin_16kB", "swpin_fallback_16kB", "swpin_fallback_charge_16kB", "ram_used_peak", "memory_peak"};
    CHECK(got == want);
}
