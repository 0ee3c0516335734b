// swapsim sweep SCENARIO.json --vary key=v1,v2,... [--vary ...] [--show path,...] [--runs N]
//                [--out DIR [--job-list FILE]] [-j N] [--csv|--json]
//
// Runs the scenario once per point of the grid of --vary values (each run a child process),
// and prints one row per point with the values asked for by --show: metric names
// (throughput_kbps) or dotted paths into result.json (devices.iaa.mean_queue_wait_us).
// With --job-list it runs nothing: it writes the simulations as shell lines and the index
// that `swapsim collect DIR` reads.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "calibrate/pool.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/jobs.hpp"
#include "report/metrics.hpp"
#include "report/result.hpp"
#include "scenario/registry.hpp"

namespace swapsim::cli {

namespace {

void usage(FILE* f)
{
    std::fprintf(f,
        "usage: swapsim sweep SCENARIO.json --vary key=v1,v2,... [--vary ...] [--show path,...] [--runs N]\n"
        "                     [--out DIR [--job-list FILE]] [-j N] [--csv | --json]\n"
        "                     [--set key=value ...] [--params FILE] [--no-builtin-params]\n"
        "\n"
        "Runs SCENARIO at every point of the grid of --vary values (one child process each, N at a\n"
        "time) and prints a table: one row per point, one column per --show value.\n"
        "  --vary key=v1,v2,...  a parameter (see `swapsim params`) and its values; several --vary make a grid\n"
        "                        (every point is validated first; a grid above --max-points N, 1000, is refused)\n"
        "  --show a,b,...        metric names (see `swapsim metrics`) or dotted paths into result.json\n"
        "                        (devices.iaa.mean_queue_wait_us); default throughput_kbps,elapsed_s,sys_s.\n"
        "                        Unknown names are refused before anything runs\n"
        "  --runs N              each point is the mean of seeds 1..N (default 1: the scenario's seed)\n"
        "  --out DIR             keep DIR/points/pointI.json, DIR/pointI/result.json per point and\n"
        "                        DIR/index.json (what `swapsim collect DIR` reads)\n"
        "  --job-list FILE       run nothing: write one `swapsim run ... --out` line per simulation to FILE\n"
        "                        (needs --out), e.g. `parallel -j 8 < FILE`, then `swapsim collect DIR`\n"
        "  --csv, --json         the table as CSV or as a JSON array, instead of markdown\n"
        "  --set, --params, --no-builtin-params   as for `swapsim run`, applied to every point\n");
}

// "" if `s` can name a value of result.json, else why not.
std::string check_show(const std::string& s)
{
    static const char* const sections[] = {"metrics", "distribution", "devices", "locks", "simulation",
                                           "effective_config", "provenance", "wall_clock", "sys_profile"};
    if (s.find('.') == std::string::npos)
        return report::find_metric(s) ? "" : "--show: unknown metric '" + s + "' (see `swapsim metrics`)";
    std::string top = s.substr(0, s.find('.'));
    for (const char* t : sections)
        if (top == t)
            return "";
    return "--show: '" + s + "' is not a path into result.json (its sections: metrics, distribution, devices, locks, "
                             "simulation, effective_config, provenance)";
}

// A scenario file for each grid point: the base scenario with the --vary values set.
json point_scenario(const json& base, const std::vector<std::pair<std::string, std::vector<std::string>>>& vary,
                    const std::vector<std::string>& values)
{
    json s = base;
    s.erase("$schema");
    for (size_t k = 0; k < vary.size(); k++) {
        json* node = &s;
        std::vector<std::string> parts = split(vary[k].first, '.');
        for (size_t p = 0; p + 1 < parts.size(); p++) {
            if (!node->contains(parts[p]) || !(*node)[parts[p]].is_object())
                (*node)[parts[p]] = json::object();
            node = &(*node)[parts[p]];
        }
        json v = json::parse(values[k], nullptr, false);
        (*node)[parts.back()] = v.is_discarded() ? json(values[k]) : v;
        if (s.contains("sources"))
            s["sources"][vary[k].first] = "swapsim sweep --vary";
    }
    return s;
}

// --vary key=v1,v2,...: a key not varied before, and every value non-empty.
std::pair<std::string, std::vector<std::string>> parse_vary(
    const std::string& v, const std::vector<std::pair<std::string, std::vector<std::string>>>& before)
{
    auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        throw std::invalid_argument("--vary: expected key=v1,v2,..., got '" + scenario::clip(v, 80) + "'");
    std::string key = v.substr(0, eq), list = v.substr(eq + 1);
    for (const auto& kv : before)
        if (kv.first == key)
            throw std::invalid_argument("--vary " + scenario::clip(key, 80) + " given twice; list all its values in one --vary");
    std::vector<std::string> values;
    size_t start = 0;
    while (true) {
        size_t comma = list.find(',', start);
        std::string x = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (x.empty())
            throw std::invalid_argument("--vary " + scenario::clip(key, 80) + ": value " + std::to_string(values.size() + 1) +
                                        " is empty in '" + scenario::clip(list, 80) + "'");
        values.push_back(x);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return {key, values};
}

}  // namespace

namespace {

using Vary = std::vector<std::pair<std::string, std::vector<std::string>>>;

struct SweepArgs {
    std::string scenario, out_dir, job_list;
    Vary vary;
    std::vector<std::string> show = {"throughput_kbps", "elapsed_s", "sys_s"}, base_args;
    int jobs = default_jobs(), runs = 1, max_points = 1000;
    TableFormat format = TableFormat::Markdown;
    scenario::LoadOptions lo;
    bool help = false;
};

// Throws std::invalid_argument on a bad command line.
SweepArgs parse_args(int argc, char** argv)
{
    SweepArgs s;
    s.help = each_arg(argc, argv, [&](const std::string& a, auto need) {
        if (a == "--vary") {
            s.vary.push_back(parse_vary(need(), s.vary));
        } else if (a == "--show") {
            s.show = split(need(), ',');
        } else if (a == "--set" || a == "--params") {
            s.base_args.push_back(a);
            s.base_args.push_back(need());
            (a == "--set" ? s.lo.sets : s.lo.param_files).push_back(s.base_args.back());
        } else if (a == "--no-builtin-params") {
            s.base_args.push_back(a);
            s.lo.builtin_params = false;
        } else if (a == "-j") {
            s.jobs = int_arg(a, need(), 1, 256);
        } else if (a == "--max-points") {
            s.max_points = int_arg(a, need(), 1, 1000000);
        } else if (a == "--runs") {
            s.runs = int_arg(a, need(), 1, 100);
        } else if (a == "--out") {
            s.out_dir = need();
        } else if (a == "--job-list") {
            s.job_list = need();
        } else if (a == "--json" || a == "--csv") {
            auto f = a == "--json" ? TableFormat::Json : TableFormat::Csv;
            if (s.format != TableFormat::Markdown && s.format != f)
                throw std::invalid_argument("--csv and --json: give one of them");
            s.format = f;
        } else if (!a.empty() && a[0] == '-') {
            throw std::invalid_argument("unknown option '" + a + "' (see swapsim sweep --help)");
        } else if (s.scenario.empty()) {
            s.scenario = a;
        } else {
            throw std::invalid_argument("one scenario per sweep");
        }
    });
    if (s.help)
        return s;
    if (s.scenario.empty() || s.vary.empty())
        throw std::invalid_argument("a scenario and at least one --vary are required (see swapsim sweep --help)");
    if (!s.job_list.empty() && s.out_dir.empty())
        throw std::invalid_argument("--job-list needs --out DIR (where the runs write their result.json)");
    if (s.show.empty())
        throw std::invalid_argument("--show: no metric given");
    for (const auto& x : s.show)
        if (std::string bad = check_show(x); !bad.empty())
            throw std::invalid_argument(bad);
    return s;
}

// Grid points in row-major order of the --vary options.
std::vector<std::vector<std::string>> grid_points(const Vary& vary)
{
    std::vector<std::vector<std::string>> points = {{}};
    for (const auto& [key, values] : vary) {
        std::vector<std::vector<std::string>> next;
        for (const auto& p : points)
            for (const auto& v : values) {
                auto q = p;
                q.push_back(v);
                next.push_back(q);
            }
        points = next;
    }
    return points;
}

// "key=value key=value" of a grid point, for messages.
std::string point_label(const Vary& vary, const std::vector<std::string>& p)
{
    std::string at;
    for (size_t k = 0; k < vary.size(); k++)
        at += (k ? " " : "") + vary[k].first + "=" + p[k];
    return scenario::clip(at, 200);
}

// The scenario, the --set/--params arguments and every point, checked in this process before
// any folder or file is made. Returns the exit status (0: `base` holds the scenario's JSON).
int check_points(const SweepArgs& a, const std::vector<std::vector<std::string>>& points, json& base)
{
    try {
        std::string text = scenario::read_input_file(a.scenario);
        scenario::load_scenario_text(text, a.scenario, a.lo);
        base = json::parse(text);
        for (const auto& p : points) {
            try {
                scenario::load_scenario_text(point_scenario(base, a.vary, p).dump(), a.scenario, a.lo);
            } catch (const scenario::InputError& e) {
                std::fprintf(stderr, "%s (sweep point %s)\n", e.what(), point_label(a.vary, p).c_str());
                return 2;
            }
        }
    } catch (const scenario::InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim sweep: %s: %s\n", a.scenario.c_str(), e.what());
        return 2;
    }
    return 0;
}

// The sweep's folder (--out DIR, or a temporary one removed at the end), its point scenarios
// and its index.
struct SweepDir {
    fs::path dir;
    bool out = false;    // --out DIR: the results are kept there
    bool keep = false;   // the folder stays: it existed before, or the sweep succeeded with --out
    json index;
    std::vector<std::string> files, keys;
    std::vector<std::vector<std::string>> points;   // each file's --vary values
    ~SweepDir()
    {
        if (!keep && !dir.empty())
            fs::remove_all(dir);
    }
};

// Makes the folder and writes every point's scenario; returns the exit status.
int write_points(const SweepArgs& a, const std::vector<std::vector<std::string>>& points, const json& base, SweepDir& d)
{
    d.out = !a.out_dir.empty();
    if (d.out) {
        d.keep = fs::exists(a.out_dir);   // a folder the sweep makes is removed if it fails
        d.dir = a.out_dir;
    } else {
        std::string tmpl = (fs::temp_directory_path() / "swapsim_sweep.XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) {
            std::fprintf(stderr, "swapsim sweep: %s: cannot create a temporary folder: %s\n", tmpl.c_str(),
                         std::strerror(errno));
            return 1;
        }
        d.dir = tmpl;
    }
    d.index = {{"swapsim", "sweep"}, {"runs", a.runs}};
    json& sw = d.index["sweep"];
    sw["scenario"] = a.scenario;
    sw["vary"] = json::array();
    for (const auto& [key, values] : a.vary)
        sw["vary"].push_back({{"key", key}, {"values", values}});
    sw["show"] = a.show;
    sw["run_args"] = a.base_args;
    sw["points"] = json::array();
    try {
        fs::create_directories(d.dir / "points");
        for (size_t i = 0; i < points.size(); i++) {
            std::string key = fmt::format("points/point{}.json", i);
            std::string file = (d.dir / key).string();
            std::ofstream(file) << point_scenario(base, a.vary, points[i]).dump(2) << "\n";
            // Every point must load before anything runs (a bad --vary value, one line).
            scenario::load_scenario(file, a.lo);
            d.files.push_back(file);
            d.keys.push_back(key);
            d.points.push_back(points[i]);
            sw["points"].push_back({{"key", key}, {"values", points[i]}});
        }
    } catch (const scenario::InputError& e) {
        std::fprintf(stderr, "swapsim sweep: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim sweep: %s: %s\n", d.dir.c_str(), e.what());
        return 2;
    }
    return 0;
}

// --job-list: the simulations as shell lines, and the index `swapsim collect` reads.
int job_list_only(const SweepArgs& a, SweepDir& d)
{
    try {
        json listed = write_job_list(a.job_list, d.dir.string(), d.files, a.base_args, a.runs);
        d.index["results"] = json::object();
        for (size_t i = 0; i < d.files.size(); i++)
            d.index["results"][d.keys[i]] = listed.at(d.files[i]);
        write_index(d.dir.string(), d.index);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim sweep: %s\n", e.what());
        return 2;
    }
    d.keep = true;
    std::fprintf(stderr, "swapsim sweep: wrote %zu simulations to %s; run them (e.g. `parallel < %s`), then "
                         "`swapsim collect %s`\n",
                 size_t(std::count(std::istreambuf_iterator<char>(std::ifstream(a.job_list).rdbuf()), {}, '\n')),
                 a.job_list.c_str(), a.job_list.c_str(), d.dir.c_str());
    return 0;
}

// Runs every point, keeps the results under --out, prints the table.
int run_points(const SweepArgs& a, SweepDir& d)
{
    std::map<std::string, json> results, by_key;
    try {
        results = calibrate::run_scenarios(d.files, a.base_args, a.jobs, calibrate::stderr_progress("sweep"), a.runs);
    } catch (const std::exception& e) {
        // The failing point by its values (its scenario file is temporary, or one of many).
        std::string msg = e.what();
        for (size_t i = 0; i < d.files.size(); i++)
            for (size_t at; (at = msg.find(d.files[i])) != std::string::npos;)
                msg.replace(at, d.files[i].size(), a.scenario + " (sweep point " + point_label(a.vary, d.points[i]) + ")");
        std::fprintf(stderr, "swapsim sweep: %s\n", msg.c_str());
        return calibrate::exit_status(e);
    }
    d.index["results"] = json::object();
    for (size_t i = 0; i < d.files.size(); i++) {
        by_key[d.keys[i]] = results.at(d.files[i]);
        std::string rel = fmt::format("point{}", i);
        d.index["results"][d.keys[i]] = json::array({rel});
        if (d.out)
            report::write_result((d.dir / rel).string(), by_key[d.keys[i]]);
    }
    if (d.out) {
        write_index(d.dir.string(), d.index);
        d.keep = true;
    }
    std::fputs(sweep_table(d.index, by_key, a.format).c_str(), stdout);
    return 0;
}

}  // namespace

int cmd_sweep(int argc, char** argv)
{
    SweepArgs a;
    if (int st = parse_command("sweep", argc, argv, a, parse_args, usage); st >= 0)
        return st;
    // Refuse a grid larger than --max-points before building it.
    double grid = 1;
    for (const auto& kv : a.vary)
        grid *= double(kv.second.size());
    if (grid > a.max_points) {
        std::fprintf(stderr, "swapsim sweep: the grid has %.0f points, more than --max-points %d; use fewer "
                     "--vary values or raise --max-points\n", grid, a.max_points);
        return 2;
    }
    std::vector<std::vector<std::string>> points = grid_points(a.vary);
    json base;
    if (int st = check_points(a, points, base))
        return st;
    SweepDir d;
    if (int st = write_points(a, points, base, d))
        return st;
    if (!a.job_list.empty())
        return job_list_only(a, d);
    return run_points(a, d);
}

}  // namespace swapsim::cli
