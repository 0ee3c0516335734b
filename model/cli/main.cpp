// swapsim: a discrete-event performance model of the Linux anonymous-memory swap path.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace swapsim { const char* version(); const char* git_commit(); }

namespace {

using Cmd = int (*)(int, char**);
struct Command {
    const char* name;
    Cmd fn;
    const char* synopsis;
};
const Command commands[] = {
    {"run", swapsim::cli::cmd_run, "run one simulation (--baseline B.json: both columns and the change)"},
    {"validate", swapsim::cli::cmd_validate, "check scenarios without running them"},
    {"params", swapsim::cli::cmd_params, "list every parameter: unit, default, range, doc, source"},
    {"metrics", swapsim::cli::cmd_metrics, "list every result.json metric: unit, kernel counter and file, mechanism"},
    {"schema", swapsim::cli::cmd_schema, "print the JSON Schema of the scenario format"},
    {"compare", swapsim::cli::cmd_compare, "reproduce published tables: published / model / error"},
    {"calibrate", swapsim::cli::cmd_calibrate, "fit the model's costs to published or measured tables"},
    {"sweep", swapsim::cli::cmd_sweep, "run a grid of what-ifs and tabulate chosen metrics"},
    {"collect", swapsim::cli::cmd_collect, "tabulate the result.json files of a job list's runs"},
};

void usage(FILE* f)
{
    std::fprintf(f, "usage: swapsim COMMAND [ARGS]\n\ncommands:\n");
    for (const Command& c : commands)
        std::fprintf(f, "  %-10s %s\n", c.name, c.synopsis);
    std::fprintf(f, "\n`swapsim help COMMAND` or `swapsim COMMAND --help` describes each command.\n");
}

const Command* find(const std::string& name)
{
    for (const Command& c : commands)
        if (name == c.name)
            return &c;
    return nullptr;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    std::string cmd = argv[1];
    if (cmd == "-h" || cmd == "--help" || (cmd == "help" && argc == 2)) {
        usage(stdout);
        return 0;
    }
    if (cmd == "--version") {
        std::printf("swapsim %s (%s)\n", swapsim::version(), swapsim::git_commit());
        return 0;
    }
    if (cmd == "--commands") {   // for shell completion
        for (const Command& c : commands)
            std::printf("%s\n", c.name);
        return 0;
    }
    // Subcommands see argv[0] = "swapsim COMMAND". `-jN` is `-j N` for every command.
    std::vector<std::string> args;
    if (cmd == "help") {   // swapsim help COMMAND = swapsim COMMAND --help
        cmd = argv[2];
        args = {cmd, "--help"};
    } else {
        for (int i = 1; i < argc; i++) {
            std::string a = argv[i];
            if (a.size() > 2 && a.rfind("-j", 0) == 0 && a.find_first_not_of("0123456789", 2) == std::string::npos) {
                args.push_back("-j");
                args.push_back(a.substr(2));
            } else {
                args.push_back(a);
            }
        }
    }
    const Command* c = find(cmd);
    if (!c) {
        std::fprintf(stderr, "swapsim: unknown command '%s'\n", cmd.c_str());
        usage(stderr);
        return 2;
    }
    std::vector<char*> sub;
    for (auto& a : args)
        sub.push_back(a.data());
    sub.push_back(nullptr);
    return c->fn(int(args.size()), sub.data());
}
