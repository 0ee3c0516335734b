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

#include "calibrate/pool.hpp"
#include "cli/args.hpp"
#include "cli/commands.hpp"
#include "report/result.hpp"
#include "run/run.hpp"
#include "scenario/registry.hpp"

namespace swapsim::cli {

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

struct RunArgs {
    std::string path, out, baseline;
    bool out_given = false, trace_given = false, step_given = false, help = false;
    scenario::LoadOptions lo, base_lo;
    run::RunOptions ro;
    std::vector<std::string> base_args;   // the baseline's: --params, --no-builtin-params
};

// Throws std::invalid_argument on a bad command line.
RunArgs parse_args(int argc, char** argv)
{
    RunArgs r;
    r.help = each_arg(argc, argv, [&](const std::string& a, auto need) {
        if (a == "--out") {
            r.out = need();
            r.out_given = true;
        } else if (a == "--baseline") {
            r.baseline = need();
        } else if (a == "--set") {
            r.lo.sets.push_back(need());
        } else if (a == "--params") {
            r.lo.param_files.push_back(need());
            r.base_lo.param_files.push_back(r.lo.param_files.back());
            r.base_args.insert(r.base_args.end(), {"--params", r.lo.param_files.back()});
        } else if (a == "--no-builtin-params") {
            r.lo.builtin_params = r.base_lo.builtin_params = false;
            r.base_args.push_back(a);
        } else if (a == "--trace") {
            r.ro.trace = need();
            r.trace_given = true;
        } else if (a == "--trace-step") {
            std::string v = need();
            r.step_given = true;
            char* end = nullptr;
            r.ro.trace_step = std::strtod(v.c_str(), &end);
            if (end == v.c_str() || *end || !(r.ro.trace_step >= 1e-4 && r.ro.trace_step <= 1e4))
                throw std::invalid_argument("--trace-step: expected simulated seconds from 0.0001 to 10000, got '" + v + "'");
        } else if (a == "--profile") {
            r.ro.profile = true;
        } else if (a == "-v" || a == "--verbose") {
            r.ro.verbose = true;
        } else if (a.rfind("--cfg=", 0) == 0 || a.rfind("--log=", 0) == 0) {
            r.ro.simgrid_args.push_back(a);
        } else if (!a.empty() && a[0] == '-') {
            throw std::invalid_argument("unknown option '" + a + "' (see swapsim run --help)");
        } else if (r.path.empty()) {
            r.path = a;
        } else {
            throw std::invalid_argument("one scenario per run (got '" + r.path + "' and '" + a + "')");
        }
    });
    return r;
}

// The baseline, run in a second process into a temporary folder; the process is stopped and
// the folder removed when this goes out of scope.
struct BaselineRun {
    std::string tmp;
    pid_t child = -1;

    ~BaselineRun() { stop(); }
    void stop()
    {
        if (child > 0) {
            ::kill(child, SIGTERM);
            ::waitpid(child, nullptr, 0);
            child = -1;
        }
        if (!tmp.empty())
            fs::remove_all(tmp);
        tmp.clear();
    }
    void start(const std::string& scenario, const std::vector<std::string>& base_args)
    {
        std::string tmpl = (fs::temp_directory_path() / "swapsim_baseline.XXXXXX").string();
        if (!::mkdtemp(tmpl.data()))
            throw std::runtime_error("cannot create a temporary directory");
        tmp = tmpl;
        child = calibrate::spawn_run(calibrate::run_command(scenario, tmp + "/b", base_args, 1, 0), tmp + "/b.err");
    }
    // Its result; on failure prints why and returns the exit status (0: `out` holds the result).
    int wait(const std::string& scenario, nlohmann::json& out)
    {
        int st = 0;
        ::waitpid(child, &st, 0);
        child = -1;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            std::ifstream e(tmp + "/b.err");
            std::string line;
            std::getline(e, line);
            std::fprintf(stderr, "swapsim run: baseline %s: %s\n", scenario.c_str(),
                         line.empty() ? "simulation failed" : line.c_str());
            return WIFEXITED(st) && (WEXITSTATUS(st) == 2 || WEXITSTATUS(st) == 3) ? WEXITSTATUS(st) : 1;
        }
        out = nlohmann::json::parse(std::ifstream(tmp + "/b/result.json"));
        return 0;
    }
};

// The --trace file of a run that fails is removed (a regular file only: never a device such
// as /dev/full, or a FIFO), so no partial trace is left behind.
struct TraceFile {
    std::string path;
    bool keep = false;
    ~TraceFile() { remove(); }
    void remove()
    {
        struct stat st {};
        if (!keep && !path.empty() && ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
            ::unlink(path.c_str());
    }
};

// Bad output paths before anything runs: the message, or "".
std::string check_outputs(const RunArgs& a)
{
    if (a.out_given)
        if (std::string bad = check_out_dir(a.out); !bad.empty())
            return bad;
    if (a.step_given && !a.trace_given)
        return "swapsim run: --trace-step: needs --trace FILE";
    if (!a.trace_given)
        return "";
    if (a.ro.trace.empty())
        return "swapsim run: --trace: empty file name";
    // Never the run's own input: the trace would overwrite it (and a failed run remove it).
    std::vector<std::string> inputs = {a.path, a.baseline};
    inputs.insert(inputs.end(), a.lo.param_files.begin(), a.lo.param_files.end());
    for (const auto& in : inputs) {
        std::error_code ec;
        if (!in.empty() && fs::equivalent(in, a.ro.trace, ec))
            return a.ro.trace + ": cannot write the trace: it is the input " + in + "; name another file";
    }
    if (!std::ofstream(a.ro.trace, std::ios::app))
        return a.ro.trace + ": cannot write the trace: " + std::strerror(errno);
    return "";
}

}  // namespace

int cmd_run(int argc, char** argv)
{
    RunArgs a;
    if (int st = parse_command("run", argc, argv, a, parse_args, usage); st >= 0)
        return st;
    if (a.path.empty()) {
        std::fprintf(stderr, "swapsim run: a scenario file is required (see swapsim run --help)\n");
        return 2;
    }
    a.ro.progress = ::isatty(2) && !a.ro.verbose;
    a.ro.source = a.path;
    BaselineRun b;
    TraceFile trace;
    a.ro.on_budget = [&] {   // past sim.wall_limit or sim.rss_limit: the run exits from its watcher
        b.stop();
        trace.remove();
    };
    try {
        std::string text = scenario::read_input_file(a.path);   // read once: a FIFO reads only once
        scenario::Config cfg = scenario::load_scenario_text(text, a.path, a.lo);
        if (!a.baseline.empty())
            scenario::load_scenario(a.baseline, a.base_lo);   // bad input before anything runs
        if (std::string bad = check_outputs(a); !bad.empty()) {
            std::fprintf(stderr, "%s\n", bad.c_str());
            return 2;
        }
        trace.path = a.ro.trace;
        if (!a.baseline.empty())
            b.start(a.baseline, a.base_args);
        nlohmann::json result = run::run_scenario(cfg, text, a.ro);
        if (a.baseline.empty()) {
            std::fputs(report::format_table(result).c_str(), stdout);
        } else {
            nlohmann::json base;
            if (int st = b.wait(a.baseline, base))
                return st;
            std::fputs(report::format_table({&base, &result}, true).c_str(), stdout);
            if (!a.out.empty())
                report::write_result(a.out + "/baseline", base);
        }
        std::fputs(report::format_profile(result).c_str(), stdout);
        if (!a.out.empty())
            report::write_result(a.out, result);
        trace.keep = true;
    } catch (const scenario::InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    } catch (const run::InternalError& e) {   // a bug in the model: exit 3, never a number
        std::fprintf(stderr, "swapsim run: %s: internal error: %s\n", a.path.c_str(), e.what());
        return 3;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim run: %s: %s\n", a.path.c_str(), e.what());
        return 1;
    }
    return 0;
}

}  // namespace swapsim::cli
