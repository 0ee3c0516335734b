// Argument helpers shared by the subcommands that run child processes (compare, calibrate,
// sweep). They throw std::invalid_argument with a message naming the option.
#pragma once

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

}  // namespace swapsim::cli
