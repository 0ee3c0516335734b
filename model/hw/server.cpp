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

double ServerPool::earliest_gap(size_t i, double t, double service) const
{
    const Timeline& tl = busy_iv_[i];
    auto first = tl.iv.begin() + long(tl.head), last = tl.iv.end();
    double start = t;
    // First interval starting after t; the one before it may still cover t.
    auto it = std::upper_bound(first, last, start, [](double v, const BusyInterval& p) { return v < p.first; });
    if (it != first && std::prev(it)->second > start)
        start = std::prev(it)->second;
    // Look for a gap among the next few intervals; past them, queue behind the last one.
    int steps = 0;
    for (; it != last; ++it) {
        if (it->first >= start + service)
            return start;
        start = std::max(start, it->second);
        if (++steps == 16)
            return std::max(start, std::prev(last)->second);
    }
    return start;
}

void ServerPool::prune(double now)
{
    if (now <= pruned_)
        return;
    pruned_ = now;
    for (Timeline& tl : busy_iv_) {
        while (tl.head < tl.iv.size() && tl.iv[tl.head].second < now)
            tl.head++;
        if (tl.head > 1024 && tl.head * 2 > tl.iv.size()) {
            tl.iv.erase(tl.iv.begin(), tl.iv.begin() + long(tl.head));
            tl.head = 0;
        }
    }
}

Grant ServerPool::submit(double t, double service)
{
    Grant g;
    g.start = -1;
    for (size_t i = 0; i < busy_iv_.size(); i++) {
        double s = earliest_gap(i, t, service);
        if (g.start < 0 || s < g.start) {
            g.start = s;
            g.server = int(i);
        }
        if (s <= t)   // idle now: no server can do better
            break;
    }
    g.end = g.start + service;
    // Record the interval, merged with touching neighbours.
    Timeline& tl = busy_iv_[size_t(g.server)];
    auto first = tl.iv.begin() + long(tl.head);
    auto it = std::lower_bound(first, tl.iv.end(), g.start,
                               [](const BusyInterval& p, double v) { return p.first < v; });
    double a = g.start, b = g.end;
    if (it != first && std::prev(it)->second >= a) {
        --it;
        a = it->first;
    }
    auto stop = it;
    while (stop != tl.iv.end() && stop->first <= b) {
        b = std::max(b, stop->second);
        ++stop;
    }
    if (stop == it) {
        tl.iv.insert(it, {a, b});
    } else {
        *it = {a, b};
        tl.iv.erase(it + 1, stop);
    }
    busy_ += service;
    wait_ += g.start - t;
    jobs_++;
    hist_.add(g.start - t);
    return g;
}

double ServerPool::earliest_free() const
{
    double best = -1;
    for (const Timeline& tl : busy_iv_) {
        double f = tl.iv.size() > tl.head ? tl.iv.back().second : 0;
        if (best < 0 || f < best)
            best = f;
    }
    return best;
}

}  // namespace swapsim::hw
