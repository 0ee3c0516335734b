// A contended kernel spinlock (qspinlock) as a reservation timeline.
//
// Models: the lock is a single server. Time is cut into bins of `kBin`; each bin can hold at
// most kBin of hold time. An acquisition at time t takes its hold from the first bins at or
// after t that still have room (FIFO within a bin, in the order the acquisitions are made);
// its spin is the time from t until its hold begins. A saturated lock fills every bin, so the
// CPUs using it are held to one hold time per acquisition between them: throughput 1/hold,
// waits growing with the number of spinners. A contended acquisition also pays a cache-line
// handoff inside its hold. Spinning keeps the CPU busy (sys time).
// MCS queue order: qspinlock queues a CPU that asks again behind the CPUs already waiting.
// On a lock in bins, the users at the engine's clock `now` are the tasks whose last hold ends
// after now - kQueueWindow. They queue if they saturate it: each asking as often as the task
// asking now (its holds over the time between its requests, a moving average over ~8), together
// they ask for more than one hold at a time. A queued task's next hold then starts at least one
// hold (with its handoff) per other user after its last one ended; below saturation the bins
// alone give the waits. Without it, a task that
// plans a batch of acquisitions ahead of the engine's clock books them before the tasks it
// would have queued behind, and the one that plans first wins.
// Granularity: a lightly used lock keeps its busy intervals of the last 4 ms exactly (the
// hold starts at the first idle gap); once it holds more than 256 intervals it switches to
// bins of 0.25 us in blocks of 64 us, keeping 16 ms of blocks. A block's bitmaps of booked
// and full bins find the first bin with room without reading the bins passed over.
// Acquisitions a task plans ahead of the engine's clock (a reclaim pass) take their place in
// the future.
// Leaves out: NUMA-unfair handoff, the MCS queue's exact order within a bin, lock stealing
// by a CPU not yet queued.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hw/timeline.hpp"

namespace swapsim::hw {

struct LockStats {
    uint64_t acquisitions = 0;
    uint64_t contended = 0;
    double hold_s = 0;   // total hold time
    double spin_s = 0;   // total spin time
};

// Who asks for a lock: a task id (>= 0) and the engine's clock when its planned code started
// (t - now is how far ahead it plans). Anonymous acquisitions (id -1) skip the queue order.
struct Acquirer {
    int id = -1;
    double now = 0;
};

class Lock {
public:
    static constexpr double kBin = 0.25e-6;
    static constexpr double kQueueWindow = 4e-6;   // ~10 holds of a zsmalloc class lock

    explicit Lock(double handoff_s = 0) : handoff_(handoff_s) {}

    // `n` acquisitions, the first at t, each later one `spacing` after the previous hold
    // ended (the caller's work between them), each holding `hold`. Returns the time the
    // caller spends in them: spins plus holds (not the spacing).
    double acquire(double t, double hold, unsigned n = 1, double spacing = 0, Acquirer who = {});
    const LockStats& stats() const { return st_; }
    void set_handoff(double s) { handoff_ = s; }
    double load(double from, double to);   // fraction of [from, to) booked (tests)
    // Free the bins that end before `now` (no acquisition can come earlier any more); a lock left
    // idle gives back its buffers.
    void prune(double now);
    size_t blocks() const;
    bool idle() const { return iv_.empty() && ring_.empty(); }
    bool swept = false;   // on the owner's list of locks to prune

    ~Lock();
    Lock(const Lock& o) : handoff_(o.handoff_), st_(o.st_) {}   // copies the settings, not the bookings
    Lock& operator=(const Lock& o);
    Lock(Lock&& o) noexcept;
    Lock& operator=(Lock&& o) noexcept;

private:
    static constexpr int kBlockShift = 8;    // 256 bins (64 us) per block
    static constexpr int kBlockBins = 1 << kBlockShift;
    static constexpr int64_t kRing = 256;    // blocks kept per lock: 16 ms
    // A block's two bitmaps (one cache line) answer most lookups: a bin that was never booked
    // is empty (its `used` is not read), a full bin is passed over without reading it. A
    // lookup reads `used` only for a partly booked bin.
    struct alignas(64) Block {
        uint64_t booked[kBlockBins / 64];   // bin i has hold time: used[i] is set
        uint64_t full[kBlockBins / 64];     // used[i] >= kFull: no room left
        float used[kBlockBins];             // seconds booked in each bin
    };
    struct Slot {
        int64_t id;   // of the block, read with the pointer (no block header to load)
        Block* b;
    };
    static Block* get_block();                // from a process-wide free list
    static void put_block(Block* b);
    void release_all();
    double acquire_one(double t, double hold, double from);   // asked at t, starts at or after from
    // Earliest start in MCS order; `duty` is how much of the lock the caller asks for.
    struct User;
    double queue_turn(const Acquirer& who, const User& me, double t, double hold, double duty);
    double acquire_interval(double t, double hold);
    void to_bins();
    Block* block(int64_t id) { return id == hot_id_ ? hot_ : block_slow(id); }   // nullptr: never booked
    Block& block_at(int64_t id) { return id == hot_id_ ? *hot_ : block_at_slow(id); }   // materialise
    Block* block_slow(int64_t id);
    Block& block_at_slow(int64_t id);
    float used(int64_t b);           // booked in bin b (0 if never booked)
    void set_used(int64_t b, float u);
    // First bin >= b with room; *u is what it holds.
    int64_t find_room(int64_t b, float* u);

    double handoff_;
    LockStats st_;
    std::vector<Slot> ring_;          // bin mode: block id % kRing -> block
    // The block last found, in ring_ (most lookups hit it), with a copy of its id: a lookup
    // that hits it reads no block header.
    Block* hot_ = nullptr;
    int64_t hot_id_ = INT64_MIN;
    void set_hot(const Slot& s)
    {
        hot_ = s.b;
        hot_id_ = s.b ? s.id : INT64_MIN;
    }
    int64_t floor_ = INT64_MIN;       // bins before this were pruned
    BusyTimeline iv_;                 // interval mode
    double latest_ = 0;
    struct User {
        int id;                 // the acquirer
        double last_end = -1;   // end of its last hold
        double hold = 0;        // moving averages of its holds and of the time between its requests
        double interval = 0;
    };
    // The acquirers seen, in order of arrival; past kFewUsers, user_at_ indexes them by id (a
    // swap cluster's lock sees one or two tasks, a zsmalloc class lock all of them).
    static constexpr size_t kFewUsers = 8;
    std::vector<User> users_;
    std::vector<int32_t> user_at_;
    size_t user(int id);              // its index in users_, added if new
    double queued_at_ = -1;           // engine time and acquirer queued_ was counted for
    int queued_by_ = -1;
    unsigned recent_ = 0;             // acquirers that held it within kQueueWindow then
};

}  // namespace swapsim::hw
