#include "cli/options.hpp"

#include <algorithm>
#include <cstdio>

namespace swapsim::cli {

bool Options::has(const std::string& flag) const
{
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

const std::string* Options::value(const std::string& name) const
{
    for (auto it = values.rbegin(); it != values.rend(); ++it)
        if (it->first == name)
            return &it->second;
    return nullptr;
}

Options parse_options(int argc, char** argv, const OptionSpec& spec)
{
    Options o;
    auto listed = [](const std::vector<std::string>& v, const std::string& s) {
        return std::find(v.begin(), v.end(), s) != v.end();
    };
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (options_done || a.size() < 2 || a[0] != '-') {
            o.positional.push_back(a);
            continue;
        }
        if (a == "--") {
            options_done = true;
            continue;
        }
        if (a == "-h" || a == "--help") {
            o.help = true;
            continue;
        }
        if (spec.verbose && (a == "--verbose" || a.find_first_not_of('v', 1) == std::string::npos)) {
            o.verbose += a == "--verbose" ? 1 : int(a.size() - 1);
            continue;
        }
        if (spec.simgrid && (a.rfind("--cfg=", 0) == 0 || a.rfind("--log=", 0) == 0)) {
            o.simgrid_args.push_back(a);
            continue;
        }
        // Options with a value: "--name VALUE" or "--name=VALUE".
        std::string name = a, val;
        size_t eq = a.find('=');
        bool inline_val = a.rfind("--", 0) == 0 && eq != std::string::npos;
        if (inline_val) {
            name = a.substr(0, eq);
            val = a.substr(eq + 1);
        }
        bool takes_value = (spec.load && (name == "--set" || name == "--params")) || (spec.out && name == "--out") ||
                           listed(spec.values, name);
        if (!takes_value) {
            if (!inline_val && listed(spec.flags, a)) {
                o.flags.push_back(a);
                continue;
            }
            throw UsageError("unknown option '" + a + "'");
        }
        if (!inline_val) {
            if (i + 1 >= argc)
                throw UsageError("option '" + name + "' needs a value");
            val = argv[++i];
        }
        if (name == "--set")
            o.load.sets.push_back(val);
        else if (name == "--params")
            o.load.param_files.push_back(val);
        else if (name == "--out")
            o.out_dir = val;
        else
            o.values.emplace_back(name, val);
    }
    return o;
}

int guarded(const char* cmd, int (*body)(int, char**), int argc, char** argv)
{
    try {
        return body(argc, argv);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "swapsim %s: %s; see 'swapsim %s --help'\n", cmd, e.what(), cmd);
        return 2;
    } catch (const scenario::InputError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim: internal error: %s\n", e.what());
        return 1;
    }
}

}  // namespace swapsim::cli
