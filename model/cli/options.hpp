// Command-line options shared by the subcommands: scenario paths, --set/--params, --out, -v,
// and SimGrid's own --cfg=/--log= arguments passed through untouched.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "scenario/registry.hpp"

namespace swapsim::cli {

// A bad command line: print "swapsim CMD: what()" and a usage hint, exit 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Which options a subcommand takes.
struct OptionSpec {
    bool load = false;      // --set key=value, --params FILE
    bool out = false;       // --out DIR
    bool verbose = false;   // -v, --verbose (repeatable)
    bool simgrid = false;   // --cfg=..., --log=... (kept for SimGrid)
    std::vector<std::string> flags;   // extra boolean options, e.g. "--json"
    std::vector<std::string> values;  // extra options taking a value, e.g. "--category"
};

struct Options {
    std::vector<std::string> positional;     // scenario paths
    scenario::LoadOptions load;
    std::string out_dir;
    int verbose = 0;
    bool help = false;
    std::vector<std::string> simgrid_args;   // "--cfg=network/model:CM02", "--log=root.thres:info"
    std::vector<std::string> flags;          // extra flags given
    std::vector<std::pair<std::string, std::string>> values;  // extra options given, in order

    bool has(const std::string& flag) const;
    const std::string* value(const std::string& name) const;  // last one given, or nullptr
};

// Parses argv[1..argc) ("--opt VALUE" and "--opt=VALUE" forms; "--" ends options).
// Throws UsageError on an unknown option or a missing value.
Options parse_options(int argc, char** argv, const OptionSpec& spec);

// Runs body; maps InputError to exit 2, UsageError to exit 2 with `usage_hint`, any other
// exception to "swapsim: internal error: ..." and exit 1.
int guarded(const char* cmd, int (*body)(int, char**), int argc, char** argv);

}  // namespace swapsim::cli
