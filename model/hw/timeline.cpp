#include "hw/timeline.hpp"

#include <algorithm>
#include <iterator>

namespace swapsim::hw {

double BusyTimeline::earliest_gap(double t, double len) const
{
    if (empty() || t > last_end())   // after every booked interval: free
        return t;
    auto first = iv_.begin() + long(head_), last = iv_.end();
    double start = t;
    // First interval starting after t; the one before it may still cover t.
    auto it = std::upper_bound(first, last, t, [](double v, const BusyInterval& p) { return v < p.first; });
    if (it != first && std::prev(it)->second > start)
        start = std::prev(it)->second;
    int steps = 0;
    for (; it != last; ++it) {
        if (it->first >= start + len)
            return start;
        start = std::max(start, it->second);
        if (++steps == 16)
            return std::max(start, last_end());
    }
    return start;
}

void BusyTimeline::book(double a, double b)
{
    if (empty() || a > last_end()) {
        iv_.push_back({a, b});
        return;
    }
    auto first = iv_.begin() + long(head_);
    auto pos = std::lower_bound(first, iv_.end(), a, [](const BusyInterval& p, double v) { return p.first < v; });
    if (pos != first && std::prev(pos)->second >= a) {
        --pos;
        a = pos->first;
    }
    auto stop = pos;
    while (stop != iv_.end() && stop->first <= b) {
        b = std::max(b, stop->second);
        ++stop;
    }
    if (stop == pos) {
        iv_.insert(pos, {a, b});
    } else {
        *pos = {a, b};
        iv_.erase(pos + 1, stop);
    }
}

void BusyTimeline::drop_before(double t)
{
    while (head_ < iv_.size() && iv_[head_].second < t)
        head_++;
    if (head_ == iv_.size()) {
        clear();
    } else if (head_ > 64 && 2 * head_ > iv_.size()) {   // compact once half is dead
        iv_.erase(iv_.begin(), iv_.begin() + long(head_));
        head_ = 0;
    }
}

void BusyTimeline::clear()
{
    iv_.clear();
    head_ = 0;
}

}  // namespace swapsim::hw
