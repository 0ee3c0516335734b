// swapsim run SCENARIO.json [--baseline B.json] [--out DIR] [--set key=value ...] [--params FILE ...]
//             [--trace FILE [--trace-step S]] [--profile] [-v]
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "calibrate/tables.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "report/result.hpp"
#include "run/run.hpp"
#include "scenario/registry.hpp"

namespace swapsim::cli {

namespace fs = std::filesystem;

namespace {

void usage(FILE* f)
{
    std::fprintf(f,
        "usage: swapsim run SCENARIO.json [--baseline B.json] [--out DIR] [--set key=value ...] [--params FILE ...]\n"
        "                  [--no-builtin-params] [--trace FILE [--trace-step S]] [--profile] [-v]\n"
        "                  [--cfg=SIMGRID_OPT ...] [--log=SIMGRID_LOG ...]\n"
        "\n"
        "Runs one simulation and prints its result table (rows: result.json's metric names; column:\n"
        "this scenario, with the --set values under its name).\n"
        "  --baseline B.json     also run B.json (in a second process, at the same time; without the --set\n"
        "                        values) and print both columns and the change, as the published \"Change wrt\n"
        "                        Baseline\". The what-if of a scenario: run S.json --set ... --baseline S.json\n"
        "  --out DIR             also write DIR/result.json (written to a temporary file, then renamed);\n"
        "                        with --baseline, the baseline's goes to DIR/baseline/result.json\n"
        "  --set key=value       override one parameter (see `swapsim params`), e.g. --set kernel.memcg.high=30G\n"
        "  --params FILE         apply a parameter file {\"values\": {...}} (model costs only)\n"
        "  --no-builtin-params   use the registry's documented defaults, not the calibrated set\n"
        "  --trace FILE          write a CSV time series: memcg usage and memory.high, swap-out rate, tasks in\n"
        "                        reclaim and throttled, I/O wait, lock spin, IAA and SSD queue depth\n"
        "  --trace-step S        its step in simulated seconds (default 0.1)\n"
        "  --profile             also print sys time by model function (kernel names), spin apart, like\n"
        "                        perf report; result.json gets sys_profile. The run is slower\n"
        "  -v                    verbose SimGrid logging\n"
        "On a terminal, stderr shows the simulated time against sim.time_limit while it runs.\n"
        "A run stops with exit status 1 past sim.time_limit (simulated seconds), sim.wall_limit (wall-clock\n"
        "seconds, default 1h) or sim.rss_limit (memory, default 8G): set them in the scenario or with --set.\n"
        "At its end it checks its invariants (user + sys within elapsed x CPUs, no negative time, RAM and\n"
        "memory.max not passed, pgsteal against zswpout + pswpout, every written page resident or swapped\n"
        "out); a broken one is a bug in the model: one line naming it, exit status 3.\n");
}

// The output folder must be writable before a long run starts; it is created only when the
// result is written, so a failed run leaves no empty folder behind.
std::string check_out_dir(const std::string& dir)
{
    if (dir.empty())
        return "swapsim run: --out: empty folder name";
    std::string bad = report::check_output_file((fs::path(dir) / "result.json").string());
    return bad.empty() ? bad : dir + ": cannot create output directory: " + bad;
}

}  // namespace

int cmd_run(int argc, char** argv)
{
    std::string path, out, baseline;
    bool out_given = false;
    scenario::LoadOptions lo, base_lo;
    run::RunOptions ro;
    std::vector<std::string> base_args;   // the baseline's: --params, --no-builtin-params
    try {
        for (int i = 1; i < argc; i++) {
            std::string a = argv[i];
            auto need = [&] { return option_value(argc, argv, i); };
            if (a == "-h" || a == "--help") {
                usage(stdout);
                return 0;
            } else if (a == "--out") {
                out = need();
                out_given = true;
            } else if (a == "--baseline") {
                baseline = need();
            } else if (a == "--set") {
                lo.sets.push_back(need());
            } else if (a == "--params") {
                lo.param_files.push_back(need());
                base_lo.param_files.push_back(lo.param_files.back());
                base_args.insert(base_args.end(), {"--params", lo.param_files.back()});
            } else if (a == "--no-builtin-params") {
                lo.builtin_params = base_lo.builtin_params = false;
                base_args.push_back(a);
            } else if (a == "--trace") {
                ro.trace = need();
            } else if (a == "--trace-step") {
                std::string v = need();
                char* end = nullptr;
                ro.trace_step = std::strtod(v.c_str(), &end);
                if (end == v.c_str() || *end || !(ro.trace_step >= 1e-4 && ro.trace_step <= 1e4))
                    throw std::invalid_argument("--trace-step: expected simulated seconds from 0.0001 to 10000, got '" +
                                                v + "'");
            } else if (a == "--profile") {
                ro.profile = true;
            } else if (a == "-v" || a == "--verbose") {
                ro.verbose = true;
            } else if (a.rfind("--cfg=", 0) == 0 || a.rfind("--log=", 0) == 0) {
                ro.simgrid_args.push_back(a);
            } else if (!a.empty() && a[0] == '-') {
                throw std::invalid_argument("unknown option '" + a + "' (see swapsim run --help)");
            } else if (path.empty()) {
                path = a;
            } else {
                throw std::invalid_argument("one scenario per run (got '" + path + "' and '" + a + "')");
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim run: %s\n", e.what());
        return 2;
    }
    if (path.empty()) {
        std::fprintf(stderr, "swapsim run: a scenario file is required (see swapsim run --help)\n");
        return 2;
    }
    ro.progress = ::isatty(2) && !ro.verbose;
    ro.source = path;
    std::string tmp;
    pid_t child = -1;
    bool trace_made = false;   // a failed run leaves no trace file behind
    auto remove_trace = [&] {  // a regular file only: never a device (/dev/full) or a FIFO
        struct stat st {};
        if (trace_made && ::lstat(ro.trace.c_str(), &st) == 0 && S_ISREG(st.st_mode))
            ::unlink(ro.trace.c_str());
    };
    auto reap = [&] {
        if (child > 0) {
            ::kill(child, SIGTERM);
            ::waitpid(child, nullptr, 0);
        }
        if (!tmp.empty())
            fs::remove_all(tmp);
    };
    auto fail = [&](const std::string& line, int status) {
        std::fprintf(stderr, "%s\n", line.c_str());
        reap();
        remove_trace();
        return status;
    };
    ro.on_budget = [&] {
        reap();
        remove_trace();
    };
    try {
        std::string text = scenario::read_input_file(path);   // read once: a FIFO reads only once
        scenario::Config cfg = scenario::load_scenario_text(text, path, lo);
        if (!baseline.empty())
            scenario::load_scenario(baseline, base_lo);   // bad input before anything runs
        if (out_given) {
            std::string bad = check_out_dir(out);
            if (!bad.empty()) {
                std::fprintf(stderr, "%s\n", bad.c_str());
                return 2;
            }
        }
        if (!ro.trace.empty() && !std::ofstream(ro.trace, std::ios::app)) {
            std::fprintf(stderr, "%s: cannot write the trace: %s\n", ro.trace.c_str(), std::strerror(errno));
            return 2;
        }
        trace_made = !ro.trace.empty();
        if (!baseline.empty()) {
            std::string tmpl = (fs::temp_directory_path() / "swapsim_baseline.XXXXXX").string();
            if (!::mkdtemp(tmpl.data()))
                throw std::runtime_error("cannot create a temporary directory");
            tmp = tmpl;
            std::vector<std::string> args = {"run", baseline, "--out", tmp + "/b"};
            args.insert(args.end(), base_args.begin(), base_args.end());
            child = calibrate::spawn_run(args, tmp + "/b.err");
        }
        nlohmann::json result = run::run_scenario(cfg, text, ro);
        if (baseline.empty()) {
            std::fputs(report::format_table(result).c_str(), stdout);
        } else {
            int st = 0;
            ::waitpid(child, &st, 0);
            child = -1;
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                std::ifstream e(tmp + "/b.err");
                std::string line;
                std::getline(e, line);
                int status = WIFEXITED(st) && (WEXITSTATUS(st) == 2 || WEXITSTATUS(st) == 3) ? WEXITSTATUS(st) : 1;
                return fail("swapsim run: baseline " + baseline + ": " + (line.empty() ? "simulation failed" : line),
                            status);
            }
            nlohmann::json base = nlohmann::json::parse(std::ifstream(tmp + "/b/result.json"));
            std::fputs(report::format_table({&base, &result}, true).c_str(), stdout);
            if (!out.empty())
                report::write_result(out + "/baseline", base);
        }
        std::fputs(report::format_profile(result).c_str(), stdout);
        if (!out.empty())
            report::write_result(out, result);
    } catch (const scenario::InputError& e) {
        return fail(e.what(), 2);
    } catch (const run::InternalError& e) {   // a bug in the model: exit 3, never a number
        return fail("swapsim run: " + path + ": internal error: " + e.what(), 3);
    } catch (const std::exception& e) {
        return fail("swapsim run: " + path + ": " + e.what(), 1);
    }
    reap();
    return 0;
}

}  // namespace swapsim::cli
