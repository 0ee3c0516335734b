// Argument helpers shared by the subcommands that run child processes (compare, calibrate,
// sweep). They throw std::invalid_argument with a message naming the option.
#pragma once

#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <vector>

namespace swapsim::cli {

// "a,b,,c" -> {"a", "b", "c"}
std::vector<std::string> split(const std::string& s, char sep);

// Child processes run at once by default: one per online CPU.
int default_jobs();

// The value after option argv[i] (advancing i), or std::invalid_argument "OPT needs a value".
std::string option_value(int argc, char** argv, int& i);

// Integer value of `opt` within [lo, hi], e.g. int_arg("-j", "4", 1, 256).
int int_arg(const std::string& opt, const std::string& v, int lo, int hi);

// calibrate's --weights "metric=w,...": metrics of `swapsim metrics`, each weight finite and >= 0.
std::map<std::string, double> parse_weights(const std::string& arg);

// Walks the arguments argv[1..): on(arg, need) for each, where need() takes the option's value
// (advancing past it). Returns true at -h/--help, which ends the walk.
template <class On>
bool each_arg(int argc, char** argv, On on)
{
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "-h" || a == "--help")
            return true;
        on(a, [&] { return option_value(argc, argv, i); });
    }
    return false;
}

// A command's arguments: `a = parse(argc, argv)`, which throws on a bad command line and sets
// a.help for -h/--help. Returns 2 after printing "swapsim CMD: what()", 0 after printing the
// usage, or -1 when the command goes on.
template <class Args, class Parse>
int parse_command(const char* cmd, int argc, char** argv, Args& a, Parse parse, void (*usage)(FILE*))
{
    try {
        a = parse(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swapsim %s: %s\n", cmd, e.what());
        return 2;
    }
    if (a.help) {
        usage(stdout);
        return 0;
    }
    return -1;
}

}  // namespace swapsim::cli
