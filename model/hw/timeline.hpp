// The busy intervals of one server (a spinlock, a device engine): sorted, disjoint, the ended
// ones dropped lazily from the front.
// Models: a job arriving at t takes the first idle gap at or after t that is long enough,
// among the next 16 busy intervals; past them it queues behind the last one. Jobs booked in
// time order therefore queue FIFO (exact); a job planned earlier than bookings already made
// can use an earlier gap.
#pragma once

#include <cstddef>
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

private:
    std::vector<BusyInterval> iv_;
    size_t head_ = 0;   // iv_[0, head_) have ended
};

}  // namespace swapsim::hw
