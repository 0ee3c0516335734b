#include "cli/args.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace swapsim::cli {

std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string x;
    while (std::getline(ss, x, sep))
        if (!x.empty())
            out.push_back(x);
    return out;
}

int default_jobs()
{
    return int(std::max(1u, std::thread::hardware_concurrency()));
}

std::string option_value(int argc, char** argv, int& i)
{
    if (i + 1 >= argc)
        throw std::invalid_argument(std::string(argv[i]) + " needs a value");
    return argv[++i];
}

int int_arg(const std::string& opt, const std::string& v, int lo, int hi)
{
    size_t pos = 0;
    long n = 0;
    try {
        n = std::stol(v, &pos);
    } catch (const std::exception&) {
        pos = 0;
    }
    if (pos == 0 || pos != v.size() || n < lo || n > hi)
        throw std::invalid_argument(opt + ": expected an integer from " + std::to_string(lo) + " to " +
                                    std::to_string(hi) + ", got '" + v + "'");
    return int(n);
}

}  // namespace swapsim::cli
