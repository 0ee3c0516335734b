// Timed kernel paths on a plain test clock (no SimGrid): exact simulated times for
// hand-computable cases, counters the mechanisms decide, and the end-of-test invariants.
#include <catch2/catch.hpp>

#include "kconfig_fixture.hpp"

#include <random>
#include <tuple>

#include "kernel/kernel.hpp"
#include "test_clock.hpp"

using namespace swapsim;
using namespace swapsim::kernel;
using mm::PAGE_SIZE;

namespace {

using swapsim_test::small_config;

struct World {
    explicit World(const KConfig& c, uint64_t pages) : k(c)
    {
        mm = k.mm_create(0, 0);
        pid = k.task_create(0, mm);
        vma = k.vma_create(mm, pages);
    }
    Task& task() { return k.task(pid); }
    // Write pages [0, n) in order, paying memory.high debt on return to user mode.
    void write(Ctx& c, uint32_t n)
    {
        for (uint32_t p = 0; p < n;) {
            pte_t pte = k.mms[mm].vmas[vma].pte[p];
            unsigned covered = pte_present(pte) ? k.touch_present(mm, vma, p)
                                                : k.handle_mm_fault(c, mm, vma, p, true);
            if (task().memcg_nr_pages_over_high) {
                c.flush();
                k.resume_user_mode(c);
            }
            p += covered;
        }
        c.flush();
    }
    Kernel k;
    uint32_t mm = 0, vma = 0;
    int pid = 0;
    TestClock clk;
};

// small_config() with neither a swap device nor zswap: anonymous memory cannot leave RAM.
KConfig no_swap_config()
{
    KConfig cfg = small_config();
    cfg.dev = SwapDev::None;
    cfg.zswap = false;
    return cfg;
}

}  // namespace

TEST_CASE("fault path: a 64K mTHP fault costs fault + alloc + clear + PTEs + charge, exactly", "[kernel][timed]")
{
    KConfig cfg = small_config();
    cfg.mthp_orders = {4};
    cfg.c.fault = 1e-6;
    cfg.c.alloc_folio = 0.5e-6;
    cfg.c.alloc_per_page = 0.01e-6;
    cfg.c.zero_bw = 16e9;
    cfg.c.fault_per_pte = 0.02e-6;
    cfg.c.charge = 0.3e-6;
    World w(cfg, 1024);
    {
        Ctx c(w.k, w.task(), w.clk);
        unsigned covered = w.k.handle_mm_fault(c, w.mm, w.vma, 0, true);
        CHECK(covered == 16);
        c.flush();
    }
    // The first fault in the 2 MiB range also allocates its page table: one more page
    // allocation (0.5 us) and 4096 B cleared.
    // 1 + 0.5 + 0.5 + 16*0.01 + 16*0.02 + 0.3 us of CPU, then 65536 + 4096 B at 16 GB/s.
    double cpu = (1.0 + 0.5 + 0.5 + 0.16 + 0.32 + 0.3) * 1e-6;
    double mem = (65536 + 4096) / 16e9;
    CHECK(w.clk.t == Approx(cpu + mem).epsilon(1e-12));
    CHECK(w.task().stime == Approx(cpu + mem).epsilon(1e-12));
    CHECK(w.k.memcg.memory.usage == 64);          // one charge batch: table + folio from it
    CHECK(w.k.memcg.pagetable_pages == 1);
    CHECK(w.k.vm[mm::PGFAULT] == 1);
    {
        // The next fault in the range finds the table; the first in the next range does not.
        Ctx c(w.k, w.task(), w.clk);
        w.k.handle_mm_fault(c, w.mm, w.vma, 16, true);
        CHECK(w.k.memcg.pagetable_pages == 1);
        w.k.handle_mm_fault(c, w.mm, w.vma, 512, true);
        CHECK(w.k.memcg.pagetable_pages == 2);
        c.flush();
    }
    CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_ANON_FAULT_ALLOC] == 3);
    CHECK(w.k.check_invariants() == "");
}

// 64K folios into a 1 MiB memory.high cgroup, zswap storing 1 KiB per page in 2 us.
static KConfig zswap_high_config()
{
    KConfig cfg = small_config();
    cfg.mthp_orders = {4};
    cfg.memcg_high = 256;
    cfg.comp = {"test", 1024, 2e-6, 1e-6};
    return cfg;
}

TEST_CASE("memory.high reclaim: zswap stores the oldest folios, its charge adds reclaim", "[kernel][timed]")
{
    World w(zswap_high_config(), 1024);          // 4 MiB: 3 MiB over high
    {
        Ctx c(w.k, w.task(), w.clk);
        w.write(c, 1024);
    }
    uint64_t zswpout = w.k.vm[mm::ZSWPOUT];
    CHECK(w.k.vm[mm::ZSWPIN] == 0);
    // Everything above high leaves, and each page stored keeps 1/4 page charged:
    // evicted * (1 - 1/4) = written + page tables - final usage, usage ending within a charge
    // batch of high. 4 MiB needs two page tables.
    CHECK(zswpout % 16 == 0);
    int64_t usage = w.k.memcg.memory.usage;
    CHECK(usage >= 256 - 64);
    CHECK(usage <= 256 + 64);
    CHECK(w.k.memcg.pagetable_pages == 2);
    CHECK(double(zswpout) * 0.75 == Approx(double(1024 + 2 - usage)).margin(16));
    CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_ZSWPOUT] == zswpout / 16);
    CHECK(w.k.memcg.events.high > 0);
    CHECK(w.k.memcg.zswap_bytes == w.k.zswap.stored_pages * 1024);
    // The only CPU costs are compression (2 us) and copying 1 KiB into zsmalloc at 10 GB/s.
    CHECK(w.clk.cpu_s == Approx((2e-6 + 1024 / 1e10) * double(zswpout)).epsilon(1e-9));
    CHECK(w.k.check_invariants() == "");
}

TEST_CASE("memory.high reclaim: each reclaim_high call pays cost.reclaim.entry once", "[kernel][timed]")
{
    // Same run twice, once with a per-call cost: the CPU time differs by exactly that cost
    // times memory.events high (one try_to_free_mem_cgroup_pages per event), not per
    // SWAP_CLUSTER_MAX round, per priority or per node.
    auto run = [](double entry) {
        KConfig cfg = zswap_high_config();
        cfg.topo = {2, 2, 1};                        // two nodes: one call walks both
        cfg.c.reclaim_entry = entry;
        World w(cfg, 1024);
        Ctx c(w.k, w.task(), w.clk);
        w.write(c, 1024);
        return std::make_pair(w.clk.cpu_s, w.k.memcg.events.high);
    };
    auto [cpu0, events0] = run(0);
    auto [cpu1, events1] = run(50e-6);
    REQUIRE(events0 > 2);
    CHECK(events1 == events0);
    CHECK(cpu1 - cpu0 == Approx(50e-6 * double(events0)).epsilon(1e-9));
}

TEST_CASE("memory.high without swap: the task sleeps the kernel's penalty, capped at 2 s", "[kernel][timed]")
{
    KConfig cfg = no_swap_config();
    cfg.memcg_high = 64;
    World w(cfg, 1024);
    {
        Ctx c(w.k, w.task(), w.clk);
        // 128 pages charged: 64 over a high of 64 pages = 100% overage. The penalty is
        // HZ * 1^2 * 64/64 ... far above the cap: 2 s per return to user mode.
        for (uint32_t p = 0; p < 65; p++)
            w.k.handle_mm_fault(c, w.mm, w.vma, p, true);
        c.flush();
        double before = w.clk.slept;
        w.k.resume_user_mode(c);
        CHECK(w.clk.slept - before == Approx(2.0));
    }
    // reclaim_high counted the first pass and the 16 retries before sleeping.
    CHECK(w.k.memcg.events.high == 1 + mm::MAX_RECLAIM_RETRIES);
    CHECK(w.k.check_invariants() == "");
}

TEST_CASE("THP_SWAP=N: every large folio fails slot allocation, is split and stored as 4K", "[kernel]")
{
    KConfig cfg = small_config();
    cfg.mthp_orders = {4};
    cfg.thp_swap = false;
    cfg.memcg_high = 256;
    World w(cfg, 512);
    {
        Ctx c(w.k, w.task(), w.clk);
        w.write(c, 512);
    }
    uint64_t split = w.k.vm.mthp[4][mm::MTHP_STAT_SWPOUT_FALLBACK];
    CHECK(split > 0);
    CHECK(w.k.memcg.events.swap_fail == split);      // memory.swap.events fail
    CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_ZSWPOUT] == 0);
    CHECK(w.k.vm[mm::ZSWPOUT] == split * 16);
    CHECK(w.k.check_invariants() == "");
}

TEST_CASE("SSD writeback: folios stay in the swap cache until the I/O completes", "[kernel][timed]")
{
    KConfig cfg = small_config();
    cfg.dev = SwapDev::Ssd;
    cfg.zswap = false;
    cfg.mthp_orders = {4};
    cfg.memcg_high = 256;
    cfg.ssd.write_bw = 64 * 1024 * 1e3;   // 64 KiB per ms
    cfg.ssd.latency = 0;
    cfg.ssd.nr_requests = 1;              // one request in flight: submitters wait for it
    cfg.ssd.max_request = 64 * 1024;      // no merging
    World w(cfg, 512);
    {
        Ctx c(w.k, w.task(), w.clk);
        w.write(c, 512);
    }
    uint64_t pswpout = w.k.vm[mm::PSWPOUT];
    CHECK(pswpout >= 256);
    CHECK(pswpout % 16 == 0);
    CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPOUT] == pswpout / 16);
    // One 64K request per ms through a single tag: the run takes at least one ms per
    // request but the last, and the task waited for tags.
    CHECK(w.clk.t >= double(pswpout / 16 - 1) * 1e-3 - 1e-9);
    CHECK(w.task().io_wait_s > 0);
    // Written folios are freed only by a later reclaim pass (after rotation).
    CHECK(w.k.vm[mm::PGROTATED] > 0);
    CHECK(w.k.check_invariants() == "");
}

TEST_CASE("swap-in: read back pages from zswap with VMA readahead (page-cluster 2)", "[kernel]")
{
    KConfig cfg = small_config();
    cfg.dev = SwapDev::Ssd;   // pmem would bypass the swap cache and readahead (SWP_SYNCHRONOUS_IO)
    cfg.memcg_high = 256;
    cfg.comp = {"test", 1024, 0, 1e-6};   // 1 us per decompression
    World w(cfg, 512);
    Ctx c(w.k, w.task(), w.clk);
    w.write(c, 512);
    uint64_t out = w.k.vm[mm::ZSWPOUT];
    REQUIRE(out > 0);
    // Read the first 64 pages back (the oldest, so they were evicted).
    double cpu0 = w.clk.cpu_s;
    for (uint32_t p = 0; p < 64; p++) {
        if (pte_swap(w.k.mms[w.mm].vmas[w.vma].pte[p]))
            w.k.handle_mm_fault(c, w.mm, w.vma, p, false);
        else
            w.k.touch_present(w.mm, w.vma, p);
    }
    c.flush();
    // __swapin_nr_pages with swap_readahead_info zeroed: the fault at 0 reads 1 page; the
    // adjacent fault at 1 reads [1, 3); the miss at 3 (one hit, adjacent) grows the window to
    // 4: [3, 7); every later miss follows three hits and reads [idx, idx+4). Misses at
    // 0, 1, 3, 7, ..., 63: 18 major faults, 1 + 16*3 = 49 readahead pages (the last window
    // reaching pages 64..66); 64 - 18 = 46 of them hit.
    CHECK(w.k.vm[mm::PGMAJFAULT] == 18);
    CHECK(w.k.vm[mm::SWAP_RA] == 49);
    CHECK(w.k.vm[mm::SWAP_RA_HIT] == 46);
    CHECK(w.k.vm[mm::ZSWPIN] == 67);
    CHECK(w.clk.cpu_s - cpu0 == Approx(67 * 1e-6));
    CHECK(w.k.check_invariants() == "");
}

TEST_CASE("swap-in: a fresh VMA's first fault opens no readahead window, wherever it falls", "[kernel]")
{
    // The kernel zeroes vma->swap_readahead_info: the "previous fault" is at address 0, next to
    // no user page. The model's VMA-relative indices must not read that as page 0, or a first
    // fault at page 1 would look sequential and read page 2 ahead.
    KConfig cfg = small_config();
    cfg.dev = SwapDev::Ssd;
    cfg.memcg_high = 256;
    cfg.comp = {"test", 1024, 0, 1e-6};
    World w(cfg, 512);
    Ctx c(w.k, w.task(), w.clk);
    w.write(c, 512);
    const auto& pte = w.k.mms[w.mm].vmas[w.vma].pte;
    REQUIRE(pte_swap(pte[1]));
    REQUIRE(pte_swap(pte[2]));
    w.k.handle_mm_fault(c, w.mm, w.vma, 1, false);
    CHECK(w.k.vm[mm::PGMAJFAULT] == 1);
    CHECK(w.k.vm[mm::SWAP_RA] == 0);
    CHECK(pte_swap(pte[2]));
    // The next fault, at page 2, is sequential: window 2, [2, 4), page 3 read ahead.
    w.k.handle_mm_fault(c, w.mm, w.vma, 2, false);
    c.flush();
    CHECK(w.k.vm[mm::PGMAJFAULT] == 2);
    CHECK(w.k.vm[mm::SWAP_RA] == 1);
    CHECK(w.k.check_invariants() == "");
}

TEST_CASE("exit_mmap frees folios, slots and zswap entries, uncharges everything, and pays zswap_invalidate per entry", "[kernel][timed]")
{
    KConfig cfg = small_config();
    cfg.mthp_orders = {4};
    cfg.memcg_high = 128;
    cfg.c.zswap_store_page = 5e-6;
    cfg.c.zswap_invalidate_page = 1e-6;
    cfg.c.zs_class_hold = 2e-7;   // zs_malloc and zs_free
    cfg.c.zs_free_cold = 3e-7;    // zs_free only
    World w(cfg, 1024);
    Ctx c(w.k, w.task(), w.clk);
    w.write(c, 1024);
    uint64_t stored = w.k.zswap.stored_pages;
    REQUIRE(stored > 0);
    double before = w.clk.cpu_s;
    w.k.exit_mmap(c, w.mm);
    c.flush();
    // Each zswap entry freed costs zswap_invalidate's time and zs_free's hold of the class
    // lock (uncontended here), not the store's.
    CHECK(w.clk.cpu_s - before == Approx(double(stored) * (1e-6 + 2e-7 + 3e-7)));
    CHECK(w.k.zswap.stored_pages == 0);
    CHECK(w.k.memcg.zswap_bytes == 0);
    CHECK(w.k.swap->inuse_pages() == w.k.swap->cached_slots());
    CHECK(w.k.memcg.pagetable_pages == 0);   // free_pgtables
    CHECK(w.k.memcg.memory.usage == w.k.memcg.stock_pages() + w.k.memcg.kmem_pages);
    CHECK(w.k.check_invariants() == "");
}

TEST_CASE("memory.max: the charging task reclaims and usage never exceeds the limit", "[kernel]")
{
    KConfig cfg = small_config();
    cfg.mthp_orders = {4};
    cfg.memcg_max = 512;   // 2 MiB
    World w(cfg, 1024);    // 4 MiB written: ~700 pages go to zswap, a quarter of each stays charged
    int64_t peak = 0;
    {
        Ctx c(w.k, w.task(), w.clk);
        // A 64K charge at memory.max fails (the THP gfp cannot reclaim) and the fault takes a
        // 4K page, which reclaims: every page is written, in 64K or 4K folios.
        for (uint32_t p = 0; p < 1024;) {
            p += w.k.handle_mm_fault(c, w.mm, w.vma, p, true);
            peak = std::max(peak, w.k.memcg.memory.usage);
            REQUIRE(w.k.check_invariants() == "");
        }
    }
    CHECK(peak <= 512);
    CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE] > 0);
    CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_ANON_FAULT_ALLOC] > 0);
    // zswap's charge in reclaim (PF_MEMALLOC) is forced past memory.max (try_charge_memcg's
    // force path): at most one folio's compressed size, 16 x 1 KiB = 4 pages, and its batch.
    CHECK(w.k.memcg.memory.watermark <= 512 + 16);
    CHECK(w.k.memcg.events.max > 0);   // memory.events max
    CHECK(w.k.memcg.events.high == 0);
    // evicted * 3/4 = written - what stays charged (at most memory.max).
    CHECK(double(w.k.vm[mm::ZSWPOUT]) * 0.75 >= 1024 - 512);
}

TEST_CASE("memory.max with zswap and no writeback: the compressed pool itself fills the cgroup", "[kernel]")
{
    KConfig cfg = small_config();
    cfg.mthp_orders = {4};
    cfg.memcg_max = 512;
    World w(cfg, 4096);   // 16 MiB: 3 MiB of zswap charge would be needed; only 2 MiB fit
    Ctx c(w.k, w.task(), w.clk);
    CHECK_THROWS_WITH([&] {
        for (uint32_t p = 0; p < 4096;)
            p += w.k.handle_mm_fault(c, w.mm, w.vma, p, true);
    }(), Catch::Contains("memcg OOM"));
    CHECK(w.k.memcg.kmem_pages > 400);   // the zswap charge crowds out the folios
    CHECK(w.k.memcg.events.oom == 1);
}

TEST_CASE("memory.max without swap: the charge fails after its retries (memcg OOM)", "[kernel]")
{
    KConfig cfg = no_swap_config();
    cfg.memcg_max = 256;
    World w(cfg, 1024);
    Ctx c(w.k, w.task(), w.clk);
    uint32_t p = 0;
    CHECK_THROWS_WITH([&] {
        for (; p < 1024; p++)
            w.k.handle_mm_fault(c, w.mm, w.vma, p, true);
    }(), Catch::Contains("memcg OOM"));
    CHECK(p >= 192);   // the limit less the charge batch in stock
    CHECK(p <= 256);
    CHECK(w.k.memcg.events.oom == 1);
    CHECK(w.k.memcg.memory.usage <= 256);
}

TEST_CASE("zswap pool limit: stores are rejected to the swap device until the pool shrinks below the accept threshold", "[kernel]")
{
    KConfig cfg = small_config();
    cfg.mthp_orders = {4};
    cfg.dram_pages = 1000;         // max_pool_percent 20: a pool of at most 200 pages
    cfg.memcg_high = 256;
    cfg.comp = {"test", 2048, 0, 0};
    World w(cfg, 4096);
    {
        Ctx c(w.k, w.task(), w.clk);
        w.write(c, 4096);
    }
    CHECK(w.k.zswap.pool_limit_hit > 0);
    CHECK(w.k.zpool.pool_pages() <= 200 + 16);   // limits are checked once per folio
    CHECK(w.k.vm[mm::PSWPOUT] > 0);               // rejected folios went to the (pmem) device
    CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPOUT] == w.k.vm[mm::PSWPOUT] / 16);
    CHECK(w.k.check_invariants() == "");
}

TEST_CASE("ctx: a task blocked in a rendezvous is off CPU, and plans from the engine's clock after it", "[kernel][timed]")
{
    KConfig cfg = small_config();
    World w(cfg, 16);
    Ctx c(w.k, w.task(), w.clk);
    c.sys(1e-3);
    bool ran_during = true;
    // The rendezvous (usemem -x) returns when the other tasks arrive, 5 ms later.
    c.block([&] {
        ran_during = w.task().running;
        w.clk.t += 5e-3;
    });
    CHECK_FALSE(ran_during);
    CHECK(w.task().running);
    CHECK(w.clk.cpu_s == Approx(1e-3));
    // What the task does next starts at 6 ms, not at 1 ms where it stopped planning.
    CHECK(c.now() == Approx(6e-3));
    c.sys(2e-3);
    c.flush();
    CHECK(w.clk.t == Approx(8e-3));
}

TEST_CASE("ctx: a contended lock's spin is busy-waiting: sys time, but no work for a shared core", "[kernel][timed]")
{
    KConfig cfg = small_config();
    cfg.topo = {1, 1, 2};   // CPUs 0 and 1 are the two threads of one core
    World w(cfg, 16);
    int pid2 = w.k.task_create(1, w.k.mm_create(1, 0));
    w.k.sched_wakeup(w.task());
    w.k.sched_wakeup(w.k.task(pid2));
    hw::Lock l;
    Ctx a(w.k, w.task(), w.clk);
    Ctx b(w.k, w.k.task(pid2), w.clk);
    a.lock(l, 3e-6);   // A holds 0-3 us
    b.sys(1e-6);
    b.lock(l, 2e-6);   // B asks at 1 us, spins 2 us, holds 3-5 us
    CHECK(b.now() == Approx(5e-6));
    b.flush();
    // The core runs B's 1 + 2 us of work; the 2 us spin (cpu_relax) is time, not work, so the
    // sibling keeps the core meanwhile and the spin ends when the lock is free.
    CHECK(w.clk.cpu_s == Approx(3e-6));
    CHECK(w.clk.slept == Approx(2e-6));
    CHECK(w.k.task(pid2).stime == Approx(5e-6));
    CHECK(w.clk.t == Approx(5e-6));
    // With the sibling asleep the core is B's alone: spin and work run as one activity.
    w.k.sched_sleep(w.task());
    a.lock(l, 3e-6);
    b.lock(l, 1e-6);
    b.flush();
    CHECK(w.clk.slept == Approx(2e-6));
    CHECK(w.k.task(pid2).stime > 5e-6 + 1e-6);   // its hold and the spin behind A
}

TEST_CASE("si->lock: a slot-cache refill holds it per slot allocated, munmap per run of contiguous entries freed", "[kernel][timed]")
{
    // 4K folios into a 1 MiB memory.high cgroup. The same run with and without the per-range
    // costs: the lock's hold time differs by alloc_per_range for every slot the refills took
    // (64 a refill, one range each) and by free_per_range for every run of contiguous swap
    // entries within a cluster that exit_mmap frees (__swap_entries_free: one range).
    auto run = [](double alloc_range, double free_range) {
        KConfig cfg = zswap_high_config();
        cfg.mthp_orders = {};
        cfg.c.si_alloc_per_range = alloc_range;
        cfg.c.si_free_per_range = free_range;
        World w(cfg, 1024);
        Ctx c(w.k, w.task(), w.clk);
        w.write(c, 1024);
        const auto& pte = w.k.mms[w.mm].vmas[w.vma].pte;
        uint64_t runs = 0;
        for (size_t i = 0; i < pte.size(); i++)
            if (pte_swap(pte[i]) && (i == 0 || !pte_swap(pte[i - 1]) || pte_offset(pte[i]) != pte_offset(pte[i - 1]) + 1 ||
                                     pte_offset(pte[i]) % mm::SWAPFILE_CLUSTER == 0))
                runs++;
        uint64_t refilled = w.k.swap->inuse_pages();   // every slot a refill took is in use or cached
        w.k.exit_mmap(c, w.mm);
        c.flush();
        double hold = 0;
        for (auto& [name, st] : w.k.lock_stats())
            if (name.rfind("si->lock", 0) == 0)
                hold = st->hold_s;
        return std::make_tuple(hold, refilled, runs, w.k.vm[mm::ZSWPOUT]);
    };
    auto [h0, refilled, runs, stored] = run(0, 0);
    auto [h1, refilled1, runs1, stored1] = run(3e-7, 5e-7);
    REQUIRE(stored > 512);
    REQUIRE(runs >= 2);   // at least the cluster boundary
    CHECK(refilled % 64 == 0);
    CHECK(refilled >= stored);
    CHECK(stored1 == stored);
    CHECK(runs1 == runs);
    CHECK(h1 - h0 == Approx(3e-7 * double(refilled) + 5e-7 * double(runs)).epsilon(1e-9));
}

TEST_CASE("munmap's free of swap entries misses on each metadata line it touches, and the XArray's shadows take more lines than the swap table's", "[kernel][timed]")
{
    // 4K pages swapped to pmem from a 1 MiB memory.high cgroup, then unmapped: the same run
    // with and without cost.zap.cold_line_ns. The CPU time differs by one miss per line that
    // zap_pte_range's free of each run of contiguous entries (one cluster) touches, counted
    // here from the data structures' layouts: swap_cgroup 2 bytes an entry, swap_map 1 byte,
    // zeromap 1 bit, the cluster's swap_cluster_info 1 line; the XArray (v6.17) adds its
    // space's xa_lock line and, per leaf xa_node of 64 slots, the parent's slot line, the
    // header and the slot lines (8 bytes a slot from byte 40); the swap table (v6.18) its
    // 8-byte entries in the cluster's table.
    auto lines = [](uint64_t a, uint64_t b) { return (b / 64) - (a / 64) + 1; };
    auto run = [&](SwapCacheImpl impl, double cold) {
        KConfig cfg = small_config();
        cfg.zswap = false;
        cfg.mthp_orders = {};
        cfg.memcg_high = 256;
        cfg.swap_cache = impl;
        cfg.c.cold_line = cold;
        World w(cfg, 1024);
        Ctx c(w.k, w.task(), w.clk);
        w.write(c, 1024);
        const auto& pte = w.k.mms[w.mm].vmas[w.vma].pte;
        uint64_t expect = 0, runs = 0;
        for (size_t i = 0; i < pte.size();) {
            if (!pte_swap(pte[i])) {
                i++;
                continue;
            }
            uint64_t off = pte_offset(pte[i]), j = i + 1;
            while (j < pte.size() && pte_swap(pte[j]) && pte_offset(pte[j]) == off + (j - i) &&
                   (off + (j - i)) % mm::SWAPFILE_CLUSTER != 0)
                j++;
            uint64_t last = off + (j - i) - 1;
            expect += lines(off * 2, last * 2 + 1) + 1 + lines(off, last) + lines(off / 8, last / 8);
            if (impl == SwapCacheImpl::SwapTable) {
                expect += lines(off % mm::SWAPFILE_CLUSTER * 8, last % mm::SWAPFILE_CLUSTER * 8 + 7);
            } else {
                expect += 1;
                for (uint64_t n = off / 64; n <= last / 64; n++) {
                    uint64_t a = std::max(off, n * 64) % 64, b = std::min(last, n * 64 + 63) % 64;
                    expect += 1 + 1 + lines(40 + 8 * a, 40 + 8 * b + 7) - (a < 3 ? 1 : 0);
                }
            }
            runs++;
            i = j;
        }
        double before = w.clk.cpu_s;
        w.k.exit_mmap(c, w.mm);
        c.flush();
        CHECK(w.k.check_invariants() == "");
        return std::make_tuple(w.clk.cpu_s - before, expect, runs);
    };
    for (SwapCacheImpl impl : {SwapCacheImpl::XArray, SwapCacheImpl::SwapTable}) {
        auto [t0, expect0, runs0] = run(impl, 0);
        auto [t1, expect, runs] = run(impl, 1e-7);
        REQUIRE(runs >= 2);
        CHECK(runs == runs0);
        CHECK(expect >= 5 * runs);
        INFO("impl " << int(impl) << " runs " << runs << " lines " << expect << " got " << (t1 - t0) / 1e-7);
        CHECK(t1 - t0 == Approx(1e-7 * double(expect)).epsilon(1e-6));
    }
    auto [tx0, ex_xa, runs_xa] = run(SwapCacheImpl::XArray, 0);
    auto [tx1, ex_xa1, runs_xa1] = run(SwapCacheImpl::XArray, 1e-7);
    auto [tt0, ex_tb, runs_tb] = run(SwapCacheImpl::SwapTable, 0);
    auto [tt1, ex_tb1, runs_tb1] = run(SwapCacheImpl::SwapTable, 1e-7);
    // Per run, the XArray's walk and node header cost more misses than the table's entries.
    CHECK((tx1 - tx0) / double(runs_xa) > (tt1 - tt0) / double(runs_tb) + 2e-7);
}

TEST_CASE("yield points: each flush checks the invariants, and a broken one names the path", "[kernel][yield]")
{
    World w(small_config(), 1024);
    w.k.check_yields = true;
    {
        Ctx c(w.k, w.task(), w.clk);
        w.write(c, 256);
    }
    CHECK(w.k.yield_checks > 0);
    // Half-done work left visible at a yield: a charge with no folio behind it.
    Ctx c(w.k, w.task(), w.clk);
    w.k.memcg.memory.usage += 1;
    CHECK_THROWS_WITH(c.flush(), Catch::Contains("invariant broken at a yield point of") &&
                                     Catch::Contains("memcg usage"));
    w.k.memcg.memory.usage -= 1;
    CHECK(w.k.check_at_yield() == "");
}

TEST_CASE("pcp lists: pages freed in a row go back to the buddy in growing bulks under zone->lock, and a CPU reuses its own frees without it",
          "[kernel][timed]")
{
    // small_config: one 4 GiB zone, 4 CPUs: batch 63, high_min = low watermark (3,096 pages) / 5
    // = 619, high_max = 1 Mi pages / 8 / 5 = 26,214 (zone_batchsize, zone_highsize).
    auto zone = [](const Kernel& k) {
        for (const auto& [name, st] : k.lock_stats())
            if (name == "zone->lock")
                return *st;
        return hw::LockStats{};
    };
    KConfig cfg = no_swap_config();
    cfg.mthp_orders = {};
    cfg.c.free_one_page = 4e-7;   // 0.4 us a page
    World w(cfg, 8192);
    Ctx c(w.k, w.task(), w.clk);
    w.write(c, 8192);
    const hw::LockStats a = zone(w.k);
    // Refills of one batch each (the PTE pages' allocations come from the same list).
    CHECK(a.acquisitions >= 8192 / 63);
    CHECK(a.acquisitions <= 8192 / 63 + 4);
    w.k.exit_mmap(c, w.mm);
    c.flush();
    const hw::LockStats b = zone(w.k);
    const uint64_t bulks = b.acquisitions - a.acquisitions;
    // Freeing in a row raises pcp->high, and each bulk takes the pages freed in a row (up to
    // 63 << 5 = 2,016): a handful of bulks, not one per batch (130).
    CHECK(bulks >= 3);
    CHECK(bulks <= 12);
    // Every page returned is merged under the lock: at least 8,192 less what the list keeps
    // (high_max), at most all of them.
    const double merged = (b.hold_s - a.hold_s) / 4e-7;
    CHECK(merged <= 8192 + 2);
    CHECK(merged >= 8192 - 2100);
    // The same CPU writing again takes its pages from its own list: no zone->lock for them.
    World w2(cfg, 1024);
    Ctx c2(w2.k, w2.task(), w2.clk);
    w2.write(c2, 1024);
    w2.k.exit_mmap(c2, w2.mm);
    c2.flush();
    const uint64_t before = zone(w2.k).acquisitions;
    uint32_t mm2 = w2.k.mm_create(0, 0);
    uint32_t vma2 = w2.k.vma_create(mm2, 512);
    for (uint32_t p = 0; p < 512; p++)
        w2.k.handle_mm_fault(c2, mm2, vma2, p, true);
    c2.flush();
    CHECK(zone(w2.k).acquisitions == before);
}

TEST_CASE("memoryless nodes: with machine.memory_nodes = 1 a second socket's CPUs allocate from node 0, which holds all RAM",
          "[kernel]")
{
    KConfig cfg = no_swap_config();
    cfg.mthp_orders = {};
    cfg.topo = {2, 2, 1};   // CPUs 2 and 3 on socket 1
    auto run = [&](int mem_nodes) {
        cfg.mem_nodes = mem_nodes;
        Kernel k(cfg);
        uint32_t mm = k.mm_create(0, 2);
        int pid = k.task_create(2, mm);
        uint32_t vma = k.vma_create(mm, 1024);
        TestClock clk;
        Ctx c(k, k.task(pid), clk);
        for (uint32_t p = 0; p < 1024; p++)
            k.handle_mm_fault(c, mm, vma, p, true);
        c.flush();
        return std::make_pair(k.nodes()[0], k.nodes()[1]);
    };
    auto [n0, n1] = run(0);   // RAM split over both sockets: the task's pages are local to node 1
    CHECK(n0.managed == cfg.dram_pages / 2);
    CHECK(n1.managed == cfg.dram_pages / 2);
    CHECK(n1.folio_pages >= 1024);
    CHECK(n0.folio_pages == 0);
    auto [m0, m1] = run(1);   // mem=: node 1 has no memory, numa_mem_id() of its CPUs is node 0
    CHECK(m0.managed == cfg.dram_pages);
    CHECK(m1.managed == 0);
    CHECK(m0.folio_pages >= 1024);
    CHECK(m1.folio_pages == 0);
    CHECK(m1.wmark[NodeMem::WMARK_HIGH] == 0);
}

TEST_CASE("pte table: reads back every write, and folds the runs a folio maps or a swap-out fills", "[pte]")
{
    const size_t n = 16 * 64 + 5;   // a partial last run as well
    PteTable t;
    std::vector<pte_t> ref;
    t.assign(n, PTE_NONE);
    ref.assign(n, PTE_NONE);
    auto same = [&] {
        for (size_t i = 0; i < n; i++)
            if (t[i] != ref[i])
                return false;
        return true;
    };
    auto put = [&](size_t i, pte_t v) {
        t[i] = v;
        ref[i] = v;
    };
    // 64K folios mapped whole (every PTE holds the folio), then swapped out whole (offsets in a row).
    for (size_t r = 0; r < 64; r++)
        for (size_t k = 0; k < 16; k++)
            put(r * 16 + k, mk_pte(mm::folio_t(100 + r)));
    CHECK(same());
    CHECK(t.unfolded_runs() == 0);
    for (size_t r = 0; r < 32; r++)
        for (size_t k = 0; k < 16; k++)
            put(r * 16 + k, mk_swp_pte(mm::swp_offset_t(5000 + 16 * r + k)));
    CHECK(same());
    CHECK(t.unfolded_runs() == 0);
    CHECK(t.bytes() * 4 <= n * sizeof(pte_t));   // 8 bytes a run of 16: a quarter of a flat array at most
    // Out of order and mixed: kept unfolded, still exact; rewritten in order, folded again.
    std::mt19937 rng(7);
    for (int j = 0; j < 3000; j++) {
        size_t i = rng() % n;
        pte_t v = rng() % 3 == 0 ? PTE_NONE : rng() % 2 ? mk_pte(mm::folio_t(rng() % 50)) : mk_swp_pte(rng() % 9000);
        put(i, v);
    }
    CHECK(same());
    CHECK(t.unfolded_runs() > 0);
    for (size_t i = 0; i < 64 * 16; i++)
        put(i, PTE_NONE);
    CHECK(same());
    CHECK(t.unfolded_runs() <= 1);   // the partial last run is never folded
    // Reading through the const view and iterators gives the same PTEs.
    const PteTable& ct = t;
    size_t i = 0;
    for (pte_t p : ct)
        CHECK(p == ref[i++]);
    CHECK(i == n);
    CHECK_THROWS_AS(ct.at(n), std::out_of_range);
}
