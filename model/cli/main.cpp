// swapsim: a discrete-event performance model of the Linux anonymous-memory swap path.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <sys/prctl.h>
#include <unistd.h>

#include "cli/commands.hpp"
#include "scenario/registry.hpp"

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

// `swapsim help CMD` as this binary prints it.
std::string help_of(const char* cmd)
{
    std::string out;
    char self[4096] = {};
    if (::readlink("/proc/self/exe", self, sizeof self - 1) <= 0)   // popen's shell has its own
        return out;
    FILE* p = ::popen(("'" + std::string(self) + "' help " + cmd + " 2>/dev/null").c_str(), "r");
    if (!p)
        return out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;)
        out.append(buf, n);
    ::pclose(p);
    return out;
}

std::string roff(const std::string& text)
{
    std::string out;
    bool bol = true;
    for (char c : text) {
        if (bol && (c == '.' || c == '\''))
            out += "\\&";
        out += c == '\\' ? std::string("\\e") : std::string(1, c);
        bol = c == '\n';
    }
    return out;
}

// The man page and the bash completion, both from the commands' help (built with swapsim).
int generate_docs(const std::string& dir)
{
    std::ofstream man(dir + "/swapsim.1"), bash(dir + "/swapsim.bash");
    man << ".TH SWAPSIM 1 \"\" \"swapsim " << swapsim::version() << "\" \"User Commands\"\n"
        << ".SH NAME\nswapsim \\- a discrete-event performance model of the Linux swap path\n"
        << ".SH SYNOPSIS\n.B swapsim\n\\fICOMMAND\\fR [\\fIARGS\\fR]\n.SH COMMANDS\n";
    bash << "# bash completion for swapsim, generated from `swapsim help COMMAND`\n"
            "_swapsim() {\n  local cur=${COMP_WORDS[COMP_CWORD]} opts\n"
            "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W \"";
    for (const Command& c : commands)
        bash << c.name << " ";
    bash << "help\" -- \"$cur\")); return\n  fi\n  case ${COMP_WORDS[1]} in\n";
    static const std::regex opt("(^|[ \\[|])(--?[a-z][a-z-]*)");
    for (const Command& c : commands) {
        std::string h = help_of(c.name);
        man << ".SS " << c.name << "\n" << roff(c.synopsis) << "\n.PP\n.nf\n" << roff(h) << ".fi\n";
        std::set<std::string> opts;
        for (auto it = std::sregex_iterator(h.begin(), h.end(), opt); it != std::sregex_iterator(); ++it)
            opts.insert((*it)[2]);
        bash << "    " << c.name << ") opts=\"";
        for (const auto& o : opts)
            bash << o << " ";
        bash << "\";;\n";
    }
    bash << "    help) COMPREPLY=($(compgen -W \"";
    for (const Command& c : commands)
        bash << c.name << " ";
    bash << "\" -- \"$cur\")); return;;\n  esac\n"
            "  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n"
            "}\ncomplete -o filenames -F _swapsim swapsim\n";
    man << ".SH SEE ALSO\nREADME.md and docs/ in the swapsim sources.\n";
    return man && bash ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv)
{
    // A file size limit (ulimit -f) fails the write with EFBIG, which the writers handle
    // (temporary file removed), instead of killing the process with the file half written.
    std::signal(SIGXFSZ, SIG_IGN);
    // A simulation that compare, sweep or calibrate started (calibrate::spawn_run) ends with its
    // parent, so a parent killed by a timeout leaves no run behind.
    if (const char* parent = std::getenv("SWAPSIM_PARENT_PID")) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (std::to_string(::getppid()) != parent)
            return 1;   // the parent is gone already
        ::unsetenv("SWAPSIM_PARENT_PID");
    }
    if (argc < 2) {
        std::fprintf(stderr, "swapsim: a command is required (see swapsim --help)\n");
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
    if (cmd == "--generate-docs" && argc == 3)   // the build writes build/swapsim.1 and swapsim.bash
        return generate_docs(argv[2]);
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
        std::fprintf(stderr, "swapsim: unknown command '%s' (see swapsim --help)\n", swapsim::scenario::clip(cmd).c_str());
        return 2;
    }
    std::vector<char*> sub;
    for (auto& a : args)
        sub.push_back(a.data());
    sub.push_back(nullptr);
    return c->fn(int(args.size()), sub.data());
}
