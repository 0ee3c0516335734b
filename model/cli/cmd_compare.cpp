// swapsim compare [TABLE_ID ...|--all] [--params FILE] [--set PARAM=VALUE] [-j N] [--json] ...
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "calibrate/pool.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "cli/jobs.hpp"
#include "compare/report.hpp"
#include "report/result.hpp"
#include "scenario/registry.hpp"

namespace swapsim::cli {

namespace {

void usage(FILE* f)
{
    std::fprintf(f,
        "usage: swapsim compare [TABLE_ID ...|--all] [--params FILE] [--no-builtin-params] [--set PARAM=VALUE ...]\n"
        "                       [-j N] [--runs N] [--json] [--targets FILE] [--published FILE] [--results DIR]\n"
        "                       [--no-write] [--out DIR --job-list FILE]\n"
        "\n"
        "Runs the scenarios of calibration/targets.json (one child process each, N at a time) and prints\n"
        "each table in its seed's layout: published / model (relative error) per cell, the published\n"
        "changes next to the model's (a differing sign is flagged), and the per-process throughput\n"
        "distribution. Writes results/<table>.md and, with --all, results/summary.{json,md}.\n"
        "  TABLE_ID ...       tables of the targets file, e.g. zswap-mthp-v7/case1-64k\n"
        "  --all              every table of the targets file; also writes results/summary.{json,md}\n"
        "  --params FILE      a parameter set (e.g. calibrate --out) on top of the builtin calibrated set\n"
        "  --no-builtin-params  start from the registry's documented defaults instead of the calibrated set\n"
        "  --set PARAM=VALUE  a what-if on every run, on top of the parameter set (as `swapsim run --set`)\n"
        "  -j N               simulations at a time (default: one per CPU)\n"
        "  --runs N           each column is the mean of seeds 1..N, as the seeds average 3 runs (default 3)\n"
        "  --published FILE   compare against FILE (seed-tables.json schema, e.g. your own measurements)\n"
        "  --json             print one JSON object per cell: {table, column, metric, published, model, rel_error}\n"
        "  --results DIR      write the tables and summary under DIR instead of results/\n"
        "  --no-write         write nothing, print only\n"
        "  --targets FILE     which scenario reproduces which table column (default calibration/targets.json)\n"
        "  --out DIR          with --job-list: the folder of the runs' result.json files and index.json\n"
        "  --job-list FILE    with --out DIR: run nothing; write one `swapsim run ... --out` line per simulation\n"
        "                     to FILE and DIR/index.json; run the lines (GNU parallel, a Slurm array), then\n"
        "                     `swapsim collect DIR` prints and writes what compare would\n");
}

// The targets file and the published tables; false (message printed) when either is bad.
bool load_inputs(const std::string& targets_path, const std::string& published, compare::Inputs& in)
{
    try {
        in = compare::load_inputs(targets_path, published);
        return true;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim compare: %s\n", e.what());
        return false;
    }
}

struct CompareArgs {
    std::vector<std::string> tables_wanted, run_args;
    std::string targets_path = "calibration/targets.json", published = "calibration/published/seed-tables.json";
    std::string results_dir = "results", out_dir, job_list;
    bool all = false, as_json = false, write = true, help = false;
    int jobs = default_jobs(), runs = 3;
};

// Throws std::invalid_argument on a bad command line.
CompareArgs parse_args(int argc, char** argv)
{
    CompareArgs c;
    c.help = each_arg(argc, argv, [&](const std::string& a, auto need) {
        if (a == "--all") {
            c.all = true;
        } else if (a == "--json") {
            c.as_json = true;
        } else if (a == "--no-write") {
            c.write = false;
        } else if (a == "--params" || a == "--set") {
            c.run_args.push_back(a);
            c.run_args.push_back(need());
        } else if (a == "--no-builtin-params") {
            c.run_args.push_back(a);
        } else if (a == "-j") {
            c.jobs = int_arg(a, need(), 1, 256);
        } else if (a == "--runs") {
            c.runs = int_arg(a, need(), 1, 100);
        } else if (a == "--targets") {
            c.targets_path = need();
        } else if (a == "--published") {
            c.published = need();
        } else if (a == "--results") {
            c.results_dir = need();
        } else if (a == "--out") {
            c.out_dir = need();
        } else if (a == "--job-list") {
            c.job_list = need();
        } else if (!a.empty() && a[0] == '-') {
            throw std::invalid_argument("unknown option '" + a + "' (see swapsim compare --help)");
        } else {
            c.tables_wanted.push_back(a);
        }
    });
    if (c.help)
        return c;
    if (!c.all && c.tables_wanted.empty())
        throw std::invalid_argument("name tables or --all (see swapsim compare --help)");
    if (c.job_list.empty() != c.out_dir.empty())
        throw std::invalid_argument("--job-list FILE and --out DIR go together");
    return c;
}

// The tables asked for (with --all, every table of the targets that is published); throws for
// a table no target reproduces or that is not published, before anything runs.
std::set<std::string> select_tables(const CompareArgs& a, const std::vector<compare::Target>& targets,
                                    const std::map<std::string, compare::Table>& tables)
{
    std::set<std::string> selected;
    for (const auto& t : targets)
        if ((a.all && tables.count(t.table)) ||
            std::find(a.tables_wanted.begin(), a.tables_wanted.end(), t.table) != a.tables_wanted.end())
            selected.insert(t.table);
    for (const auto& w : a.tables_wanted) {
        if (!selected.count(w))
            throw std::invalid_argument(scenario::clip(w, 100) + ": no target in " + a.targets_path + " reproduces this table");
        if (!tables.count(w))
            throw std::invalid_argument(w + ": not a table of " + a.published + " (see its \"id\" fields)");
    }
    if (selected.empty())
        throw std::invalid_argument("--all: no table of " + a.targets_path + " is in " + a.published);
    return selected;
}

// Before anything runs: every scenario the tables need loads, and --results takes files.
void check_runs(const CompareArgs& a, const std::vector<std::string>& scenarios)
{
    for (const auto& s : scenarios)
        scenario::read_input_file(s);   // a missing or unreadable one names itself
    if (a.write && a.job_list.empty())
        if (std::string bad = report::check_output_file((fs::path(a.results_dir) / "summary.json").string()); !bad.empty())
            throw std::invalid_argument("--results " + a.results_dir + ": " + bad);
}

}  // namespace

int cmd_compare(int argc, char** argv)
{
    CompareArgs a;
    if (int st = parse_command("compare", argc, argv, a, parse_args, usage); st >= 0)
        return st;
    compare::Inputs in;
    std::set<std::string> selected;
    try {
        if (!load_inputs(a.targets_path, a.published, in))
            return 2;
        selected = select_tables(a, in.targets, in.tables);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim compare: %s\n", e.what());
        return 2;
    }
    std::vector<std::string> scenarios;
    calibrate::RunCaps max_runs;
    for (const auto& t : in.targets)
        if (selected.count(t.table)) {
            scenarios.push_back(t.scenario);
            if (t.runs)
                max_runs[t.scenario] = t.runs;
        }
    try {
        check_runs(a, scenarios);
    } catch (const scenario::InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim compare: %s\n", e.what());
        return 2;
    }
    json index = {{"swapsim", "compare"},
                  {"runs", a.runs},
                  {"compare",
                   {{"targets", a.targets_path}, {"published", a.published}, {"tables", selected}, {"all", a.all},
                    {"json", a.as_json}, {"write", a.write}, {"results_dir", a.results_dir}, {"run_args", a.run_args}}}};
    try {
        if (!a.job_list.empty()) {
            index["results"] = write_job_list(a.job_list, a.out_dir, scenarios, a.run_args, a.runs, max_runs);
            write_index(a.out_dir, index);
            std::fprintf(stderr, "swapsim compare: wrote the simulations to %s; run them (e.g. `parallel < %s`), then "
                                 "`swapsim collect %s`\n", a.job_list.c_str(), a.job_list.c_str(), a.out_dir.c_str());
            return 0;
        }
        auto results = calibrate::run_scenarios(scenarios, a.run_args, a.jobs, calibrate::stderr_progress("compare"), a.runs,
                                                max_runs);
        return compare_report(index, results);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim compare: %s\n", e.what());
        return a.job_list.empty() ? calibrate::exit_status(e) : 2;
    }
}

int compare_report(const json& index, const std::map<std::string, json>& results)
{
    const json& c = index.at("compare");
    compare::Inputs in;
    if (!load_inputs(c.at("targets").get<std::string>(), c.at("published").get<std::string>(), in))
        return 2;
    std::fputs(compare::report(index, in, results).c_str(), stdout);
    return 0;
}

}  // namespace swapsim::cli
