#include "hw/lock.hpp"

#include <algorithm>
#include <cmath>

namespace swapsim::hw {

Lock::Bin& Lock::bin(int64_t idx)
{
    Bin& b = bins_[size_t(idx % kBins)];
    if (b.idx != idx) {
        // A slot is reused only for a newer bin; a much older time falls into the current slot.
        if (b.idx > idx)
            return b;
        if (b.idx > win_last_ - int64_t(kWindowBins) && b.idx <= win_last_) {
            win_hold_ -= b.hold;   // the slot being recycled leaves the cached window
            win_hold2_ -= b.hold2;
        }
        b = Bin{idx, 0, 0};
    }
    return b;
}

void Lock::window(double t, double* hold, double* hold2)
{
    int64_t last = int64_t(std::floor(t / kBin));
    auto add_bin = [&](int64_t i, double sign) {
        const Bin& b = bins_[size_t(((i % kBins) + kBins) % kBins)];
        if (b.idx == i) {
            win_hold_ += sign * b.hold;
            win_hold2_ += sign * b.hold2;
        }
    };
    if (last != win_last_) {
        if (win_last_ != INT64_MIN && last > win_last_ && last - win_last_ < int64_t(kWindowBins)) {
            // Slide the cached window forward.
            for (int64_t i = win_last_ + 1; i <= last; i++) {
                add_bin(i, 1);
                add_bin(i - int64_t(kWindowBins), -1);
            }
        } else {
            win_hold_ = win_hold2_ = 0;
            for (int64_t i = last - int64_t(kWindowBins) + 1; i <= last; i++)
                add_bin(i, 1);
        }
        win_last_ = last;
    }
    *hold = std::max(0.0, win_hold_);
    *hold2 = std::max(0.0, win_hold2_);
}

double Lock::rho(double t) const
{
    Lock copy = *this;
    double h, h2;
    copy.window(t, &h, &h2);
    return std::min(kMaxRho, h / (kWindowBins * kBin));
}

unsigned Lock::users(double t, int cpu)
{
    int64_t period = int64_t(std::floor(t / (kWindowBins * kBin)));
    if (period > period_) {
        seen_prev_ = period == period_ + 1 ? seen_cur_ : std::bitset<kMaxCpus>();
        seen_cur_.reset();
        period_ = period;
        nusers_ = unsigned(seen_prev_.count());
    }
    size_t bit = size_t(cpu % kMaxCpus);
    if (!seen_cur_.test(bit)) {
        seen_cur_.set(bit);
        if (!seen_prev_.test(bit))
            nusers_++;
    }
    return nusers_;
}

double Lock::acquire(double t, int cpu, double hold, unsigned n)
{
    if (n == 0)
        return 0;
    double h, h2;
    window(t, &h, &h2);
    double span = kWindowBins * kBin;
    double r = std::min(kMaxRho, h / span);
    unsigned nu = users(t, cpu);
    double others = nu > 1 ? double(nu - 1) / nu : 0.0;
    double wait = others * ((h2 / span) / (2 * (1 - r)) + r * handoff_);
    int64_t bi = int64_t(std::floor(t / kBin));
    Bin& b = bin(bi);
    if (b.idx == bi) {
        b.hold += hold * n;
        b.hold2 += hold * hold * n;
        if (bi > win_last_ - int64_t(kWindowBins) && bi <= win_last_) {
            win_hold_ += hold * n;
            win_hold2_ += hold * hold * n;
        }
    }
    st_.acquisitions += n;
    st_.hold_s += hold * n;
    st_.spin_s += wait * n;
    return wait * n;
}

}  // namespace swapsim::hw
