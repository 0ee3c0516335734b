#include "hw/lock.hpp"

#include <algorithm>
#include <cmath>
#include <new>

namespace swapsim::hw {

namespace {
constexpr float kFull = float(Lock::kBin * (1 - 1e-6));
// The bin holding time x: floor(x / kBin), inline (std::floor is a libm call on baseline x86-64).
inline int64_t bin_of(double x)
{
    double q = x / Lock::kBin;
    auto i = int64_t(q);
    return i - int64_t(double(i) > q);
}
}  // namespace

namespace {
constexpr size_t kBlockAlign = 64;   // a block's bitmaps fill its first cache line
// Blocks are raw storage (a Block is trivially destructible): the list frees them at exit,
// so LeakSanitizer sees no leak.
struct FreeBlocks : std::vector<void*> {
    ~FreeBlocks()
    {
        for (void* p : *this)
            ::operator delete(p, std::align_val_t(kBlockAlign));
    }
};
std::vector<void*>& free_blocks()
{
    static FreeBlocks f;
    return f;
}
}  // namespace

Lock::Block* Lock::get_block()
{
    auto& f = free_blocks();
    Block* b;
    if (f.empty()) {
        static_assert(alignof(Block) == kBlockAlign, "");
        b = new (::operator new(sizeof(Block), std::align_val_t(kBlockAlign))) Block;
    } else {
        b = static_cast<Block*>(f.back());
        f.pop_back();
    }
    // Only the bitmaps are cleared: a bin's `used` is set when it is first booked.
    std::fill(std::begin(b->booked), std::end(b->booked), 0);
    std::fill(std::begin(b->full), std::end(b->full), 0);
    return b;
}

void Lock::put_block(Block* b)
{
    free_blocks().push_back(b);
}

void Lock::release_all()
{
    set_hot({});
    for (Slot& s : ring_)
        if (s.b) {
            put_block(s.b);
            s.b = nullptr;
        }
}

Lock::~Lock() { release_all(); }

Lock& Lock::operator=(const Lock& o)
{
    if (this != &o) {
        release_all();
        handoff_ = o.handoff_;
        st_ = o.st_;
        floor_ = INT64_MIN;
        iv_.clear();
        latest_ = 0;
        users_.clear();
        user_at_.clear();
        queued_at_ = -1;
    }
    return *this;
}

Lock::Lock(Lock&& o) noexcept
    : handoff_(o.handoff_), st_(o.st_), ring_(std::move(o.ring_)), hot_(o.hot_), hot_id_(o.hot_id_),
      floor_(o.floor_),
      iv_(std::move(o.iv_)), latest_(o.latest_), users_(std::move(o.users_)), user_at_(std::move(o.user_at_))
{
    o.ring_.clear();
    o.set_hot({});
    o.iv_.clear();
}

Lock& Lock::operator=(Lock&& o) noexcept
{
    if (this != &o) {
        release_all();
        handoff_ = o.handoff_;
        st_ = o.st_;
        ring_ = std::move(o.ring_);
        hot_ = o.hot_;
        hot_id_ = o.hot_id_;
        o.set_hot({});
        floor_ = o.floor_;
        iv_ = std::move(o.iv_);
        latest_ = o.latest_;
        users_ = std::move(o.users_);
        user_at_ = std::move(o.user_at_);
        queued_at_ = -1;
        o.ring_.clear();
        o.iv_.clear();
    }
    return *this;
}

size_t Lock::blocks() const
{
    size_t n = 0;
    for (const Slot& s : ring_)
        n += s.b != nullptr;
    return n;
}

Lock::Block* Lock::block_slow(int64_t id)
{
    if (ring_.empty())
        return nullptr;
    const Slot& s = ring_[size_t(id & (kRing - 1))];
    if (!s.b || s.id != id)
        return nullptr;
    set_hot(s);
    return s.b;
}

Lock::Block& Lock::block_at_slow(int64_t id)
{
    if (ring_.empty())
        ring_.assign(size_t(kRing), Slot{0, nullptr});
    Slot& slot = ring_[size_t(id & (kRing - 1))];
    if (!slot.b || slot.id != id) {
        // A new block replaces the one of its slot, which block() can no longer reach; other
        // stale blocks go back to the free list at the next prune().
        if (slot.b)
            put_block(slot.b);
        slot = {id, get_block()};
    }
    set_hot(slot);
    return *slot.b;
}

namespace {
inline bool test_bit(const uint64_t* m, int i) { return (m[i >> 6] >> (i & 63)) & 1; }
inline void set_bit(uint64_t* m, int i) { m[i >> 6] |= uint64_t(1) << (i & 63); }
}  // namespace

inline float Lock::used(int64_t b)
{
    Block* blk = block(b >> kBlockShift);
    int i = int(b & (kBlockBins - 1));
    return blk && test_bit(blk->booked, i) ? blk->used[i] : 0.0f;
}

inline void Lock::set_used(int64_t b, float u)
{
    Block& blk = block_at(b >> kBlockShift);
    int i = int(b & (kBlockBins - 1));
    blk.used[i] = u;
    set_bit(blk.booked, i);
    if (u >= kFull)
        set_bit(blk.full, i);
}

void Lock::prune(double now)
{
    // Intervals: drop those that ended. Bins: recycle blocks before the one holding `now`;
    // a lock left with no block goes back to the interval list.
    iv_.drop_before(now);
    if (idle())   // every hold has ended
        iv_.release();
    if (ring_.empty())
        return;
    int64_t id = bin_of(now) >> kBlockShift;
    floor_ = std::max(floor_, id << kBlockShift);
    bool any = false;
    for (Slot& s : ring_) {
        if (s.b && s.id < id) {
            if (hot_ == s.b)
                set_hot({});
            put_block(s.b);
            s.b = nullptr;
        }
        any = any || s.b;
    }
    if (!any) {
        ring_.clear();
        ring_.shrink_to_fit();
        floor_ = INT64_MIN;
    }
}

int64_t Lock::find_room(int64_t b, float* u)
{
    // The first bin that is not full, from the blocks' bitmaps; a block never booked is empty.
    for (int64_t cur = b;;) {
        Block* blk = block(cur >> kBlockShift);
        if (!blk) {
            *u = 0;
            return cur;
        }
        int i = int(cur & (kBlockBins - 1));
        int w = i >> 6;
        uint64_t room = ~blk->full[w] & (~uint64_t(0) << (i & 63));
        while (!room && ++w < kBlockBins / 64)
            room = ~blk->full[w];
        if (room) {
            int j = w * 64 + __builtin_ctzll(room);
            *u = test_bit(blk->booked, j) ? blk->used[j] : 0.0f;
            return (cur & ~int64_t(kBlockBins - 1)) + j;
        }
        cur = (cur | (kBlockBins - 1)) + 1;   // the next block
    }
}

namespace {
constexpr double kKeep = 4e-3;         // seconds of intervals a lock keeps behind its latest
constexpr size_t kMaxIntervals = 256;  // beyond this, the lock switches to bins
}  // namespace

// The hold starts at the first idle gap at or after t long enough for it (among the next 16
// busy intervals; past them, after the last one).
double Lock::acquire_interval(double t, double hold)
{
    latest_ = std::max(latest_, t);
    iv_.drop_before(latest_ - kKeep);
    double start = iv_.earliest_gap(t, hold);
    double h = hold;
    if (start > t + 1e-12) {
        h += handoff_;
        st_.contended++;
    }
    iv_.book(start, start + h);
    double spin = start - t;
    st_.acquisitions++;
    st_.hold_s += h;
    st_.spin_s += spin;
    if (iv_.size() > kMaxIntervals)
        to_bins();
    return spin + h;
}

// Switch to capacity bins: book the kept intervals into them.
void Lock::to_bins()
{
    ring_.assign(size_t(kRing), Slot{0, nullptr});
    for (const BusyInterval& x : iv_) {
        double a = x.first, z = x.second;
        int64_t first = bin_of(a), last = bin_of(z);
        for (int64_t b = first; b <= last; b++) {
            double bs = double(b) * kBin;
            double take = std::min(z, bs + kBin) - std::max(a, bs);
            if (take <= 0)
                continue;
            set_used(b, float(std::min(double(kBin), double(used(b)) + take)));
        }
    }
    iv_.clear();
}

double Lock::acquire_one(double t, double hold, double from)
{
    if (ring_.empty())
        return acquire_interval(t, hold);
    from = std::max(t, from);
    int64_t b = bin_of(from);
    if (b < floor_) {   // before what was pruned: it happens at the oldest kept time
        b = floor_;
        t = from = double(b) * kBin;
    }
    // Where would the hold begin? Contended acquisitions also pay the cache-line handoff.
    float u;
    int64_t r = b;
    if (Block* blk = block(b >> kBlockShift)) {   // most often the bin at `from` has room
        int i = int(b & (kBlockBins - 1));
        if (!test_bit(blk->full, i))
            u = test_bit(blk->booked, i) ? blk->used[i] : 0.0f;
        else
            r = find_room(b, &u);
    } else {
        u = 0;
    }
    double start = std::max(from, double(r) * kBin + double(u));
    double h = hold;
    if (start > t + 1e-12) {
        h += handoff_;
        st_.contended++;
    }
    // Book h as capacity: each bin takes at most kBin of hold time, in arrival order from its
    // start; the hold spills into the next bins with room.
    double left = h, pos = start;
    int64_t cur = r;
    bool known = true;   // u is what bin cur holds
    while (left > 0) {
        if (!known)
            u = used(cur);
        if (u >= kFull)
            cur = find_room(cur, &u);
        known = false;   // cur moves on below
        double bs = double(cur) * kBin;
        double from = std::max(pos, bs + double(u));
        double take = std::min({left, bs + kBin - from, kBin - double(u)});
        if (take <= 0) {
            set_used(cur, float(kBin));
            cur++;
            continue;
        }
        set_used(cur, float(double(u) + take));
        left -= take;
        pos = from + take;
        if (left > 0)
            cur++;
    }
    double spin = start - t;
    st_.acquisitions++;
    st_.hold_s += h;
    st_.spin_s += spin;
    return spin + h;
}

size_t Lock::user(int id)
{
    if (user_at_.empty()) {   // few users: a short list
        for (size_t i = 0; i < users_.size(); i++)
            if (users_[i].id == id)
                return i;
        users_.push_back({id});
        if (users_.size() > kFewUsers) {   // many: an index by task id
            for (size_t i = 0; i < users_.size(); i++) {
                size_t at = size_t(users_[i].id);
                if (at >= user_at_.size())
                    user_at_.resize(at + 1, -1);
                user_at_[at] = int32_t(i);
            }
        }
        return users_.size() - 1;
    }
    if (size_t(id) >= user_at_.size())
        user_at_.resize(size_t(id) + 1, -1);
    if (user_at_[size_t(id)] < 0) {
        user_at_[size_t(id)] = int32_t(users_.size());
        users_.push_back({id});
    }
    return size_t(user_at_[size_t(id)]);
}

double Lock::queue_turn(const Acquirer& who, const User& me, double t, double hold, double duty)
{
    double mine = me.last_end;
    if (ring_.empty() || mine < who.now - kQueueWindow)
        return t;   // lightly used, or this task is not queueing for it
    if (who.now != queued_at_ || who.id != queued_by_) {   // others book only in their own plans
        queued_at_ = who.now;
        queued_by_ = who.id;
        recent_ = 0;
        for (const User& u : users_)
            recent_ += u.last_end >= who.now - kQueueWindow;
    }
    // The others queue only if the lock is saturated: the tasks that held it lately, each
    // asking as often as this one, ask for more than one hold at a time. Below that, the bins
    // give each its wait.
    if (double(recent_) * duty < 1)
        return t;
    return std::max(t, mine + double(recent_ - 1) * (hold + handoff_));
}

double Lock::acquire(double t, double hold, unsigned n, double spacing, Acquirer who)
{
    const size_t me = who.id >= 0 ? user(who.id) : 0;
    double busy = 0;
    for (unsigned k = 0; k < n; k++) {
        double from = t;
        if (who.id >= 0) {
            // How often this task asks: within a batch, a hold per hold and spacing; else the
            // moving averages of its holds and of the time from one request to the next.
            User& u = users_[me];
            double iv = hold + std::max(0.0, t - u.last_end);
            if (u.interval == 0)   // the first interval (after its first hold) starts the averages
                u.hold = hold, u.interval = u.last_end < 0 ? 0 : iv;
            else
                u.hold += (hold - u.hold) / 8, u.interval += (iv - u.interval) / 8;
            double duty = k ? hold / (hold + spacing) : u.interval > 0 ? u.hold / u.interval : 0;
            from = queue_turn(who, u, t, hold, duty);
        }
        double d = acquire_one(t, hold, from);
        if (who.id >= 0)
            users_[me].last_end = t + d;
        busy += d;
        t += d + spacing;
    }
    return busy;
}

double Lock::load(double from, double to)
{
    int64_t a = int64_t(std::floor(from / kBin)), z = int64_t(std::ceil(to / kBin));
    double sum = 0;
    for (int64_t b = a; b < z; b++)
        sum += double(used(b));
    return sum / (to - from);
}

}  // namespace swapsim::hw
