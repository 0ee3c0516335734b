// swapsim sweep SCENARIO.json --vary key=v1,v2,... [--vary ...] [--show path,...] [-j N] [--json]
//
// Runs the scenario once per point of the grid of --vary values (each run a child process),
// and prints one row per point with the values asked for by --show: metric names
// (throughput_kbps) or dotted paths into result.json (devices.iaa.mean_queue_wait_us).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "calibrate/tables.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "report/result.hpp"

namespace swapsim::cli {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void usage(FILE* f)
{
    std::fprintf(f,
        "usage: swapsim sweep SCENARIO.json --vary key=v1,v2,... [--vary ...] [--show path,...] [-j N] [--json]\n"
        "                     [--set key=value ...] [--params FILE]\n"
        "\n"
        "Runs SCENARIO at every point of the grid of --vary values (one child process each, N at a\n"
        "time) and prints a table: one row per point, one column per --show value. --show takes\n"
        "metric names or dotted paths into result.json (default: throughput_kbps,elapsed_s,sys_s).\n");
}

std::optional<double> lookup(const json& r, const std::string& path)
{
    if (path.find('.') == std::string::npos)
        return calibrate::model_value(r, path);
    const json* j = &r;
    for (const std::string& part : split(path, '.')) {
        if (!j->is_object() || !j->contains(part))
            return std::nullopt;
        j = &(*j)[part];
    }
    return j->is_number() ? std::optional<double>(j->get<double>()) : std::nullopt;
}

}  // namespace

int cmd_sweep(int argc, char** argv)
{
    std::string scenario;
    std::vector<std::pair<std::string, std::vector<std::string>>> vary;
    std::vector<std::string> show = {"throughput_kbps", "elapsed_s", "sys_s"}, base_args;
    int jobs = default_jobs();
    bool as_json = false;
    try {
        for (int i = 1; i < argc; i++) {
            std::string a = argv[i];
            auto need = [&] { return option_value(argc, argv, i); };
            if (a == "-h" || a == "--help") {
                usage(stdout);
                return 0;
            } else if (a == "--vary") {
                std::string v = need();
                auto eq = v.find('=');
                if (eq == std::string::npos || eq + 1 == v.size())
                    throw std::invalid_argument("--vary: expected key=v1,v2,..., got '" + v + "'");
                vary.emplace_back(v.substr(0, eq), split(v.substr(eq + 1), ','));
            } else if (a == "--show") {
                show = split(need(), ',');
            } else if (a == "--set" || a == "--params") {
                base_args.push_back(a);
                base_args.push_back(need());
            } else if (a == "-j") {
                jobs = int_arg(a, need(), 1, 256);
            } else if (a == "--json") {
                as_json = true;
            } else if (!a.empty() && a[0] == '-') {
                throw std::invalid_argument("unknown option '" + a + "' (see swapsim sweep --help)");
            } else if (scenario.empty()) {
                scenario = a;
            } else {
                throw std::invalid_argument("one scenario per sweep");
            }
        }
        if (scenario.empty() || vary.empty())
            throw std::invalid_argument("a scenario and at least one --vary are required (see swapsim sweep --help)");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim sweep: %s\n", e.what());
        return 2;
    }
    // Grid points in row-major order of the --vary options.
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
    // Each point is a scenario file of its own (the base scenario with the --vary values set),
    // so run_scenarios can run them in parallel.
    std::string tmpl = (fs::temp_directory_path() / "swapsim_sweep.XXXXXX").string();
    fs::path tmp = ::mkdtemp(tmpl.data());
    std::vector<std::string> files;
    json base;
    try {
        std::ifstream f(scenario);
        if (!f)
            throw std::runtime_error(scenario + ": cannot read");
        base = json::parse(f);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim sweep: %s\n", e.what());
        fs::remove_all(tmp);
        return 2;
    }
    std::string schema_dir = fs::absolute(fs::path(scenario)).parent_path().string();
    for (size_t i = 0; i < points.size(); i++) {
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
            json v;
            try {
                v = json::parse(points[i][k]);
            } catch (...) {
                v = points[i][k];
            }
            (*node)[parts.back()] = v;
            if (s.contains("sources"))
                s["sources"][vary[k].first] = "swapsim sweep --vary";
        }
        fs::path p = tmp / fmt::format("point{}.json", i);
        std::ofstream(p) << s.dump(2);
        files.push_back(p.string());
    }
    std::map<std::string, json> results;
    try {
        results = calibrate::run_scenarios(files, base_args, jobs, calibrate::stderr_progress("sweep"));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim sweep: %s\n", e.what());
        fs::remove_all(tmp);
        return calibrate::exit_status(e);
    }
    fs::remove_all(tmp);
    json arr = json::array();
    std::string header = "|";
    for (const auto& [key, values] : vary)
        header += " " + key + " |";
    for (const auto& s : show)
        header += " " + s + " |";
    if (!as_json) {
        std::printf("%s\n|", header.c_str());
        for (size_t i = 0; i < vary.size() + show.size(); i++)
            std::printf("---|");
        std::printf("\n");
    }
    for (size_t i = 0; i < points.size(); i++) {
        const json& r = results.at(files[i]);
        json row;
        std::string line = "|";
        for (size_t k = 0; k < vary.size(); k++) {
            row[vary[k].first] = points[i][k];
            line += " " + points[i][k] + " |";
        }
        for (const auto& s : show) {
            auto v = lookup(r, s);
            row[s] = v ? json(*v) : json(nullptr);
            bool secs = s.size() > 2 && s.compare(s.size() - 2, 2, "_s") == 0;
            line += " " + (v ? (secs || std::fabs(*v) < 100 ? fmt::format("{:.2f}", *v)
                                                            : report::format_number(*v, report::Row::Count))
                             : std::string("n/a")) + " |";
        }
        arr.push_back(row);
        if (!as_json)
            std::printf("%s\n", line.c_str());
    }
    if (as_json)
        std::printf("%s\n", arr.dump(2).c_str());
    return 0;
}

}  // namespace swapsim::cli
