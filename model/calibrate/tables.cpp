#include "calibrate/tables.hpp"
#include "scenario/registry.hpp"

#include "mm/vmstat.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "report/result.hpp"
#include "workload/usemem.hpp"

extern char** environ;

namespace swapsim::calibrate {

using nlohmann::json;
namespace fs = std::filesystem;

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
std::string condition_tag(const json& c)
{
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
        }
        std::string tag = condition_tag(r.at("conditions"));
        size_t base = size_t(std::find(tags.begin(), tags.end(), tag) - tags.begin()) * cols.size();
        const json& v = r.at("values");
        for (size_t c = 0; c < cols.size() && c < v.size(); c++)
            if (v[c].is_number())
                x.values[size_t(row)][base + c] = v[c].get<double>();
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

Progress stderr_progress(const std::string& what)
{
    if (!::isatty(2))
        return [](size_t, size_t) {};   // a log or a pipe gets the result and errors only
    auto start = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
    return [start, what](size_t done, size_t total) {
        double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - *start).count();
        double eta = done ? el / double(done) * double(total - done) : 0;
        int width = 30, fill = total ? int(width * done / total) : width;
        std::fprintf(stderr, "\r%s [%s%s] %zu/%zu  %.0fs elapsed, ETA %.0fs ", what.c_str(),
                     std::string(size_t(fill), '#').c_str(), std::string(size_t(width - fill), '.').c_str(),
                     done, total, el, eta);
        if (done == total)
            std::fprintf(stderr, "\n");
        std::fflush(stderr);
    };
}

std::string content_key(const std::string& path)
{
    std::ifstream f(path);
    json j = json::parse(f, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return "path:" + path;
    for (const char* k : {"$schema", "name", "description", "sources"})
        j.erase(k);
    return j.dump();
}

json merge_runs(const std::vector<json>& runs)
{
    if (runs.size() == 1)
        return runs.front();
    json out = runs.front();
    json lo = json::object(), hi = json::object(), seeds = json::array();
    for (auto& [k, v] : out["metrics"].items()) {
        if (!v.is_number())
            continue;
        double sum = 0, mn = v.get<double>(), mx = mn;
        for (const json& r : runs) {
            double x = r.at("metrics").at(k).get<double>();
            sum += x;
            mn = std::min(mn, x);
            mx = std::max(mx, x);
        }
        v = sum / double(runs.size());
        lo[k] = mn;
        hi[k] = mx;
    }
    std::vector<double> tps;
    for (const json& r : runs) {
        seeds.push_back(r.at("effective_config").value("seed", 0));
        for (const json& p : r.value("per_process", json::array()))
            tps.push_back(p.at("throughput_kbps").get<double>());
    }
    if (!tps.empty())
        out["distribution"]["throughput_kbps"] = report::distribution(tps);
    out["runs"] = {{"seeds", seeds}, {"min", lo}, {"max", hi}};
    return out;
}

int spawn_run(const std::vector<std::string>& args, const std::string& err_path)
{
    std::vector<std::string> a = {"/proc/self/exe"};
    a.insert(a.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& x : a)
        argv.push_back(x.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // The child dies with this process (SWAPSIM_PARENT_PID, cli/main.cpp).
    std::vector<std::string> env_s = {"SWAPSIM_PARENT_PID=" + std::to_string(::getpid())};
    for (char** e = environ; *e; e++)
        if (std::strncmp(*e, "SWAPSIM_PARENT_PID=", 19) != 0)
            env_s.push_back(*e);
    std::vector<char*> env;
    for (auto& x : env_s)
        env.push_back(x.data());
    env.push_back(nullptr);
    pid_t pid;
    int rc = posix_spawn(&pid, "/proc/self/exe", &fa, nullptr, argv.data(), env.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        throw std::runtime_error("cannot start a simulation process");
    return int(pid);
}

std::map<std::string, json> run_scenarios(const std::vector<std::string>& scenarios,
                                          const std::vector<std::string>& run_args, int jobs,
                                          const Progress& progress, int runs)
{
    runs = std::max(1, runs);
    // One simulation per distinct scenario content and seed.
    std::vector<std::string> files;            // a file of each distinct content
    std::map<std::string, size_t> group_of;    // scenario file -> index into files
    {
        std::map<std::string, size_t> by_content;
        for (const auto& s : scenarios)
            if (!group_of.count(s)) {
                auto [it, added] = by_content.emplace(content_key(s), files.size());
                if (added)
                    files.push_back(s);
                group_of[s] = it->second;
            }
    }
    struct Job {
        size_t group;
        int run;   // 0..runs-1; seed run + 1, or the scenario's own with a single run
    };
    std::vector<Job> todo;
    for (size_t g = 0; g < files.size(); g++)
        for (int r = 0; r < runs; r++)
            todo.push_back({g, r});
    std::string tmpl = (fs::temp_directory_path() / "swapsim_eval.XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
        throw std::runtime_error("cannot create a temporary directory");
    fs::path tmp = tmpl;
    struct Child {
        pid_t pid;
        size_t idx;
    };
    std::vector<Child> running;
    std::vector<std::vector<json>> got(files.size(), std::vector<json>(size_t(runs)));
    std::string failure;
    int failure_status = 1;
    size_t next = 0, done = 0;
    jobs = std::max(1, jobs);
    auto start = [&](size_t i) {
        std::vector<std::string> args = {"run", files[todo[i].group], "--out",
                                         (tmp / std::to_string(i)).string()};
        args.insert(args.end(), run_args.begin(), run_args.end());
        if (runs > 1) {
            args.push_back("--set");
            args.push_back("seed=" + std::to_string(todo[i].run + 1));
        }
        int pid = spawn_run(args, (tmp / (std::to_string(i) + ".err")).string());
        running.push_back({pid, i});
    };
    if (progress)
        progress(0, todo.size());
    while (done < todo.size()) {
        while (failure.empty() && next < todo.size() && int(running.size()) < jobs)
            start(next++);
        if (running.empty())
            break;
        int status = 0;
        pid_t pid = ::waitpid(-1, &status, 0);
        auto it = std::find_if(running.begin(), running.end(), [&](const Child& c) { return c.pid == pid; });
        if (it == running.end())
            continue;
        size_t i = it->idx;
        running.erase(it);
        done++;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            got[todo[i].group][size_t(todo[i].run)] = json::parse(std::ifstream(tmp / std::to_string(i) / "result.json"));
        } else if (failure.empty()) {
            std::ifstream e(tmp / (std::to_string(i) + ".err"));
            std::string line;
            std::getline(e, line);
            // The child's line names its scenario already ("swapsim run: FILE: ..." or "FILE: ...").
            const std::string& file = files[todo[i].group];
            if (line.rfind("swapsim run: ", 0) == 0)
                line.erase(0, 13);
            failure = line.rfind(file + ":", 0) == 0 ? line : file + ": " + (line.empty() ? "simulation failed" : line);
            if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
                failure_status = 2;
        }
        if (progress)
            progress(done, todo.size());
    }
    fs::remove_all(tmp);
    if (!failure.empty())
        throw RunFailure(failure, failure_status);
    std::vector<json> merged;
    for (const auto& runs_of : got)
        merged.push_back(merge_runs(runs_of));
    std::map<std::string, json> out;
    for (const auto& [s, g] : group_of)
        out[s] = merged[g];
    return out;
}

std::vector<double> bobyqa_steps(const std::vector<double>& x0, const std::vector<double>& lb,
                                 const std::vector<double>& ub)
{
    std::vector<double> step;
    for (size_t i = 0; i < x0.size(); i++)
        step.push_back(std::min({0.5, (ub[i] - lb[i]) / 4, std::max(0.05, std::min(x0[i] - lb[i], ub[i] - x0[i]))}));
    return step;
}

std::optional<double> run_to_write_ratio(double mean_tp_kbps, double elapsed_s, double sleep_s, double credited_bytes)
{
    double running = elapsed_s - sleep_s, kb = credited_bytes / 1024;
    if (!(running > 0) || !(kb > 0))
        return std::nullopt;
    return running / (kb / mean_tp_kbps);
}

std::optional<double> model_value(const json& result, const std::string& metric)
{
    const json& m = result.at("metrics");
    if (m.contains(metric))
        return m[metric].get<double>();
    // A per-size mTHP stat of a size that is not enabled: the kernel's counter reads 0.
    for (unsigned st = 0; st < mm::NR_MTHP_STATS; st++) {
        std::string p = std::string(mm::mthp_stat_name(mm::MthpStat(st))) + "_";
        if (metric.rfind(p, 0) == 0 && metric.size() > 2 && metric.compare(metric.size() - 2, 2, "kB") == 0)
            return 0.0;
    }
    return std::nullopt;
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

namespace {

bool is_seconds(const std::string& metric) { return report::fmt_of(metric) == report::Fmt::Seconds; }

std::string fmt_value(const std::string& metric, double v) { return report::format_number(v, report::fmt_of(metric)); }

std::string fmt_pct(double x)
{
    return fmt::format("{:+.1f}%", 100 * x);
}

// Markdown table cell text: a '|' in a published label would split the cell.
std::string md_cell(const std::string& s)
{
    std::string out;
    for (char ch : s) {
        if (ch == '|')
            out += '\\';
        out += ch;
    }
    return out;
}

}  // namespace

std::string render_summary(const json& summary, const std::vector<Cell>& cells, size_t worst, double min_published)
{
    static const std::vector<std::string> headline = {"throughput_kbps", "elapsed_s", "sys_s", "zswpout",
                                                      "pswpout", "memcg_high", "memcg_swap_fail", "(all)"};
    std::string md = "MAPE over cells with a nonzero published value (cells compared in brackets).\n\n| table |";
    for (const auto& m : headline)
        md += " " + m + " |";
    md += "\n|---|";
    for (size_t i = 0; i < headline.size(); i++)
        md += "---|";
    md += "\n";
    auto row = [&](const std::string& name, const json& per) {
        md += "| " + name + " |";
        for (const auto& m : headline)
            md += per.contains(m) ? fmt::format(" {:.1f}% ({}) |", 100 * per[m]["mape"].get<double>(),
                                                per[m]["cells"].get<int>())
                                  : std::string(" |");
        md += "\n";
    };
    const json per_table = summary.value("per_table", json::object());
    for (auto& [t, per] : per_table.items())
        row(t, per);
    row("**all tables**", summary.value("per_metric", json::object()));
    // The model's own noise: how far its runs with different seeds lie apart.
    std::string spread;
    const json per_metric = summary.value("per_metric", json::object());
    for (const auto& m : headline)
        if (m != "(all)" && per_metric.contains(m) && per_metric[m].contains("run_spread"))
            spread += fmt::format("{}{} {:.1f}% (max {:.1f}%)", spread.empty() ? "" : ", ", m,
                                  100 * per_metric[m]["run_spread"]["mean"].get<double>(),
                                  100 * per_metric[m]["run_spread"]["max"].get<double>());
    if (!spread.empty())
        md += "\nThe model's run-to-run range, (max - min) / mean over its seeds, mean over cells: " + spread + ".\n";

    std::vector<const Cell*> big, small;
    for (const Cell& c : cells)
        if (c.rel_error && c.published && *c.published != 0)
            (std::fabs(*c.published) >= min_published || is_seconds(c.metric) || c.metric == "throughput_kbps"
                 ? big : small).push_back(&c);
    auto by_error = [](const Cell* a, const Cell* b) {
        double ea = std::fabs(*a->rel_error), eb = std::fabs(*b->rel_error);
        return ea != eb ? ea > eb : std::tie(a->table, a->column, a->metric) < std::tie(b->table, b->column, b->metric);
    };
    std::sort(big.begin(), big.end(), by_error);
    md += fmt::format("\nThe {} worst cells (published value >= {:g}, or a time or throughput):\n\n"
                      "| table | column | metric | published | model | error |\n|---|---|---|---|---|---|\n",
                      std::min(worst, big.size()), min_published);
    for (size_t i = 0; i < big.size() && i < worst; i++) {
        const Cell& c = *big[i];
        md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", c.table, c.column, c.metric,
                          fmt_value(c.metric, *c.published), fmt_value(c.metric, *c.model), fmt_pct(*c.rel_error));
    }
    if (!small.empty())
        md += fmt::format("\n{} further cells have published counts below {:g} (e.g. swap_ra, pswpin); their "
                          "relative errors are in summary.json.\n", small.size(), min_published);
    return md;
}

namespace {

// "published / model" run / write of column c, from the usemem options the scenario ran.
std::string run_to_write_cell(const Table& t, size_t c, const json& result)
{
    const json um = result.value("effective_config", json::object()).value("workload", json::object()).value("usemem", json::object());
    double sleep = um.value("sleep", 0.0);
    double credited = double(workload::credited_bytes(um.value("size", uint64_t(0)), um.value("repeat", 1),
                                                      um.value("read_again", false)));
    int tp = t.row_of("throughput_kbps"), el = t.row_of("elapsed_s");
    std::optional<double> pub, mod;
    if (tp >= 0 && el >= 0 && t.values[size_t(tp)][c] && t.values[size_t(el)][c])
        pub = run_to_write_ratio(*t.values[size_t(tp)][c], *t.values[size_t(el)][c], sleep, credited);
    auto mtp = model_value(result, "throughput_kbps"), mel = model_value(result, "elapsed_s");
    if (mtp && mel)
        mod = run_to_write_ratio(*mtp, *mel, sleep, credited);
    auto str = [](std::optional<double> r) { return r ? fmt::format("{:.2f}", *r) : std::string("n/a"); };
    return str(pub) + " / " + str(mod);
}

}  // namespace

std::string render_table(const Table& t, const std::vector<Target>& targets, const std::map<std::string, json>& results,
                         int* sign_matches, int* sign_total)
{
    std::map<std::string, const json*> col_result;
    for (const Target& tg : targets)
        if (tg.table == t.id) {
            auto it = results.find(tg.scenario);
            if (it != results.end())
                col_result[tg.column] = &it->second;
        }
    std::string md = fmt::format("## {}\n\n{}\n\n", t.id, t.title);
    md += "Each cell: published / model (relative error). Columns without a scenario yet: published only.\n\n";
    md += "| metric |";
    for (const auto& l : t.column_labels)
        md += " " + md_cell(l) + " |";
    for (const auto& ch : t.changes)
        md += " " + md_cell(ch.label.empty() ? ch.key : ch.label) + " (published / model) |";
    md += "\n|---|";
    for (size_t i = 0; i < t.columns.size() + t.changes.size(); i++)
        md += "---|";
    md += "\n";
    for (size_t r = 0; r < t.metrics.size(); r++) {
        const std::string& m = t.metrics[r];
        md += "| " + md_cell(t.labels[r]) + " |";
        for (size_t c = 0; c < t.columns.size(); c++) {
            std::optional<double> pub = t.values[r][c];
            std::string cell = pub ? fmt_value(m, *pub) : "n/a";
            auto it = col_result.find(t.columns[c]);
            if (it != col_result.end()) {
                std::optional<double> mod = model_value(*it->second, m);
                if (mod) {
                    cell += " / " + fmt_value(m, *mod);
                    if (auto e = rel_error(pub, mod))
                        cell += " (" + fmt_pct(*e) + ")";
                }
            }
            md += " " + cell + " |";
        }
        for (const ChangeColumn& ch : t.changes) {
            auto pc = t.published_change.find({m, ch.key});
            std::string cell;
            if (pc != t.published_change.end())
                cell = fmt::format("{}%", pc->second);
            auto a = col_result.find(ch.new_col), b = col_result.find(ch.base_col);
            int cn = t.col_of(ch.new_col), cb = t.col_of(ch.base_col);
            if (pc != t.published_change.end() && a != col_result.end() && b != col_result.end() && cn >= 0 && cb >= 0) {
                auto vn = model_value(*a->second, m), vb = model_value(*b->second, m);
                if (vn && vb) {
                    double mc = t.change_formula == "relative_change" ? (*vb ? (*vn - *vb) / *vb : 0.0)
                                                                      : relative_improvement(m, *vb, *vn);
                    bool match = (mc > 0) == (pc->second > 0) || (mc == 0 && pc->second == 0);
                    cell += " / " + fmt_pct(mc) + (match ? "" : " **sign differs**");
                    if (sign_total)
                        (*sign_total)++;
                    if (match && sign_matches)
                        (*sign_matches)++;
                }
            }
            md += " " + cell + " |";
        }
        md += "\n";
    }
    // Per-process throughput distribution of each modelled column (usemem workloads only).
    std::string dist_rows;
    for (size_t c = 0; c < t.columns.size(); c++) {
        auto it = col_result.find(t.columns[c]);
        if (it == col_result.end() || !it->second->contains("distribution"))
            continue;
        const json& d = (*it->second)["distribution"]["throughput_kbps"];
        dist_rows += fmt::format("| {} | {} | {} | {} | {} | {:.3f} | {} |\n", md_cell(t.column_labels[c]),
                                 report::format_number(d["min"].get<double>(), report::Fmt::Count),
                                 report::format_number(d["median"].get<double>(), report::Fmt::Count),
                                 report::format_number(d["max"].get<double>(), report::Fmt::Count),
                                 report::format_number(d["stdev"].get<double>(), report::Fmt::Count),
                                 d["jain_fairness"].get<double>(), run_to_write_cell(t, c, *it->second));
    }
    if (dist_rows.empty())
        return md + "\n";
    md += "\nPer-process throughput (KB/s) in the model: min / median / max, stdev, Jain's fairness index. "
          "Run / write, published / model: (elapsed - sleep) over the write time that the mean throughput implies "
          "(usemem's credited bytes / mean; size x 9/8 for one pass); 1 when every process writes for the whole "
          "run, above 1 when some finish early or the run spends time outside the writes (fork, munmap, exit).\n\n";
    md += "| column | min | median | max | stdev | Jain | run / write |\n|---|---|---|---|---|---|---|\n" + dist_rows;
    return md + "\n";
}

}  // namespace swapsim::calibrate
