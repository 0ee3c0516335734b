#include "hw/server.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace swapsim::hw {

void WaitHistogram::add(double wait_s)
{
    double ns = wait_s * 1e9;
    size_t k = 0;
    if (ns >= 1)
        k = std::min<size_t>(buckets.size() - 1, size_t(std::floor(std::log2(ns))) + 1);
    buckets[k]++;
}

ServerPool::ServerPool(int servers)
{
    if (servers < 1)
        throw std::invalid_argument("a server pool needs at least one server");
    free_.assign(size_t(servers), 0.0);
}

Grant ServerPool::submit(double t, double service)
{
    auto it = std::min_element(free_.begin(), free_.end());
    Grant g;
    g.server = int(it - free_.begin());
    g.start = std::max(t, *it);
    g.end = g.start + service;
    *it = g.end;
    busy_ += service;
    wait_ += g.start - t;
    jobs_++;
    hist_.add(g.start - t);
    return g;
}

double ServerPool::earliest_free() const
{
    return *std::min_element(free_.begin(), free_.end());
}

}  // namespace swapsim::hw
