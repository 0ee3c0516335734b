// The comparison layer of `swapsim compare` / `calibrate`: cells, errors, change signs,
// summary statistics and the markdown table, on a hand-made two-column table.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "calibrate/fit.hpp"
#include "calibrate/pool.hpp"
#include "compare/markdown.hpp"
#include "workload/usemem.hpp"

using namespace swapsim::compare;
using swapsim::calibrate::bobyqa_steps;
using swapsim::calibrate::merge_runs;
using nlohmann::json;

namespace {

Table two_columns()
{
    Table t;
    t.id = "demo/t";
    t.title = "demo";
    t.columns = {"base", "new"};
    t.column_labels = {"mm-unstable | zstd", "patched | zstd"};
    t.metrics = {"throughput_kbps", "sys_s", "zswpout"};
    t.labels = {"Throughput (KB/s)", "sys time (sec)", "zswpout"};
    t.values = {{100.0, 120.0}, {10.0, 8.0}, {1000.0, std::nullopt}};
    t.changes = {{"chg", "Change | zstd", "new", "base"}};
    t.published_change[{"throughput_kbps", "chg"}] = 20;
    t.published_change[{"sys_s", "chg"}] = 20;
    return t;
}

json result(double tp, double sys, double zswpout)
{
    json r;
    r["metrics"] = {{"throughput_kbps", tp}, {"sys_s", sys}, {"zswpout", zswpout}};
    r["distribution"]["throughput_kbps"] = {{"min", tp}, {"median", tp}, {"max", tp}, {"stdev", 0.0},
                                            {"jain_fairness", 1.0}};
    return r;
}

// Both columns of two_columns() run: throughput +10% / -10%, sys 0% / +25%, zswpout -10%.
std::vector<Cell> demo_cells()
{
    std::map<std::string, Table> tables = {{"demo/t", two_columns()}};
    std::vector<Target> targets = {{"demo/t", "base", "b.json", {"throughput_kbps", "sys_s", "zswpout"}},
                                   {"demo/t", "new", "n.json", {"throughput_kbps", "sys_s", "zswpout"}}};
    std::map<std::string, json> results = {{"b.json", result(110, 10, 900)}, {"n.json", result(108, 10, 1)}};
    return make_cells(targets, tables, results);
}

size_t count(const std::string& s, const std::string& what)
{
    size_t n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
        n++;
    return n;
}

}  // namespace

TEST_CASE("compare: relative error, improvement sign and per-size mTHP stats of disabled sizes")
{
    CHECK(*rel_error(200.0, 150.0) == Approx(-0.25));
    CHECK(*rel_error(0.0, 0.0) == 0);
    CHECK_FALSE(rel_error(0.0, 5.0));   // no relative error against a published zero
    CHECK_FALSE(rel_error(std::nullopt, 5.0));
    // Throughput: higher is better; times: lower is better.
    CHECK(relative_improvement("throughput_kbps", 100, 120) == Approx(0.2));
    CHECK(relative_improvement("sys_s", 10, 8) == Approx(0.2));
    CHECK(relative_improvement("elapsed_s", 10, 12) == Approx(-0.2));
    json r = result(1, 1, 1);
    CHECK(*model_value(r, "zswpout_2048kB") == 0);   // size not enabled: the counter reads 0
    CHECK_FALSE(model_value(r, "pgmajfault"));       // not reported: no value, not zero
}

TEST_CASE("compare: cells, MAPE and maximum error per table and metric")
{
    auto cells = demo_cells();
    REQUIRE(cells.size() == 6);
    json s = summarize(cells);
    // throughput errors +10% and -10%; sys 0% and +25%; zswpout -10% (n/a cell skipped).
    CHECK(s["per_metric"]["throughput_kbps"]["mape"].get<double>() == Approx(0.10));
    CHECK(s["per_metric"]["sys_s"]["mape"].get<double>() == Approx(0.125));
    CHECK(s["per_metric"]["sys_s"]["max_error"].get<double>() == Approx(0.25));
    CHECK(s["per_metric"]["zswpout"]["cells"].get<int>() == 1);
    CHECK(s["per_table"]["demo/t"]["(all)"]["cells"].get<int>() == 5);
}

TEST_CASE("compare: the summary lists MAPE per table and the worst cells, largest error first")
{
    auto cells = demo_cells();
    std::string md = render_summary(summarize(cells), cells, 2);
    CHECK(md.find("| demo/t | 10.0% (2) |") != std::string::npos);       // throughput MAPE, 2 cells
    CHECK(md.find("| **all tables** | 10.0% (2) |") != std::string::npos);
    // Worst two of five: sys +25% of the new column, then a 10% cell (ties by table, column, metric).
    size_t sys = md.find("| demo/t | new | sys_s | 8.00 | 10.00 | +25.0% |");
    size_t tp = md.find("| demo/t | base | throughput_kbps |");
    REQUIRE(sys != std::string::npos);
    REQUIRE(tp != std::string::npos);
    CHECK(sys < tp);
    CHECK(count(md, "| demo/t | ") == 3);   // the MAPE row and two worst cells
    // A published count below the threshold is left out of the worst list.
    std::string strict = render_summary(summarize(cells), cells, 10, 5000);
    CHECK(strict.find("| demo/t | base | zswpout |") == std::string::npos);
    CHECK(strict.find("1 further cells") != std::string::npos);
}

TEST_CASE("compare: the markdown table keeps its columns and flags a change of the wrong sign")
{
    Table t = two_columns();
    std::vector<Target> targets = {{"demo/t", "base", "b.json", {}}, {"demo/t", "new", "n.json", {}}};
    // Model: throughput improves (+8%, sign right), sys gets worse (-25%, sign wrong).
    std::map<std::string, json> results = {{"b.json", result(100, 8, 900)}, {"n.json", result(108, 10, 1)}};
    int match = 0, total = 0;
    std::string md = render_table(t, targets, results, &match, &total);
    CHECK(total == 2);
    CHECK(match == 1);
    CHECK(count(md, "sign differs") == 1);
    // Every row of the main table has 1 + 2 columns + 1 change column cells: 5 unescaped '|'.
    auto row_pipes = [&](const std::string& starts) {
        size_t p = md.find("\n" + starts);
        REQUIRE(p != std::string::npos);
        std::string line = md.substr(p + 1, md.find('\n', p + 1) - p - 1);
        size_t n = 0;
        for (size_t i = 0; i < line.size(); i++)
            if (line[i] == '|' && (i == 0 || line[i - 1] != '\\'))
                n++;
        return n;
    };
    CHECK(row_pipes("| metric") == 5);
    CHECK(row_pipes("|---") == 5);
    CHECK(row_pipes("| Throughput") == 5);
    CHECK(md.find("mm-unstable \\| zstd") != std::string::npos);
}

TEST_CASE("compare: several seeds of a column are averaged, with their range and pooled processes")
{
    auto run = [](int seed, double tp, double sys, std::vector<double> procs) {
        json r = result(tp, sys, 100);
        r["effective_config"]["seed"] = seed;
        for (double p : procs)
            r["per_process"].push_back({{"throughput_kbps", p}});
        return r;
    };
    json m = merge_runs({run(1, 100, 10, {90, 110}), run(2, 130, 14, {120, 140}), run(3, 100, 9, {100, 100})});
    CHECK(m["metrics"]["throughput_kbps"].get<double>() == Approx(110));
    CHECK(m["metrics"]["sys_s"].get<double>() == Approx(11));
    CHECK(m["runs"]["min"]["sys_s"].get<double>() == 9);
    CHECK(m["runs"]["max"]["throughput_kbps"].get<double>() == 130);
    CHECK(m["runs"]["seeds"] == json::array({1, 2, 3}));
    // The distribution pools the six processes of the three runs.
    CHECK(m["distribution"]["throughput_kbps"]["min"].get<double>() == 90);
    CHECK(m["distribution"]["throughput_kbps"]["max"].get<double>() == 140);
    CHECK(m["distribution"]["throughput_kbps"]["median"].get<double>() == Approx(105));
    // One run is returned as it is.
    json one = run(1, 100, 10, {90, 110});
    CHECK(merge_runs({one}) == one);
    // A cell's spread is the model's range over its runs, relative to the mean.
    std::map<std::string, Table> tables = {{"demo/t", two_columns()}};
    std::vector<Target> targets = {{"demo/t", "base", "b.json", {"throughput_kbps", "sys_s", "zswpout"}}};
    auto cells = make_cells(targets, tables, {{"b.json", m}});
    REQUIRE(cells.size() == 3);
    CHECK(*cells[0].spread == Approx(30.0 / 110));
    CHECK(*cells[1].spread == Approx(5.0 / 11));
    CHECK(*cells[2].spread == 0);
    json s = summarize(cells);
    CHECK(s["per_metric"]["sys_s"]["run_spread"]["max"].get<double>() == Approx(5.0 / 11));
    CHECK(render_summary(s, cells).find("run-to-run range") != std::string::npos);
}

TEST_CASE("compare: the run / write ratio reads 1 when every process writes until the end")
{
    const double gib = 1073741824.0;
    // usemem credits size/8 for the allocation and size per pass: 1,179,648 KB for 1 GiB.
    const double credited = double(swapsim::workload::credited_bytes(1ull << 30, 1, false));
    CHECK(credited == gib * 9 / 8);
    CHECK(swapsim::workload::credited_bytes(1ull << 30, 2, true) == (1ull << 27) + 3 * (1ull << 30));
    // 1,179,648 KB in the 50 s before the 10 s sleep: exactly the last writer's rate.
    CHECK(*run_to_write_ratio(23592.96, 60, 10, credited) == Approx(1.0));
    // Case 2's 2M SSD deflate baseline: 35,971 KB/s, 64.59 s elapsed.
    CHECK(*run_to_write_ratio(35971, 64.59, 10, credited) == Approx(1.6648).epsilon(1e-3));
    CHECK_FALSE(run_to_write_ratio(100, 10, 10, credited));   // no time left for writing
    CHECK_FALSE(run_to_write_ratio(100, 20, 0, 0));

    // In the table: published from its throughput and elapsed rows, the model from its result.
    Table t = two_columns();
    t.metrics.push_back("elapsed_s");
    t.labels.push_back("elapsed time (sec)");
    t.values.push_back({60.0, std::nullopt});
    t.values[0] = {23592.96, 120.0};
    json b = result(2 * 23592.96, 8, 900), n = result(108, 10, 1);
    b["metrics"]["elapsed_s"] = 60.0;
    for (json* r : {&b, &n})
        (*r)["effective_config"]["workload"]["usemem"] = {{"size", gib}, {"sleep", 10.0}};
    std::vector<Target> targets = {{"demo/t", "base", "b.json", {}}, {"demo/t", "new", "n.json", {}}};
    std::string md = render_table(t, targets, {{"b.json", b}, {"n.json", n}}, nullptr, nullptr);
    CHECK(md.find("| run / write |") != std::string::npos);
    CHECK(md.find("| 1.00 / 2.00 |") != std::string::npos);   // base: published 1, model 2
    CHECK(md.find("| n/a / n/a |") != std::string::npos);     // new: no elapsed on either side
}

TEST_CASE("calibrate: BOBYQA's first step keeps the start point inside its bounds")
{
    const double l8 = std::log(8.0);
    // A start in the middle of [v/8, 8v]: the usual 0.5 in log space.
    auto s = bobyqa_steps({0}, {-l8}, {l8});
    CHECK(s[0] == 0.5);
    // The committed class_hold (833.5 cycles) under its 1,000-cycle ceiling: the step is the
    // distance to the ceiling, so BOBYQA does not move the start to 1000 / e^0.5 = 606.5.
    double x0 = std::log(833.5), ub = std::log(1000.0), lb = std::log(833.5 / 8);
    s = bobyqa_steps({x0}, {lb}, {ub});
    CHECK(s[0] == Approx(ub - x0));
    CHECK(x0 + s[0] <= ub + 1e-12);
    // A narrow interval: a quarter of it. A start on a bound: a small step, not zero.
    CHECK(bobyqa_steps({0}, {-0.4}, {0.4})[0] == Approx(0.2));
    CHECK(bobyqa_steps({1}, {-l8}, {1})[0] == 0.05);
}
