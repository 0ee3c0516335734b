// swapsim: a discrete-event performance model of the Linux anonymous-memory swap path.
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/commands.hpp"

namespace swapsim { const char* version(); const char* git_commit(); }

namespace {

void usage(FILE* f)
{
    std::fprintf(f,
        "usage: swapsim COMMAND [ARGS]\n"
        "\n"
        "commands:\n"
        "  run SCENARIO.json [--out DIR] [--set key=value ...] [--params FILE]   run one simulation\n"
        "  validate SCENARIO.json...                check scenarios without running them\n"
        "  params [--json] [--category NAME]       list every parameter: unit, default, range, doc, source\n"
        "  schema                                   print the JSON Schema of the scenario format\n"
        "  compare [TABLE_ID ...|--all] [-j N]      reproduce published tables: published / model / error\n"
        "  calibrate --train T... --validate T...   fit the model's costs to published or measured tables\n"
        "  sweep SCENARIO.json --vary key=v1,v2...  run a grid of what-ifs and tabulate chosen metrics\n"
        "\n"
        "`swapsim COMMAND --help` describes each command.\n");
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    std::string cmd = argv[1];
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
        usage(stdout);
        return 0;
    }
    if (cmd == "--version") {
        std::printf("swapsim %s (%s)\n", swapsim::version(), swapsim::git_commit());
        return 0;
    }
    // Subcommands see argv[0] = "swapsim COMMAND".
    int sub_argc = argc - 1;
    char** sub_argv = argv + 1;
    if (cmd == "run") return swapsim::cli::cmd_run(sub_argc, sub_argv);
    if (cmd == "validate") return swapsim::cli::cmd_validate(sub_argc, sub_argv);
    if (cmd == "params") return swapsim::cli::cmd_params(sub_argc, sub_argv);
    if (cmd == "schema") return swapsim::cli::cmd_schema(sub_argc, sub_argv);
    if (cmd == "compare") return swapsim::cli::cmd_compare(sub_argc, sub_argv);
    if (cmd == "calibrate") return swapsim::cli::cmd_calibrate(sub_argc, sub_argv);
    if (cmd == "sweep") return swapsim::cli::cmd_sweep(sub_argc, sub_argv);
    std::fprintf(stderr, "swapsim: unknown command '%s'\n", cmd.c_str());
    usage(stderr);
    return 2;
}
