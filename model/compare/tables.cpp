#include "compare/tables.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "report/metrics.hpp"
#include "scenario/registry.hpp"

namespace swapsim::compare {

using nlohmann::json;

namespace {
// nlohmann's message without its "[json.exception.parse_error.101] " tag.
std::string json_reason(const json::exception& e)
{
    std::string w = e.what();
    size_t tag = w.rfind("] ", 40);
    return w.substr(w.compare(0, 1, "[") == 0 && tag != std::string::npos ? tag + 2 : 0);
}

json read_json(const std::string& path)
{
    std::string text = scenario::read_input_file(path);
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        throw std::runtime_error(path + ": malformed JSON: " + json_reason(e));
    }
}

// Reading a file of `kind` with `read`: a missing key or a wrong type names the file.
template <class Read>
auto read_structure(const std::string& path, const char* kind, Read read)
{
    json j = read_json(path);
    try {
        return read(j);
    } catch (const json::exception& e) {
        throw std::runtime_error(path + ": not a " + kind + " file: " + json_reason(e));
    }
}
}  // namespace

int Table::row_of(const std::string& metric) const
{
    auto it = std::find(metrics.begin(), metrics.end(), metric);
    return it == metrics.end() ? -1 : int(it - metrics.begin());
}

int Table::col_of(const std::string& key) const
{
    auto it = std::find(columns.begin(), columns.end(), key);
    return it == columns.end() ? -1 : int(it - columns.begin());
}

namespace {
// A claim in prose that a before/after pair of scenarios can reproduce becomes a one-row table
// with no published values, only the published change: <table id minus "prose-claims"><claim id>.
struct ClaimTable {
    const char* table;
    const char* claim;
    const char* metric;
    const char* label;
};
const ClaimTable kClaimTables[] = {
    {"swap-table-p1-v4/prose-claims", "hdd-usemem", "sum_throughput_mbps", "usemem Sum Throughput (MB/s), HDD swap"},
};

void add_claim_tables(const json& t, std::map<std::string, Table>& out)
{
    const std::string id = t.at("id").get<std::string>();
    for (const ClaimTable& ct : kClaimTables) {
        if (id != ct.table)
            continue;
        for (const json& c : t.value("claims", json::array())) {
            if (c.value("id", std::string()) != ct.claim || c.value("numbers", json::array()).empty())
                continue;
            Table x;
            x.id = id.substr(0, id.rfind('/') + 1) + ct.claim;
            x.title = "\"" + c.value("quote", std::string()) + "\" (a claim without a table: its change only)";
            x.change_formula = "relative_change";
            x.columns = {"before", "after"};
            x.column_labels = {"Before", "After"};
            x.metrics = {ct.metric};
            x.labels = {ct.label};
            x.values = {{std::nullopt, std::nullopt}};
            x.changes.push_back({"after_vs_before", "Change", "after", "before"});
            x.published_change[{ct.metric, "after_vs_before"}] = c["numbers"][0].at("value").get<double>();
            out[x.id] = std::move(x);
        }
    }
}
}  // namespace

std::vector<Target> load_targets(const std::string& path)
{
    return read_structure(path, "targets", [&path](const json& j) {
    std::vector<Target> out;
    for (const json& t : j.at("targets")) {
        Target x;
        x.table = t.at("table").get<std::string>();
        x.column = t.at("column").get<std::string>();
        x.scenario = t.at("scenario").get<std::string>();
        x.metrics = t.at("metrics").get<std::vector<std::string>>();
        if (t.contains("runs")) {
            if (!t["runs"].is_number_integer() || t["runs"].get<int>() < 1)
                throw std::runtime_error(fmt::format("{}: /targets/{}/runs: expected a whole number of seeds >= 1", path,
                                                     out.size()));
            x.runs = t["runs"].get<int>();
        }
        for (size_t m = 0; m < x.metrics.size(); m++)   // compared metrics are result.json's (report/metrics.cpp)
            if (!report::find_metric(x.metrics[m]))
                throw std::runtime_error(fmt::format("{}: /targets/{}/metrics/{}: unknown metric '{}' (see `swapsim metrics`)",
                                                     path, out.size(), m, x.metrics[m]));
        out.push_back(std::move(x));
    }
    return out;
    });
}

namespace {

// The condition tag of a published row of a matrix table (seed 001's kbuild matrix: one row per
// -j and memcg limit): "j<jobs>-<limit>-<backend>[-64k]", as the scenario folders are named.
// A Redis table's row (seed 001: without and with BGSAVE): "no-bgsave" or "bgsave".
std::string condition_tag(const json& c)
{
    if (c.is_object() && c.size() == 1 && c.contains("bgsave") && c["bgsave"].is_boolean())
        return c["bgsave"].get<bool>() ? "bgsave" : "no-bgsave";
    if (!c.is_object() || !c.contains("make_jobs") || !c.contains("memcg_limit"))
        return "";
    std::string tag = "j" + std::to_string(c["make_jobs"].get<int>()) + "-" + c["memcg_limit"].get<std::string>();
    std::string be = c.value("swap_backend", std::string());
    std::transform(be.begin(), be.end(), be.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    if (!be.empty())
        tag += "-" + be;
    if (c.contains("mthp_folio_kb"))
        tag += "-" + std::to_string(c["mthp_folio_kb"].get<int>()) + "k";
    return tag;
}

// A table whose rows repeat metrics under conditions becomes one column per (condition,
// published column), "<tag>/<column>", and one row per metric. Returns false for other tables.
bool expand_conditions(const json& t, Table& x)
{
    std::vector<std::string> tags;
    for (const json& r : t.at("rows")) {
        std::string tag = condition_tag(r.value("conditions", json()));
        if (tag.empty())
            return false;
        if (std::find(tags.begin(), tags.end(), tag) == tags.end())
            tags.push_back(tag);
    }
    std::vector<std::string> cols = x.columns, labels = x.column_labels;
    x.columns.clear();
    x.column_labels.clear();
    for (const std::string& tag : tags)
        for (size_t c = 0; c < cols.size(); c++) {
            x.columns.push_back(tag + "/" + cols[c]);
            x.column_labels.push_back(tag + " " + labels[c]);
        }
    for (const json& r : t.at("rows")) {
        std::string metric = r.at("metric").get<std::string>();
        int row = x.row_of(metric);
        if (row < 0) {
            x.metrics.push_back(metric);
            x.labels.push_back(r.value("published_label", metric));
            x.values.emplace_back(x.columns.size());
            row = int(x.metrics.size() - 1);
        } else if (r.value("published_label", metric) != x.labels[size_t(row)]) {
            // The rows' labels name their conditions ("no BGSAVE", "with BGSAVE"), which the
            // columns now carry: the row is the metric's.
            const report::Metric* known = report::find_metric(metric);
            x.labels[size_t(row)] = known && !known->labels.empty() ? known->labels.front() : metric;
        }
        std::string tag = condition_tag(r.at("conditions"));
        size_t base = size_t(std::find(tags.begin(), tags.end(), tag) - tags.begin()) * cols.size();
        const json& v = r.at("values");
        for (size_t c = 0; c < cols.size() && c < v.size(); c++)
            if (v[c].is_number())
                x.values[size_t(row)][base + c] = v[c].get<double>();
        // A change printed after a value ("(+7.19%)" after the After column), within its condition.
        for (const json& ch : r.value("published_change", json::array())) {
            if (!ch.contains("value") || !ch["value"].is_number() || !ch.contains("compares"))
                continue;
            std::string nw = tag + "/" + ch["compares"].at("new").get<std::string>();
            std::string bs = tag + "/" + ch["compares"].at("baseline").get<std::string>();
            std::string key = nw + "_vs_" + bs;
            if (std::none_of(x.changes.begin(), x.changes.end(), [&](const ChangeColumn& c) { return c.key == key; }))
                x.changes.push_back({key, tag + " Change", nw, bs});
            x.published_change[{metric, key}] = ch["value"].get<double>();
        }
    }
    return true;
}

}  // namespace

std::map<std::string, Table> load_tables(const std::string& path)
{
    return read_structure(path, "published tables", [](const json& j) {
    std::map<std::string, Table> out;
    for (const json& t : j.at("tables")) {
        if (t.value("kind", std::string()) == "prose_claims") {
            add_claim_tables(t, out);
            continue;
        }
        if (t.value("kind", std::string("benchmark_table")) != "benchmark_table")
            continue;
        Table x;
        x.id = t.at("id").get<std::string>();
        x.title = t.value("title", std::string());
        if (t.contains("change_formula") && t["change_formula"].is_string())
            x.change_formula = t["change_formula"].get<std::string>();
        for (const json& c : t.at("columns")) {
            x.columns.push_back(c.at("key").get<std::string>());
            x.column_labels.push_back(c.value("label", c.at("key").get<std::string>()));
        }
        if (expand_conditions(t, x)) {
            out[x.id] = std::move(x);
            continue;
        }
        for (const json& r : t.at("rows")) {
            x.metrics.push_back(r.at("metric").get<std::string>());
            const report::Metric* known = report::find_metric(x.metrics.back());
            std::string label = known && !known->labels.empty() ? known->labels.front() : x.metrics.back();
            x.labels.push_back(r.value("published_label", label));
            std::vector<std::optional<double>> vals;
            for (const json& v : r.at("values"))
                vals.push_back(v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt);
            x.values.push_back(std::move(vals));
            for (const json& ch : r.value("published_change", json::array())) {
                if (!ch.contains("value") || !ch["value"].is_number())
                    continue;
                if (ch.contains("change_column")) {
                    x.published_change[{x.metrics.back(), ch["change_column"].get<std::string>()}] =
                        ch["value"].get<double>();
                } else if (ch.contains("compares")) {
                    // A change printed after a value (seed 001: "(-27.82%)" after the After column).
                    std::string nw = ch["compares"].at("new").get<std::string>();
                    std::string base = ch["compares"].at("baseline").get<std::string>();
                    std::string key = nw + "_vs_" + base;
                    if (std::none_of(x.changes.begin(), x.changes.end(), [&](const ChangeColumn& c) { return c.key == key; }))
                        x.changes.push_back({key, "Change", nw, base});
                    x.published_change[{x.metrics.back(), key}] = ch["value"].get<double>();
                }
            }
        }
        for (const json& c : t.value("change_columns", json::array()))
            x.changes.push_back({c.at("key").get<std::string>(), c.value("label", std::string()),
                                 c.at("compares").at("new").get<std::string>(),
                                 c.at("compares").at("baseline").get<std::string>()});
        out[x.id] = std::move(x);
    }
    return out;
    });
}

std::optional<double> run_to_write_ratio(double mean_tp_kbps, double elapsed_s, double sleep_s, double credited_bytes)
{
    double running = elapsed_s - sleep_s, kb = credited_bytes / 1024;
    if (!(running > 0) || !(kb > 0))
        return std::nullopt;
    return running / (kb / mean_tp_kbps);
}

std::optional<double> rel_error(std::optional<double> published, std::optional<double> model)
{
    if (!published || !model)
        return std::nullopt;
    if (*published == 0)
        return *model == 0 ? std::optional<double>(0.0) : std::nullopt;
    return (*model - *published) / std::fabs(*published);
}

double relative_improvement(const std::string& metric, double base, double now)
{
    if (base == 0)
        return 0;
    return report::higher_is_better(metric) ? (now - base) / base : (base - now) / base;
}

std::vector<Cell> make_cells(const std::vector<Target>& targets, const std::map<std::string, Table>& tables,
                             const std::map<std::string, json>& results)
{
    std::vector<Cell> cells;
    for (const Target& t : targets) {
        auto tb = tables.find(t.table);
        auto rs = results.find(t.scenario);
        if (tb == tables.end() || rs == results.end())
            continue;
        int col = tb->second.col_of(t.column);
        if (col < 0)
            continue;
        for (const std::string& m : t.metrics) {
            int row = tb->second.row_of(m);
            if (row < 0)
                continue;
            Cell c{t.table, t.column, m, tb->second.values[size_t(row)][size_t(col)], model_value(rs->second, m), {}, {}};
            c.rel_error = rel_error(c.published, c.model);
            const json& r = rs->second;
            if (c.model && *c.model != 0 && r.contains("runs") && r["runs"]["min"].contains(m))
                c.spread = (r["runs"]["max"][m].get<double>() - r["runs"]["min"][m].get<double>()) / std::fabs(*c.model);
            cells.push_back(std::move(c));
        }
    }
    return cells;
}

std::vector<Cell> load_cells(const std::string& path)
{
    return read_structure(path, "cells", [](const json& a) {
        std::vector<Cell> out;
        for (const auto& c : a.get_ref<const json::array_t&>()) {
            Cell x{c.at("table"), c.at("column"), c.at("metric"), {}, {}, {}, {}};
            if (c.contains("published") && c["published"].is_number())
                x.published = c["published"].get<double>();
            if (c.contains("model") && c["model"].is_number())
                x.model = c["model"].get<double>();
            x.rel_error = rel_error(x.published, x.model);
            out.push_back(x);
        }
        return out;
    });
}

json cells_json(const std::vector<Cell>& cells)
{
    json arr = json::array();
    for (const auto& c : cells)
        arr.push_back({{"table", c.table}, {"column", c.column}, {"metric", c.metric},
                       {"published", c.published ? json(*c.published) : json(nullptr)},
                       {"model", c.model ? json(*c.model) : json(nullptr)},
                       {"rel_error", c.rel_error ? json(*c.rel_error) : json(nullptr)},
                       {"run_spread", c.spread ? json(*c.spread) : json(nullptr)}});
    return arr;
}

json summarize(const std::vector<Cell>& cells)
{
    struct Acc {
        double sum = 0, max = 0, spread_sum = 0, spread_max = 0;
        size_t n = 0, spread_n = 0;
    };
    std::map<std::string, std::map<std::string, Acc>> by;   // table -> metric
    std::map<std::string, Acc> overall;
    for (const Cell& c : cells) {
        if (!c.rel_error || !c.published || *c.published == 0)
            continue;
        double e = std::fabs(*c.rel_error);
        for (Acc* a : {&by[c.table][c.metric], &by[c.table]["(all)"], &overall[c.metric], &overall["(all)"]}) {
            a->sum += e;
            a->max = std::max(a->max, e);
            a->n++;
            if (c.spread) {
                a->spread_sum += *c.spread;
                a->spread_max = std::max(a->spread_max, *c.spread);
                a->spread_n++;
            }
        }
    }
    auto dump = [](const std::map<std::string, Acc>& m) {
        json o = json::object();
        for (auto& [k, a] : m) {
            o[k] = {{"mape", a.sum / double(a.n)}, {"max_error", a.max}, {"cells", a.n}};
            if (a.spread_n)   // the model's own run-to-run range, (max - min) / mean over its seeds
                o[k]["run_spread"] = {{"mean", a.spread_sum / double(a.spread_n)}, {"max", a.spread_max}};
        }
        return o;
    };
    json s;
    s["per_metric"] = dump(overall);
    for (auto& [t, m] : by)
        s["per_table"][t] = dump(m);
    return s;
}

}  // namespace swapsim::compare
