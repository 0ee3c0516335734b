// swapsim collect DIR: the table of a sweep or compare whose simulations ran from a job list.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/jobs.hpp"
#include "cli/options.hpp"

namespace swapsim::cli {
namespace {

const char* usage =
    "usage: swapsim collect DIR [--csv | --json] [--no-write]\n"
    "\n"
    "Reads DIR/index.json, written by `swapsim sweep ... --out DIR` or by `sweep`/`compare` with\n"
    "--out DIR --job-list FILE, and the result.json of every simulation it lists, and prints the\n"
    "table the command prints when it runs the simulations itself (the mean of the seeds with\n"
    "--runs N). A missing result names its file, exit status 2.\n"
    "  --csv, --json   a sweep's table as CSV or JSON\n"
    "  --no-write      a compare's tables are printed, not written to results/\n";

int collect(int argc, char** argv)
{
    Options o = parse_options(argc, argv, OptionSpec{false, false, false, false, {"--csv", "--json", "--no-write"}, {}});
    if (o.help) {
        std::fputs(usage, stdout);
        return 0;
    }
    if (o.positional.size() != 1)
        throw UsageError("expected one folder");
    const std::string& dir = o.positional[0];
    nlohmann::json index = read_index(dir);
    auto results = collect_results(dir, index);
    if (index["swapsim"] == "sweep") {
        TableFormat f = o.has("--json") ? TableFormat::Json : o.has("--csv") ? TableFormat::Csv : TableFormat::Markdown;
        std::fputs(sweep_table(index, results, f).c_str(), stdout);
        return 0;
    }
    if (o.has("--no-write"))
        index["compare"]["write"] = false;
    return compare_report(index, results);
}

}  // namespace

int cmd_collect(int argc, char** argv) { return guarded("collect", collect, argc, argv); }

}  // namespace swapsim::cli
