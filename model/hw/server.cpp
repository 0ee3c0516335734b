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
    busy_iv_.resize(size_t(servers));
}

void ServerPool::prune(double now)
{
    if (now <= pruned_)
        return;
    pruned_ = now;
    for (BusyTimeline& tl : busy_iv_)
        tl.drop_before(now);
}

Grant ServerPool::submit(double t, double service)
{
    Grant g;
    g.start = -1;
    for (size_t i = 0; i < busy_iv_.size(); i++) {
        double s = busy_iv_[i].earliest_gap(t, service);
        if (g.start < 0 || s < g.start) {
            g.start = s;
            g.server = int(i);
        }
        if (s <= t)   // idle now: no server can do better
            break;
    }
    g.end = g.start + service;
    busy_iv_[size_t(g.server)].book(g.start, g.end);
    busy_ += service;
    wait_ += g.start - t;
    jobs_++;
    hist_.add(g.start - t);
    return g;
}

double ServerPool::earliest_free() const
{
    double best = -1;
    for (const BusyTimeline& tl : busy_iv_) {
        double f = tl.empty() ? 0 : tl.last_end();
        if (best < 0 || f < best)
            best = f;
    }
    return best;
}

}  // namespace swapsim::hw
