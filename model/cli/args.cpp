#include "cli/args.hpp"
#include "report/metrics.hpp"
#include "scenario/registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
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
                                    std::to_string(hi) + ", got '" + scenario::clip(v, 100) + "'");
    return int(n);
}

std::map<std::string, double> parse_weights(const std::string& arg)
{
    std::map<std::string, double> weights;
    for (const auto& kv : split(arg, ',')) {
        auto eq = kv.find('=');
        if (eq == std::string::npos)
            throw std::invalid_argument("--weights: expected metric=weight, got '" + scenario::clip(kv, 100) + "'");
        std::string w = kv.substr(eq + 1);
        char* end = nullptr;
        double x = std::strtod(w.c_str(), &end);
        if (w.empty() || *end || !(x >= 0) || !std::isfinite(x))
            throw std::invalid_argument("--weights: expected a weight >= 0 for " + scenario::clip(kv.substr(0, eq), 100) + ", got '" + scenario::clip(w, 100) + "'");
        std::string metric = kv.substr(0, eq);
        if (!report::find_metric(metric))
            throw std::invalid_argument("--weights: unknown metric '" + scenario::clip(metric, 100) + "' (see `swapsim metrics`)");
        weights[metric] = x;
    }
    return weights;
}

}  // namespace swapsim::cli
