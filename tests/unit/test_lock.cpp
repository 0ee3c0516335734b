// hw::Lock, the spinlock timeline, and hw::BusyTimeline under it: exact spins and holds on
// hand-computed cases, in both lock modes (busy intervals while lightly used, capacity bins
// once it holds many), and pruning. engine::MemBandwidth, a socket's DRAM bandwidth booked in bins.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "hw/lock.hpp"
#include "engine/membw.hpp"
#include "hw/timeline.hpp"

using namespace swapsim;
using Catch::Matchers::WithinAbs;

namespace {
constexpr double us = 1e-6;
constexpr double eps = 1e-15;
}  // namespace

TEST_CASE("lock: an idle lock costs the hold, an overlapping acquisition spins to its end and pays the handoff", "[lock][timed]")
{
    hw::Lock l(0.1 * us);
    CHECK_THAT(l.acquire(0, 1 * us), WithinAbs(1 * us, eps));
    // Arrives at 0.5 us while the first holds until 1 us: spins 0.5 us, then holds 1 us plus
    // the 0.1 us cache-line handoff.
    CHECK_THAT(l.acquire(0.5 * us, 1 * us), WithinAbs(0.5 * us + 1.1 * us, eps));
    // After both (the second ended at 2.1 us): free again.
    CHECK_THAT(l.acquire(3 * us, 1 * us), WithinAbs(1 * us, eps));
    const hw::LockStats& s = l.stats();
    CHECK(s.acquisitions == 3);
    CHECK(s.contended == 1);
    CHECK_THAT(s.spin_s, WithinAbs(0.5 * us, eps));
    CHECK_THAT(s.hold_s, WithinAbs(3.1 * us, eps));
}

TEST_CASE("lock: an acquisition planned earlier than bookings already made takes an idle gap that fits", "[lock][timed]")
{
    hw::Lock l(0.1 * us);
    l.acquire(10 * us, 1 * us);                                       // [10, 11)
    CHECK_THAT(l.acquire(0, 1 * us), WithinAbs(1 * us, eps));          // [0, 1): fits before it
    // At 9.5 us a 1 us hold does not fit in [9.5, 10): it starts at 11 us.
    CHECK_THAT(l.acquire(9.5 * us, 1 * us), WithinAbs(1.5 * us + 1.1 * us, eps));
    // At 2 us a 1 us hold fits in the gap [1, 10).
    CHECK_THAT(l.acquire(2 * us, 1 * us), WithinAbs(1 * us, eps));
    CHECK(l.stats().contended == 1);
}

TEST_CASE("lock: n acquisitions with spacing on a free lock cost n holds, on a busy one each waits its turn", "[lock][timed]")
{
    hw::Lock free_lock(0.1 * us);
    CHECK_THAT(free_lock.acquire(0, 1 * us, 3, 2 * us), WithinAbs(3 * us, eps));

    hw::Lock busy(0.1 * us);
    busy.acquire(0, 5 * us);   // held over [0, 5)
    // The first of two waits until 5 us (spin 4 us, hold 1.1 us); 1 us after it ends, at
    // 7.1 us, the second finds the lock free.
    CHECK_THAT(busy.acquire(1 * us, 1 * us, 2, 1 * us), WithinAbs(4 * us + 1.1 * us + 1 * us, eps));
}

TEST_CASE("lock: a lock with many bookings switches to bins and keeps the same timeline", "[lock][timed]")
{
    hw::Lock l(0);
    // 300 holds of 1 us, one every 2 us: each finds the lock free. Past 256 separate
    // intervals the lock books into 0.25 us bins.
    for (int k = 0; k < 300; k++)
        CHECK_THAT(l.acquire(k * 2 * us, 1 * us), WithinAbs(1 * us, 1e-12));
    CHECK(l.blocks() > 0);
    CHECK(l.stats().contended == 0);
    CHECK_THAT(l.load(0, 600 * us), WithinAbs(0.5, 1e-6));
    // Planned back at 0, a 1 us hold takes the first gap, [1, 2) us: spins 1 us.
    CHECK_THAT(l.acquire(0, 1 * us), WithinAbs(2 * us, 1e-12));
    // The next one finds [1, 2) taken too and waits for [3, 4).
    CHECK_THAT(l.acquire(0, 1 * us), WithinAbs(4 * us, 1e-12));
    CHECK(l.stats().contended == 2);
    CHECK_THAT(l.load(0, 600 * us), WithinAbs(302.0 / 600, 1e-6));
}

namespace {
// A lock switched to bins by 300 holds of 1 us every 2 us, booked up to 599 us.
hw::Lock busy_lock(double handoff)
{
    hw::Lock l(handoff);
    for (int k = 0; k < 300; k++)
        l.acquire(k * 2 * us, 1 * us);
    REQUIRE(l.blocks() > 0);
    return l;
}
}  // namespace

TEST_CASE("lock: on a saturated lock a task asking again queues behind the others queued (MCS order)", "[lock][timed]")
{
    const double T = 600 * us;   // the engine's clock
    hw::Lock l = busy_lock(0.1 * us);
    // Tasks 1 and 2 ask at T: [600, 601), then spin 1 us for [601, 602.1) with the handoff.
    CHECK_THAT(l.acquire(T, 1 * us, 1, 0, {1, T}), WithinAbs(1 * us, 1e-12));
    CHECK_THAT(l.acquire(T, 1 * us, 1, 0, {2, T}), WithinAbs(2.1 * us, 1e-12));
    // Task 0 asks twice. Its first hold is [602.1, 603.2); asking again at 603.2 it queues
    // behind tasks 1 and 2 (both held the lock after T - kQueueWindow): it starts at
    // 603.2 + 2 x 1.1 = 605.4 us, a contended hold of 1.1 us.
    CHECK_THAT(l.acquire(T, 1 * us, 2, 0, {0, T}), WithinAbs((2.1 + 1.1) * us + (2.2 + 1.1) * us, 1e-12));
    // Anonymous, the second hold takes the free bins at once: 603.2 to 604.2 us.
    hw::Lock a = busy_lock(0.1 * us);
    a.acquire(T, 1 * us, 1, 0, {1, T});
    a.acquire(T, 1 * us, 1, 0, {2, T});
    CHECK_THAT(a.acquire(T, 1 * us), WithinAbs(3.2 * us, 1e-12));
    CHECK_THAT(a.acquire(604.2 * us, 1 * us), WithinAbs(1 * us, 1e-12));
    // A lightly used lock (intervals) keeps its booking order.
    hw::Lock light(0.1 * us);
    light.acquire(0, 1 * us, 1, 0, {1, 0});
    CHECK_THAT(light.acquire(1 * us, 1 * us, 1, 0, {1, 0}), WithinAbs(1 * us, 1e-12));
}

TEST_CASE("lock: tasks that each plan a batch on a saturated lock finish together, whoever plans first", "[lock][timed]")
{
    // Three tasks each hold the lock once at T, then plan 20 holds of 1 us (1 us of work
    // between them) at the next engine instant, one task after the other.
    auto last_ends = [](bool queued) {
        const double T = 600 * us, T2 = 604 * us;
        hw::Lock l = busy_lock(0.1 * us);
        std::vector<double> end(3);
        for (int id = 0; id < 3; id++)
            end[size_t(id)] = T + l.acquire(T, 1 * us, 1, 0, {queued ? id : -1, T});
        for (int id = 0; id < 3; id++) {
            double t = std::max(T2, end[size_t(id)]);
            end[size_t(id)] = t + l.acquire(t, 1 * us, 20, 1 * us, {queued ? id : -1, T2}) + 19 * us;
        }
        return end;
    };
    std::vector<double> q = last_ends(true), f = last_ends(false);
    double q_spread = *std::max_element(q.begin(), q.end()) - *std::min_element(q.begin(), q.end());
    double f_spread = *std::max_element(f.begin(), f.end()) - *std::min_element(f.begin(), f.end());
    INFO("queued: " << q[0] / us << " " << q[1] / us << " " << q[2] / us << " us; in booking order: "
                    << f[0] / us << " " << f[1] / us << " " << f[2] / us << " us");
    // Queued, they take turns: one round (3 holds) apart at most. In booking order the first
    // two fill each other's gaps and the third waits for both (40 us later here).
    CHECK(q_spread <= 3 * 1.1 * us + 1e-12);
    CHECK(f_spread >= 15 * us);
}

TEST_CASE("lock: prune forgets what ended, a lock used far apart stays in interval mode", "[lock]")
{
    hw::Lock l(0.1 * us);
    // One acquisition every 20 us for 20 ms: at most 200 intervals within the 4 ms a lock
    // keeps, so it never needs bins, and none of them is contended.
    for (int k = 0; k < 1000; k++)
        CHECK_THAT(l.acquire(k * 20 * us, 1 * us), WithinAbs(1 * us, eps));
    CHECK(l.blocks() == 0);
    CHECK(l.stats().contended == 0);
    CHECK_FALSE(l.idle());
    l.prune(1.0);   // everything ended before 1 s
    CHECK(l.idle());
    // Bins are recycled by prune too.
    hw::Lock b(0);
    for (int k = 0; k < 300; k++)
        b.acquire(k * 2 * us, 1 * us);
    REQUIRE(b.blocks() > 0);
    CHECK_FALSE(b.idle());
    b.prune(1.0);
    CHECK(b.blocks() == 0);
    CHECK(b.idle());
}

TEST_CASE("timeline: gaps, merging, the 16-interval search limit and dropping", "[lock][timed]")
{
    hw::BusyTimeline tl;
    CHECK(tl.earliest_gap(5, 1) == 5);   // empty: free at once
    tl.book(0, 1);
    tl.book(2, 3);
    CHECK(tl.earliest_gap(0.5, 1) == 1);     // [1, 2) fits exactly
    CHECK(tl.earliest_gap(0.5, 1.5) == 3);   // it does not fit: after [2, 3)
    tl.book(1, 2);                           // touches both: one interval [0, 3)
    CHECK(tl.size() == 1);
    CHECK(tl.last_end() == 3);

    // 17 intervals [2k, 2k+1) and one at [100, 101): a 1.5 gap exists at 33, but the search
    // gives up after 16 intervals and queues behind the last one.
    hw::BusyTimeline far;
    for (int k = 0; k <= 16; k++)
        far.book(2 * k, 2 * k + 1);
    far.book(100, 101);
    CHECK(far.earliest_gap(0, 1.5) == 101);
    CHECK(far.earliest_gap(31.5, 1.5) == 33);   // from nearer, the gap is found
    far.drop_before(50);
    CHECK(far.size() == 1);
    far.drop_before(200);
    CHECK(far.empty());
}

TEST_CASE("membw: a transfer on a socket with room takes bytes / rate, saturated bins are shared in booking order", "[lock][timed]")
{
    // 1 GB/s: 10,000 bytes per 10 us bin.
    engine::MemBandwidth m(1e9);
    CHECK_THAT(m.transfer(0, 5000, 1e9), WithinAbs(5 * us, eps));   // half of bin 0
    // Same start: bin 0's other 5,000 bytes, then 5,000 in bin 1 at the full rate.
    CHECK_THAT(m.transfer(0, 10000, 1e9), WithinAbs(15 * us, eps));
    // A slower core from mid-bin 1, which has 5,000 bytes left: 0.25 GB/s for 5 us is 1,250
    // bytes, then 2,500 per bin: 1,250 + 2,500 + 1,250 = 5,000 bytes by 25 us.
    CHECK_THAT(m.transfer(15 * us, 5000, 0.25e9), WithinAbs(35 * us, 1e-12));
    // Later bins are empty: bytes / rate, however many bins it spans.
    CHECK_THAT(m.transfer(1e-3, 1e6, 0.5e9), WithinAbs(1e-3 + 2e-3, 1e-12));
    // Bins before the latest start are dropped: what is kept starts at 1 ms.
    CHECK(m.bins() == 200);
}

TEST_CASE("membw: a rate above the socket's is capped at the socket's, a full bin moves the rest on", "[lock][timed]")
{
    engine::MemBandwidth m(1e9);
    CHECK_THAT(m.transfer(0, 20000, 5e9), WithinAbs(20 * us, eps));   // capped at 1 GB/s
    // Bins 0 and 1 are full: it starts at 20 us.
    CHECK_THAT(m.transfer(0, 5000, 1e9), WithinAbs(25 * us, eps));
    CHECK(m.transfer(30 * us, 0, 1e9) == 30 * us);   // nothing to move
    CHECK_THAT(m.transfer(30 * us, 1000, 1e9), WithinAbs(31 * us, eps));
    // Bins before 30 us are gone: a transfer asked for earlier starts at 30 us and takes the
    // 9,000 bytes bin 3 has left over its 10 us.
    CHECK_THAT(m.transfer(5 * us, 9000, 1e9), WithinAbs(40 * us, 1e-12));
}

TEST_CASE("lock: recycled bin blocks start empty, and a lock never reads a block it gave back", "[lock]")
{
    // Lock a fills 90% of [0, 600) us, then gives its blocks back to the shared free list.
    hw::Lock a(0);
    for (int k = 0; k < 600; k++)
        a.acquire(k * us, 0.9 * us);
    REQUIRE(a.blocks() > 0);
    CHECK_THAT(a.load(0, 600 * us), WithinAbs(0.9, 1e-6));
    a.prune(1.0);
    REQUIRE(a.blocks() == 0);
    // Lock b reuses that memory for the same times: it sees only its own holds.
    hw::Lock b = busy_lock(0);
    CHECK_THAT(b.load(0, 600 * us), WithinAbs(0.5, 1e-6));
    CHECK_THAT(b.acquire(1 * us, 1 * us), WithinAbs(1 * us, 1e-12));
    // b last looked at its first block, then prunes it; lock c takes that block for the same
    // times. b must not see c's holds there.
    CHECK(b.load(0, 10 * us) > 0);
    b.prune(70 * us);   // frees the block of [0, 64) us only
    hw::Lock c = busy_lock(0);
    CHECK(c.load(0, 10 * us) > 0);
    CHECK(b.load(0, 10 * us) == 0);
}

TEST_CASE("lock: tasks that take a lock twice in quick succession, then work long, queue only where they collide", "[lock][timed]")
{
    // workingset_update_node's pattern on the shadow-node list: 30 tasks each take the lock
    // twice 1 us apart, then work 50 us (a page's swap-out), starting spread over the 51 us.
    // Together they ask for ~30% of it: below saturation nobody waits for the others' turns,
    // only where two holds collide in time (the bins). Counting every recent holder as queued
    // made each second hold wait ~29 holds (~8 us).
    hw::Lock l = busy_lock(0.05 * us);
    const double T = 600 * us, hold = 0.25 * us, round = 51.5 * us;
    const int tasks = 30, rounds = 40;
    std::vector<double> next(tasks);
    for (int j = 0; j < tasks; j++)
        next[size_t(j)] = T + j * round / tasks;
    double spin0 = l.stats().spin_s;
    uint64_t n0 = l.stats().acquisitions;
    for (int r = 0; r < rounds; r++) {
        const double now = T + r * round;   // the engine's clock: each task plans one round
        for (int j = 0; j < tasks; j++) {
            double t = next[size_t(j)];
            t += l.acquire(t, hold, 1, 0, {j, now}) + 1 * us;
            t += l.acquire(t, hold, 1, 0, {j, now}) + 50 * us;
            next[size_t(j)] = t;
        }
    }
    double per = (l.stats().spin_s - spin0) / double(l.stats().acquisitions - n0);
    INFO("spin per acquisition " << per / us << " us");
    CHECK(per < 0.1 * us);
    // The same tasks without the 50 us of work saturate it and take turns: ~29 holds each.
    hw::Lock s = busy_lock(0.05 * us);
    for (int j = 0; j < tasks; j++)
        next[size_t(j)] = T;
    spin0 = s.stats().spin_s;
    n0 = s.stats().acquisitions;
    for (int r = 0; r < 10; r++)
        for (int j = 0; j < tasks; j++) {
            double t = next[size_t(j)];
            t += s.acquire(t, hold, 1, 0, {j, T + r * 1 * us}) + 0.1 * us;
            next[size_t(j)] = t;
        }
    double sat = (s.stats().spin_s - spin0) / double(s.stats().acquisitions - n0);
    INFO("saturated: spin per acquisition " << sat / us << " us");
    CHECK(sat > 10 * (hold + 0.05 * us));
}
