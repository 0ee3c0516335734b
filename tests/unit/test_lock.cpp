// hw::Lock, the spinlock timeline, and hw::BusyTimeline under it: exact spins and holds on
// hand-computed cases, in both lock modes (busy intervals while lightly used, capacity bins
// once it holds many), and pruning. engine::MemBandwidth, a socket's DRAM bandwidth booked in bins.
#include <catch2/catch.hpp>

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
