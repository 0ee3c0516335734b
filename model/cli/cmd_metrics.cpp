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
    "(64kB, 2048kB, ...). \"seeds:\" gives the row labels the published tables print it under.\n"
    "\n"
    "  --json   one JSON array of {name, unit, source, kernel, mechanism, workloads, run_table,\n"
    "           seed_labels}\n";

int metrics(int argc, char** argv)
{
    Options o = parse_options(argc, argv, OptionSpec{false, false, false, false, {"--json"}, {}});
    if (o.help) {
        std::fputs(usage, stdout);
        return 0;
    }
    if (!o.positional.empty())
        throw UsageError("unexpected argument '" + o.positional[0] + "'");
    auto show = [](unsigned w) {
        std::string s = w & report::USEMEM ? "usemem" : "";
        if (w & report::SWAPINOUT)
            s += std::string(s.empty() ? "" : ", ") + "swapinout";
        return s;
    };
    if (o.has("--json")) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& d : report::metrics())
            a.push_back({{"name", d.name}, {"unit", d.unit}, {"source", report::source_name(d.source)}, {"kernel", d.kernel},
                         {"mechanism", d.mechanism}, {"workloads", show(d.workloads)}, {"run_table", show(d.shown)},
                         {"seed_labels", d.labels}});
        std::printf("%s\n", a.dump(2).c_str());
        return 0;
    }
    for (const auto& d : report::metrics()) {
        std::printf("%s [%s]\n    kernel:    %s\n    mechanism: %s\n", d.name.c_str(), d.unit.c_str(), d.kernel.c_str(),
                    d.mechanism.c_str());
        if (!d.labels.empty()) {
            std::string l;
            for (const auto& x : d.labels)
                l += (l.empty() ? "" : ", ") + x;
            std::printf("    seeds:     %s\n", l.c_str());
        }
    }
    return 0;
}

}  // namespace

int cmd_metrics(int argc, char** argv) { return guarded("metrics", metrics, argc, argv); }

}  // namespace swapsim::cli
