#include "engine/membw.hpp"

#include <algorithm>
#include <cmath>

namespace swapsim::engine {

double MemBandwidth::transfer(double t, double bytes, double rate)
{
    if (!(bytes > 0))
        return t;
    rate = rate > 0 ? std::min(rate, bw_) : bw_;
    // Bins that end before t can take nothing more. A t within rounding of a bin's end (30e-6
    // / 10e-6 is 2.9999...) starts the next bin.
    int64_t k = int64_t(std::floor(t / kBin + 1e-9));
    if (k > base_) {
        int64_t drop = std::min<int64_t>(k - base_, int64_t(used_.size()));
        used_.erase(used_.begin(), used_.begin() + drop);
        base_ = k;
    } else if (k < base_) {   // earlier than a previous transfer: starts where the bins do
        k = base_;
        t = double(k) * kBin;
    }
    const double cap = bw_ * kBin;
    double left = bytes, pos = t;
    for (int64_t n = 0; n < kMaxBins; n++, k++) {
        size_t i = size_t(k - base_);
        if (i == used_.size())
            used_.push_back(0);
        double span = double(k + 1) * kBin - pos;   // this bin's time from pos
        double room = cap - used_[i];
        double take = std::min({left, rate * span, room});
        if (take > 0) {
            used_[i] += take;
            left -= take;
            if (left <= 1e-12 * bytes)   // ends in this bin (up to rounding), at the rate it had left
                return pos + take / std::min(rate, room / span);
        }
        pos = double(k + 1) * kBin;
    }
    return pos + left / rate;
}

}  // namespace swapsim::engine
