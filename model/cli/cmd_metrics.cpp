// swapsim metrics: every result.json metric with unit, kernel counter and file, and mechanism.
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "report/metrics.hpp"

namespace swapsim::cli {
namespace {

const char* usage =
    "usage: swapsim metrics [--json]\n"
    "\n"
    "Lists every metric of result.json (\"metrics\") and of the table `swapsim run` prints, under the\n"
    "same names: its unit, the kernel counter it corresponds to and the file a user reads it from\n"
    "(/proc/vmstat, memory.events, memory.stat, the mTHP sysfs stats, usemem or perf stat output),\n"
    "and the mechanism of the model that produces it. <size> stands for each enabled mTHP size\n"
    "(64kB, 2048kB, ...).\n"
    "\n"
    "  --json   one JSON array of {name, unit, kernel, mechanism}\n";

int metrics(int argc, char** argv)
{
    Options o = parse_options(argc, argv, OptionSpec{false, false, false, false, {"--json"}, {}});
    if (o.help) {
        std::fputs(usage, stdout);
        return 0;
    }
    if (!o.positional.empty())
        throw UsageError("unexpected argument '" + o.positional[0] + "'");
    if (o.has("--json")) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& d : report::metric_docs())
            a.push_back({{"name", d.name}, {"unit", d.unit}, {"kernel", d.kernel}, {"mechanism", d.mechanism}});
        std::printf("%s\n", a.dump(2).c_str());
        return 0;
    }
    for (const auto& d : report::metric_docs())
        std::printf("%s [%s]\n    kernel:    %s\n    mechanism: %s\n", d.name.c_str(), d.unit.c_str(),
                    d.kernel.c_str(), d.mechanism.c_str());
    return 0;
}

}  // namespace

int cmd_metrics(int argc, char** argv) { return guarded("metrics", metrics, argc, argv); }

}  // namespace swapsim::cli
