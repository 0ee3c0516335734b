// swapsim validate: load scenarios (with --set/--params) without running them.
#include <cstdio>
#include <fstream>

#include "cli/commands.hpp"
#include "cli/options.hpp"

namespace swapsim::cli {
namespace {

const char* usage =
    "usage: swapsim validate SCENARIO.json... [--set key=value]... [--params FILE]...\n"
    "\n"
    "Checks each scenario as `swapsim run` would load it: JSON syntax, known keys, types, units,\n"
    "ranges, required keys and cross-key checks (memory.high above RAM, CPUs that do not exist, ...).\n"
    "Prints 'FILE: ok' for a valid file and one error line 'FILE: $.json.path: problem' on stderr\n"
    "for a bad one. Exit status: 0 all valid, 2 any invalid.\n"
    "\n"
    "  --set key=value   override one parameter after the scenario (value is JSON or a plain string)\n"
    "  --params FILE     apply a calibrated parameter file {\"values\": {...}} after the scenario\n";

// True if `text` is exactly the JSON Schema `swapsim schema` prints.
bool is_current_schema(const std::string& text)
{
    try {
        nlohmann::json j = nlohmann::json::parse(text);
        return j.is_object() && j.value("$schema", std::string()).find("json-schema.org") != std::string::npos &&
               j == scenario::json_schema();
    } catch (...) {
        return false;
    }
}

int validate(int argc, char** argv)
{
    Options o = parse_options(argc, argv, OptionSpec{true, false, false, false, {}, {}});
    if (o.help) {
        std::fputs(usage, stdout);
        return 0;
    }
    if (o.positional.empty())
        throw UsageError("no scenario given");
    // Bad --set or --params arguments are reported once, not once per scenario.
    scenario::load_defaults(o.load);
    int status = 0;
    for (const auto& path : o.positional) {
        try {
            std::string text = scenario::read_input_file(path);   // once: a FIFO reads only once
            if (is_current_schema(text)) {   // scenarios/swapsim.schema.json itself
                std::printf("%s: ok (the scenario schema, current)\n", path.c_str());
                continue;
            }
            scenario::load_scenario_text(text, path, o.load);
            std::printf("%s: ok\n", path.c_str());
        } catch (const scenario::InputError& e) {
            std::fflush(stdout);
            std::fprintf(stderr, "%s\n", e.what());
            status = 2;
        }
    }
    return status;
}

}  // namespace

int cmd_validate(int argc, char** argv) { return guarded("validate", validate, argc, argv); }

}  // namespace swapsim::cli
