#include "calibrate/crossval.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "calibrate/pool.hpp"
#include "report/result.hpp"
#include "scenario/registry.hpp"

namespace swapsim::calibrate {

using nlohmann::json;
namespace fs = std::filesystem;
using namespace compare;   // tables, targets, cells and errors (compare/tables.hpp)
using report::md_head;

std::string family_of(const std::string& table_id)
{
    static const std::regex size_suffix("-[0-9]+[kKmM]$");
    return std::regex_replace(table_id, size_suffix, "");
}

std::vector<std::string> families(const std::vector<Target>& targets)
{
    std::vector<std::string> out;
    for (const auto& t : targets)
        if (std::find(out.begin(), out.end(), family_of(t.table)) == out.end())
            out.push_back(family_of(t.table));
    return out;
}

std::string base_metric(const std::string& metric)
{
    const std::string suffix = " change";
    bool change = metric.size() > suffix.size() && metric.compare(metric.size() - suffix.size(), suffix.size(), suffix) == 0;
    return change ? metric.substr(0, metric.size() - suffix.size()) : metric;
}

std::vector<double> fit_linear(const std::vector<LinearCell>& cells, const std::set<std::string>& train,
                               const std::map<std::string, double>& weights, const std::vector<double>& lo,
                               const std::vector<double>& hi)
{
    const size_t n = lo.size();
    // Normal equations of the weighted least squares: A dx = b.
    std::vector<std::vector<double>> A(n, std::vector<double>(n, 0));
    std::vector<double> b(n, 0);
    for (const auto& c : cells) {
        auto w = weights.find(base_metric(c.metric));
        if (!train.count(c.table) || w == weights.end() || w->second <= 0)
            continue;
        double r = c.published - c.base;
        for (size_t i = 0; i < n; i++) {
            b[i] += w->second * c.sens[i] * r;
            for (size_t j = 0; j < n; j++)
                A[i][j] += w->second * c.sens[i] * c.sens[j];
        }
    }
    std::vector<double> dx(n, 0);
    for (size_t i = 0; i < n; i++)
        dx[i] = std::clamp(0.0, lo[i], hi[i]);
    // Coordinate descent on a convex quadratic over a box converges to its minimum.
    for (int sweep = 0; sweep < 2000; sweep++) {
        double moved = 0;
        for (size_t i = 0; i < n; i++) {
            if (A[i][i] <= 1e-12)
                continue;   // the training cells do not depend on this cost: it stays at the start
            double g = b[i];
            for (size_t j = 0; j < n; j++)
                if (j != i)
                    g -= A[i][j] * dx[j];
            double v = std::clamp(g / A[i][i], lo[i], hi[i]);
            moved = std::max(moved, std::fabs(v - dx[i]));
            dx[i] = v;
        }
        if (moved < 1e-10)
            break;
    }
    return dx;
}

bool write_scaled_scenario(const std::string& path, double scale, const std::string& out)
{
    json s = json::parse(std::ifstream(path));
    if (s.contains("workload") && s["workload"].value("type", "usemem") != "usemem")
        return false;
    auto shrink = [&](json& v) {
        if (v.is_string() && v.get<std::string>() == "max")
            return;
        double bytes = scenario::parse_size(v) / scale;
        v = fmt::format("{}K", std::max<long long>(4, (long long)(bytes / 4096 + 0.5) * 4));
    };
    // Global pressure (no memcg limit): the machine's memory is what the workload outgrows.
    std::vector<const char*> sizes = {"/workload/usemem/size", "/kernel/memcg/high", "/kernel/memcg/max", "/swap/swapfile_free"};
    if (!s.contains(json::json_pointer("/kernel/memcg/high")) && !s.contains(json::json_pointer("/kernel/memcg/max")))
        sizes.push_back("/machine/dram");
    for (const char* p : sizes) {
        json::json_pointer ptr(p);
        if (s.contains(ptr))
            shrink(s[ptr]);
    }
    s.erase("$schema");
    std::ofstream(out) << s.dump(2) << "\n";
    return true;
}

namespace {

struct Point {
    std::vector<double> logx;
};

json values_json(const std::vector<FreeCost>& free, const std::vector<double>& logx)
{
    json v = json::object();
    for (size_t i = 0; i < free.size(); i++)
        v[free[i].name] = std::exp(logx[i]);
    return v;
}

std::string cell_key(const std::string& table, const std::string& column, const std::string& metric)
{
    return table + "|" + column + "|" + metric;
}

struct Runner {
    const CrossValOptions& opt;
    int files = 0;

    // Results by the target's scenario path, at the given costs; `scaled` runs the scaled copies.
    std::map<std::string, json> run(const std::vector<Target>& targets, const std::vector<double>& logx,
                                    const std::map<std::string, std::string>& scaled_of, const std::string& what)
    {
        fs::path pf = fs::path(opt.work_dir) / fmt::format("params{}.json", files++);
        std::ofstream(pf) << json{{"values", values_json(opt.free, logx)}}.dump() << "\n";
        std::vector<std::string> paths;
        for (const auto& t : targets) {
            auto it = scaled_of.find(t.scenario);
            std::string p = it == scaled_of.end() ? t.scenario : it->second;
            if (std::find(paths.begin(), paths.end(), p) == paths.end())
                paths.push_back(p);
        }
        auto got = run_scenarios(paths, {"--params", pf.string()}, opt.jobs, stderr_progress(what));
        std::map<std::string, json> out;
        for (const auto& t : targets) {
            auto it = scaled_of.find(t.scenario);
            out[t.scenario] = got.at(it == scaled_of.end() ? t.scenario : it->second);
        }
        return out;
    }
};

std::vector<Target> targets_in(const std::vector<Target>& all, const std::set<std::string>& tables)
{
    std::vector<Target> out;
    for (const auto& t : all)
        if (tables.count(t.table))
            out.push_back(t);
    return out;
}

}  // namespace

std::vector<Cell> as_changes(const std::vector<Cell>& cells, const std::map<std::string, Table>& tables,
                             const std::set<std::string>& changes_only)
{
    std::vector<Cell> out;
    std::map<std::string, const Cell*> by_key;
    for (const Cell& c : cells) {
        if (!changes_only.count(c.table))
            out.push_back(c);
        else
            by_key[cell_key(c.table, c.column, c.metric)] = &c;
    }
    for (const std::string& id : changes_only) {
        auto tb = tables.find(id);
        if (tb == tables.end())
            continue;
        for (const ChangeColumn& ch : tb->second.changes)
            for (const std::string& m : tb->second.metrics) {
                auto nw = by_key.find(cell_key(id, ch.new_col, m)), base = by_key.find(cell_key(id, ch.base_col, m));
                if (nw == by_key.end() || base == by_key.end())
                    continue;
                const Cell &a = *nw->second, &b = *base->second;
                Cell c{id, ch.key, m + " change", std::nullopt, std::nullopt, std::nullopt, std::nullopt};
                if (a.published && b.published && *b.published > 0)
                    c.published = *a.published / *b.published;
                if (a.model && b.model && *b.model > 0)
                    c.model = *a.model / *b.model;
                c.rel_error = rel_error(c.published, c.model);
                out.push_back(std::move(c));
            }
    }
    return out;
}

namespace {

// MAPE per metric of exp(prediction) against the published value, over cells of `tables`.
json linear_errors(const std::vector<LinearCell>& cells, const std::set<std::string>& tables,
                   const std::vector<double>& dx)
{
    std::map<std::string, std::pair<double, int>> acc;
    for (const auto& c : cells) {
        if (!tables.count(c.table))
            continue;
        double pred = c.base;
        for (size_t i = 0; i < dx.size(); i++)
            pred += c.sens[i] * dx[i];
        double e = std::fabs(std::exp(pred - c.published) - 1);
        for (const std::string& k : {c.metric, std::string("(all)")}) {
            acc[k].first += e;
            acc[k].second++;
        }
    }
    json o = json::object();
    for (auto& [m, a] : acc)
        o[m] = {{"mape", a.first / a.second}, {"cells", a.second}};
    return o;
}

json bound_report(const std::vector<FreeCost>& free, const std::vector<double>& logx, const std::vector<double>& trust_lo,
                  const std::vector<double>& trust_hi)
{
    json on = json::array();
    for (size_t i = 0; i < free.size(); i++) {
        const double eps = 1e-6;
        std::string what;
        if (logx[i] <= free[i].lb_log + eps)
            what = "lower bound of its physical range";
        else if (logx[i] >= free[i].ub_log - eps)
            what = "upper bound of its physical range";
        else if (logx[i] <= trust_lo[i] + eps || logx[i] >= trust_hi[i] - eps)
            what = "trust-region limit of the linearisation";
        if (!what.empty())
            on.push_back({{"param", free[i].name}, {"value", std::exp(logx[i])}, {"at", what}});
    }
    return on;
}

}  // namespace

json cross_validate(const CrossValOptions& opt)
{
    const size_t n = opt.free.size();
    fs::create_directories(opt.work_dir);
    Runner runner{opt};
    std::vector<double> x0(n);
    for (size_t i = 0; i < n; i++)
        x0[i] = std::log(opt.free[i].start);

    // Scaled copies of the usemem scenarios.
    std::map<std::string, std::string> scaled_of, none;
    for (const auto& t : opt.targets) {
        if (scaled_of.count(t.scenario))
            continue;
        std::string out = (fs::path(opt.work_dir) / fmt::format("scaled{}.json", scaled_of.size())).string();
        if (write_scaled_scenario(t.scenario, opt.scale, out))
            scaled_of[t.scenario] = out;
    }

    // Levels at the start (full size) and sensitivities (scaled; full size for the others).
    // A changes-only table's before/after pairs become one cell each (as_changes).
    auto cells_of = [&](const std::vector<Target>& targets, const std::map<std::string, json>& res) {
        return as_changes(make_cells(targets, opt.tables, res), opt.tables, opt.changes_only);
    };
    std::set<std::string> used;
    for (const auto& t : opt.targets)
        used.insert(t.table);
    std::vector<Cell> levels;   // of the tables used (results/cells.json holds every table)
    for (const Cell& c : opt.levels)
        if (used.count(c.table))
            levels.push_back(c);
    std::vector<Cell> base_cells = as_changes(levels, opt.tables, opt.changes_only);
    if (base_cells.empty())
        base_cells = cells_of(opt.targets, runner.run(opt.targets, x0, none, "start, full size"));
    auto scaled0 = cells_of(opt.targets, runner.run(opt.targets, x0, scaled_of, "start, scaled"));
    std::map<std::string, double> log_scaled0;
    for (const auto& c : scaled0)
        if (c.model && *c.model > 0)
            log_scaled0[cell_key(c.table, c.column, c.metric)] = std::log(*c.model);
    std::vector<LinearCell> lin;
    std::vector<std::string> lin_keys;
    for (const auto& c : base_cells)
        if (c.published && *c.published > 0 && c.model && *c.model > 0) {
            lin.push_back({c.table, c.metric, std::log(*c.model), std::log(*c.published), std::vector<double>(n, 0)});
            lin_keys.push_back(cell_key(c.table, c.column, c.metric));
        }
    json steps = json::object();
    for (size_t i = 0; i < n; i++) {
        std::vector<double> x = x0;
        // A step inside the physical range, to the side with more room.
        double up = opt.free[i].ub_log - x0[i], down = x0[i] - opt.free[i].lb_log;
        double h = up >= down ? std::min(opt.step, up) : -std::min(opt.step, down);
        if (std::fabs(h) < 1e-6)
            throw std::invalid_argument(opt.free[i].name + ": its range leaves no room for a step");
        x[i] += h;
        steps[opt.free[i].name] = std::exp(x[i]);
        auto cells = cells_of(opt.targets, runner.run(opt.targets, x, scaled_of, "step " + opt.free[i].name));
        std::map<std::string, double> at;
        for (const auto& c : cells)
            if (c.model && *c.model > 0)
                at[cell_key(c.table, c.column, c.metric)] = std::log(*c.model);
        for (size_t k = 0; k < lin.size(); k++) {
            auto a = at.find(lin_keys[k]);
            auto b = log_scaled0.find(lin_keys[k]);
            if (a != at.end() && b != log_scaled0.end())
                lin[k].sens[i] = (a->second - b->second) / h;
        }
    }

    // Bounds of dx: the physical range, and a trust region of x/2..x*2 around the start.
    const double trust = std::log(2.0);
    std::vector<double> lo(n), hi(n), tlo(n), thi(n);
    for (size_t i = 0; i < n; i++) {
        tlo[i] = x0[i] - trust;
        thi[i] = x0[i] + trust;
        lo[i] = std::max(opt.free[i].lb_log, tlo[i]) - x0[i];
        hi[i] = std::min(opt.free[i].ub_log, thi[i]) - x0[i];
    }

    json report;
    report["method"] = {
        {"fit", "weighted least squares of log(model/published) over the training cells, linearised at the start"},
        {"levels", opt.levels.empty() ? "full-size runs at the start (seed 1)" : "full-size runs of the committed set (results/cells.json, mean of seeds 1-3)"},
        {"sensitivities", fmt::format("one step of each cost by up to x{:.3g} or /{:.3g} (inside its range, to the side with more room), on runs scaled down {:g}x", std::exp(opt.step), std::exp(opt.step), opt.scale)},
        {"trust_region", "each cost within /2..x2 of its start and inside its physical range"},
        {"left_out", "simulated with full-size runs at the fold's costs (seed 1)"}};
    report["weights"] = opt.weights;
    json free = json::array();
    for (size_t i = 0; i < n; i++)
        free.push_back({{"param", opt.free[i].name}, {"start", opt.free[i].start},
                        {"min", std::exp(opt.free[i].lb_log)}, {"max", std::exp(opt.free[i].ub_log)},
                        {"step_to", steps[opt.free[i].name]}});
    report["free"] = free;
    report["committed"] = summarize(base_cells);

    std::set<std::string> all_tables;
    for (const auto& t : opt.targets)
        all_tables.insert(t.table);
    json folds = json::array();
    for (const std::string& fam : families(opt.targets)) {
        std::set<std::string> held, train;
        for (const auto& t : all_tables)
            (family_of(t) == fam ? held : train).insert(t);
        auto dx = fit_linear(lin, train, opt.weights, lo, hi);
        std::vector<double> x(n);
        for (size_t i = 0; i < n; i++)
            x[i] = x0[i] + dx[i];
        auto held_targets = targets_in(opt.targets, held);
        auto res = runner.run(held_targets, x, none, "left out " + fam);
        json f;
        f["held_out"] = fam;
        f["held_out_tables"] = held;
        f["train_tables"] = train;
        f["values"] = values_json(opt.free, x);
        f["on_bound"] = bound_report(opt.free, x, tlo, thi);
        f["left_out"] = summarize(cells_of(held_targets, res));
        f["left_out_linear"] = linear_errors(lin, held, dx);
        f["train_linear"] = linear_errors(lin, train, dx);
        f["committed_on_left_out"] = linear_errors(lin, held, std::vector<double>(n, 0));
        folds.push_back(f);
    }
    report["folds"] = folds;

    // The fit on every table, simulated on every table.
    auto dx = fit_linear(lin, all_tables, opt.weights, lo, hi);
    std::vector<double> x(n);
    for (size_t i = 0; i < n; i++)
        x[i] = x0[i] + dx[i];
    json all;
    all["values"] = values_json(opt.free, x);
    all["on_bound"] = bound_report(opt.free, x, tlo, thi);
    all["train_linear"] = linear_errors(lin, all_tables, dx);
    report["all_tables"] = all;
    return report;
}

namespace {

std::vector<std::string> columns(const std::string& first, const std::vector<std::string>& metrics,
                                 const std::string& last = {})
{
    std::vector<std::string> cols = {first};
    cols.insert(cols.end(), metrics.begin(), metrics.end());
    if (!last.empty())
        cols.push_back(last);
    return cols;
}

std::string pct(const json& j, const std::string& metric)
{
    if (!j.is_object() || !j.contains(metric))
        return "-";
    return fmt::format("{:.1f}%", 100 * j[metric]["mape"].get<double>());
}

}  // namespace

std::string render_cross_validation(const json& r)
{
    std::vector<std::string> metrics;
    for (auto& [m, w] : r["weights"].items())
        metrics.push_back(m);
    for (const char* m : {"zswpout", "memcg_high"})
        if (std::find(metrics.begin(), metrics.end(), m) == metrics.end())
            metrics.push_back(m);
    for (auto& [m, w] : r["weights"].items())   // the changes of changes-only tables (as_changes)
        if (r["committed"]["per_metric"].contains(m + " change"))
            metrics.push_back(m + " change");
    std::string md = "# Cross-validation: each table family left out of the fit\n\n";
    md += "Written by `swapsim calibrate --cross-validate` (README, Results). Each row fits the free costs on "
          "every other family and runs the left-out family's scenarios (full size, seed 1) with the fitted costs: "
          "its error is the model's expected error on a table it has not seen. Method: ";
    md += r["method"]["fit"].get<std::string>() + "; " + r["method"]["sensitivities"].get<std::string>() + "; " +
          r["method"]["trust_region"].get<std::string>() + ".\n\n";
    md += "MAPE of the left-out family, simulated (the committed parameter set on the same cells in brackets; the "
          "linear prediction's error after the slash):\n\n";
    md += md_head(columns("left out", metrics, "costs on a bound"));
    for (const auto& f : r["folds"]) {
        std::string fam = f["held_out"];
        md += "| " + fam + " |";
        const json& pm = f["left_out"]["per_metric"];
        json committed = json::object();
        // The committed set on the left-out tables: the mean over them of its per-table MAPE, weighted by cells.
        for (const auto& m : metrics) {
            double sum = 0;
            int cells = 0;
            for (const auto& t : f["held_out_tables"]) {
                const json& pt = r["committed"]["per_table"];
                if (pt.contains(t.get<std::string>()) && pt[t.get<std::string>()].contains(m)) {
                    int c = pt[t.get<std::string>()][m]["cells"];
                    sum += pt[t.get<std::string>()][m]["mape"].get<double>() * c;
                    cells += c;
                }
            }
            if (cells)
                committed[m] = {{"mape", sum / cells}};
        }
        for (const auto& m : metrics)
            md += " " + pct(pm, m) + " (" + pct(committed, m) + ") / " + pct(f["left_out_linear"], m) + " |";
        std::string ob;
        for (const auto& b : f["on_bound"])
            ob += (ob.empty() ? "" : ", ") + b["param"].get<std::string>() + " (" + b["at"].get<std::string>() + ")";
        md += " " + (ob.empty() ? std::string("none") : ob) + " |\n";
    }
    md += "\nTraining error of each fold (linear prediction on its training cells):\n\n";
    md += md_head(columns("left out", metrics));
    for (const auto& f : r["folds"]) {
        md += "| " + f["held_out"].get<std::string>() + " |";
        for (const auto& m : metrics)
            md += " " + pct(f["train_linear"], m) + " |";
        md += "\n";
    }
    md += "\nFitted costs per fold against their physical ranges (`swapsim params` gives each range's source):\n\n";
    std::vector<std::string> head = {"cost", "min", "start (committed)", "max"};
    for (const auto& f : r["folds"])
        head.push_back("w/o " + f["held_out"].get<std::string>().substr(f["held_out"].get<std::string>().find('/') + 1));
    head.push_back("all tables");
    md += md_head(head);
    for (const auto& fc : r["free"]) {
        std::string p = fc["param"];
        md += fmt::format("| {} | {:.4g} | {:.4g} | {:.4g} |", p, fc["min"].get<double>(), fc["start"].get<double>(),
                          fc["max"].get<double>());
        for (const auto& f : r["folds"])
            md += fmt::format(" {:.4g} |", f["values"][p].get<double>());
        md += fmt::format(" {:.4g} |\n", r["all_tables"]["values"][p].get<double>());
    }
    const json& all = r["all_tables"];
    md += "\nThe fit on every table, its linear prediction on every table (MAPE; the committed set, simulated, in brackets):\n\n";
    md += md_head(columns("", metrics));
    md += "| all tables |";
    for (const auto& m : metrics)
        md += " " + pct(all["train_linear"], m) + " (" + pct(r["committed"]["per_metric"], m) + ") |";
    md += "\n";
    std::string ob;
    for (const auto& b : all["on_bound"])
        ob += (ob.empty() ? "" : ", ") + b["param"].get<std::string>() + " (" + b["at"].get<std::string>() + ")";
    md += "\nCosts of that fit on a bound: " + (ob.empty() ? std::string("none") : ob) + ".\n";
    return md;
}

}  // namespace swapsim::calibrate
