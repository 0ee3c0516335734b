// The busy intervals of one server (a spinlock, a device engine): sorted, disjoint, the ended
// ones dropped lazily from the front.
// Models: a job arriving at t takes the first idle gap at or after t that is long enough,
// among the next 16 busy intervals; past them it queues behind the last one. Jobs booked in
// time order therefore queue FIFO (exact); a job planned earlier than bookings already made
// can use an earlier gap.
// Granularity: exact intervals. Leaves out: gaps behind the 16 intervals searched.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <vector>

namespace swapsim::hw {

// [first, second). Trivially copyable, so inserting into the sorted vector is one memmove
// (std::pair's assignment is not trivial).
struct BusyInterval {
    double first, second;
};

class BusyTimeline {
public:
    bool empty() const { return head_ == iv_.size(); }
    size_t size() const { return iv_.size() - head_; }
    double last_end() const { return iv_.back().second; }   // not empty()
    const BusyInterval* begin() const { return iv_.data() + head_; }
    const BusyInterval* end() const { return iv_.data() + iv_.size(); }
    // Earliest start >= t of an idle gap of length `len`.
    double earliest_gap(double t, double len) const;
    // Book [a, b), merged with the intervals it touches.
    void book(double a, double b);
    // Forget the intervals that ended before t (no job can arrive earlier any more).
    void drop_before(double t);
    void clear();
    void release();   // clear() and give back the buffer

private:
    static constexpr size_t kKeepCapacity = 256;   // intervals (4 KiB) an empty timeline keeps
    std::vector<BusyInterval> iv_;
    size_t head_ = 0;   // iv_[0, head_) have ended
};

// Hot on every lock acquisition and device job: defined here so callers inline them.
inline double BusyTimeline::earliest_gap(double t, double len) const
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

inline void BusyTimeline::book(double a, double b)
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

inline void BusyTimeline::drop_before(double t)
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

// A timeline left empty gives back a large buffer: a swap cluster's lock, say, is busy in one
// burst (its slots freed at exit) and then idle for good, and thousands of them would keep
// their peak capacity to the end of the run.
inline void BusyTimeline::clear()
{
    if (iv_.capacity() > kKeepCapacity)
        std::vector<BusyInterval>().swap(iv_);
    else
        iv_.clear();
    head_ = 0;
}

inline void BusyTimeline::release()
{
    std::vector<BusyInterval>().swap(iv_);
    head_ = 0;
}

}  // namespace swapsim::hw
