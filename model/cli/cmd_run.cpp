// swapsim run SCENARIO.json [--out DIR] [--set key=value ...] [--params FILE ...] [-v]
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "cli/commands.hpp"
#include "report/result.hpp"
#include "run/run.hpp"
#include "scenario/registry.hpp"

namespace swapsim::cli {

namespace {

void usage(FILE* f)
{
    std::fprintf(f,
        "usage: swapsim run SCENARIO.json [--out DIR] [--set key=value ...] [--params FILE ...]\n"
        "                  [--no-builtin-params] [--profile] [-v] [--cfg=SIMGRID_OPT ...] [--log=SIMGRID_LOG ...]\n"
        "\n"
        "Runs one simulation and prints its result table (rows: metrics; column: this scenario).\n"
        "  --out DIR             also write DIR/result.json (written to a temporary file, then renamed)\n"
        "  --set key=value       override one parameter (see `swapsim params`), e.g. --set kernel.memcg.high=30G\n"
        "  --params FILE         apply a parameter file {\"values\": {...}} (model costs only)\n"
        "  --no-builtin-params   use the registry's documented defaults, not the calibrated set\n"
        "  --profile             also print sys time by model function (kernel names), spin apart, like\n"
        "                        perf report; result.json gets sys_profile. The run is slower\n"
        "  -v                    verbose SimGrid logging\n");
}

// The output folder must be writable before a long run starts.
std::string check_out_dir(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        return dir + ": cannot create output directory: " + ec.message();
    std::string probe = (fs::path(dir) / (".swapsim-probe." + std::to_string(getpid()))).string();
    std::ofstream f(probe);
    if (!f)
        return dir + ": output directory is not writable: " + std::strerror(errno);
    f.close();
    std::remove(probe.c_str());
    return "";
}

}  // namespace

int cmd_run(int argc, char** argv)
{
    std::string path, out;
    scenario::LoadOptions lo;
    run::RunOptions ro;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto need = [&](const char* opt) -> std::string {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "swapsim run: %s needs a value\n", opt);
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "-h" || a == "--help") {
            usage(stdout);
            return 0;
        } else if (a == "--out") {
            out = need("--out");
        } else if (a == "--set") {
            lo.sets.push_back(need("--set"));
        } else if (a == "--params") {
            lo.param_files.push_back(need("--params"));
        } else if (a == "--no-builtin-params") {
            lo.builtin_params = false;
        } else if (a == "--profile") {
            ro.profile = true;
        } else if (a == "-v" || a == "--verbose") {
            ro.verbose = true;
        } else if (a.rfind("--cfg=", 0) == 0 || a.rfind("--log=", 0) == 0) {
            ro.simgrid_args.push_back(a);
        } else if (!a.empty() && a[0] == '-') {
            std::fprintf(stderr, "swapsim run: unknown option '%s' (see swapsim run --help)\n", a.c_str());
            return 2;
        } else if (path.empty()) {
            path = a;
        } else {
            std::fprintf(stderr, "swapsim run: one scenario per run (got '%s' and '%s')\n", path.c_str(), a.c_str());
            return 2;
        }
    }
    if (path.empty()) {
        usage(stderr);
        return 2;
    }
    try {
        scenario::Config cfg = scenario::load_scenario(path, lo);
        if (!out.empty()) {
            std::string bad = check_out_dir(out);
            if (!bad.empty()) {
                std::fprintf(stderr, "%s\n", bad.c_str());
                return 2;
            }
        }
        std::ifstream f(path);
        std::stringstream text;
        text << f.rdbuf();
        nlohmann::json result = run::run_scenario(cfg, text.str(), ro);
        std::fputs(report::format_table(result).c_str(), stdout);
        std::fputs(report::format_profile(result).c_str(), stdout);
        if (!out.empty())
            report::write_result(out, result);
    } catch (const scenario::InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim run: %s: %s\n", path.c_str(), e.what());
        return 1;
    }
    return 0;
}

}  // namespace swapsim::cli
