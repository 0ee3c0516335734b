// Slab caches charged to the memcg and the shrinkers (mm/slab.hpp, kernel/shrinker.cpp): a file
// system's dentries and inodes charged when looked up, freed by the superblock shrinker in
// proportion to the LRU scan, and nothing of it without a file-system walk.
#include <catch2/catch.hpp>

#include "kconfig_fixture.hpp"
#include "run_cmd.hpp"

#include "kernel/kernel.hpp"
#include "mm/slab.hpp"
#include "test_clock.hpp"

using namespace swapsim;
using namespace swapsim::kernel;
using mm::PAGE_SIZE;

namespace {

constexpr uint32_t DENTRY = 196, INODE = 1155;   // measured: 1,351 B per ext4 entry

struct Task1 {
    explicit Task1(Kernel& k) : k(k)
    {
        mm = k.mm_create(int(k.nr_tasks()), 0);
        pid = k.task_create(0, mm);
        anon = k.vma_create(mm, 4096);
    }
    void write(Ctx& c, uint32_t first, uint32_t n)
    {
        for (uint32_t p = first; p < first + n;)
            p += k.handle_mm_fault(c, mm, anon, p, true);
        c.flush();
    }
    Kernel& k;
    uint32_t mm = 0, anon = 0;
    int pid = 0;
};

}  // namespace

TEST_CASE("slab: the dentry LRU rotates a referenced dentry once, a freed dentry leaves its inode on the inode LRU",
          "[slab]")
{
    mm::Dcache d(4, 1, false);
    for (uint32_t e = 0; e < 4; e++)
        CHECK(d.lookup(e, 0) == mm::Dcache::Uncached);
    CHECK(d.lookup(0, 0) == mm::Dcache::Dentry);   // referenced now
    CHECK(d.nr_dentries(0) == 4);
    uint64_t rotated = 0;
    CHECK(d.prune_dentries(0, 4, rotated) == 3);   // entry 0 is rotated, 1-3 freed
    CHECK(rotated == 1);
    CHECK(d.state(0) == mm::Dcache::Dentry);
    CHECK(d.state(1) == mm::Dcache::Inode);
    CHECK(d.nr_inodes(0) == 3);
    CHECK(d.cached_inodes() == 4);
    // iput_final's I_REFERENCED: each inode survives its first walk.
    rotated = 0;
    CHECK(d.prune_inodes(0, 3, rotated) == 0);
    CHECK(rotated == 3);
    CHECK(d.prune_inodes(0, 3, rotated) == 3);
    CHECK(d.state(2) == mm::Dcache::Uncached);
    CHECK(d.cached_inodes() == 1);
    // A pinned cache (tmpfs) never frees.
    mm::Dcache p(2, 1, true);
    p.lookup(0, 0);
    CHECK(p.prune_dentries(0, 10, rotated) == 0);
    CHECK(p.cached_dentries() == 1);
}

TEST_CASE("slab: do_shrink_slab scans the same share of the slab as the LRU scan's, twice over with DEFAULT_SEEKS",
          "[slab]")
{
    const uint64_t lru = 1u << 20, freeable = 300000;
    for (int prio = mm::DEF_PRIORITY; prio >= 0; prio--) {
        const double lru_share = double(lru >> prio) / double(lru);   // shrink_lruvec: size >> priority
        const uint64_t scan = Kernel::shrinker_total_scan(freeable, 0, prio, 2);
        CHECK(scan == std::min<uint64_t>(2 * (freeable >> prio), 2 * freeable));
        CHECK(double(scan) / double(freeable) == Approx(std::min(2 * lru_share, 2.0)).epsilon(0.01));
    }
    // Deferred work adds nr_deferred >> priority; seeks 0 (the shadow-node shrinker) is half the
    // objects at any priority.
    CHECK(Kernel::shrinker_total_scan(1000, 4096, 4, 2) == 256 + 124);
    CHECK(Kernel::shrinker_total_scan(1000, 0, 12, 0) == 500);
    CHECK(Kernel::shrinker_total_scan(1000, 0, 0, 0) == 500);
}

TEST_CASE("slab: looked-up dentries and inodes are charged to the memcg and freed by the shrinker at memory.max",
          "[slab]")
{
    KConfig cfg = swapsim_test::small_config();
    cfg.dev = SwapDev::None;   // no swap, no file: only the shrinker can free anything
    cfg.zswap = false;
    cfg.memcg_max = 1000;
    Kernel k(cfg);
    TestClock clk;
    const uint32_t n = 2000;
    k.dcache_create(n, DENTRY, INODE, true);
    Task1 t(k);
    {
        Ctx c(k, k.task(t.pid), clk);
        for (uint32_t e = 0; e < n; e++)
            k.fs_lookup(c, e);
        c.flush();
    }
    const int64_t slab = (int64_t(n) * (DENTRY + INODE) + PAGE_SIZE - 1) / PAGE_SIZE;   // 660 pages
    CHECK(k.memcg.slab_pages == slab);
    CHECK(k.memcg.stat().slab_reclaimable == uint64_t(n) * (DENTRY + INODE));
    CHECK(k.memcg.stat().kernel >= uint64_t(slab) * PAGE_SIZE);
    CHECK(k.slabstat.alloc_inodes == n);
    CHECK(k.check_invariants() == "");
    // 600 anon pages on top of 660 slab pages do not fit in 1000: the charge reclaims, and
    // only the superblock shrinker has anything to give.
    {
        Ctx c(k, k.task(t.pid), clk);
        t.write(c, 0, 600);
    }
    CHECK(k.memcg.memory.usage <= 1000);
    CHECK(k.slabstat.shrinker_calls > 0);
    CHECK(k.slabstat.freed_dentries > 0);
    CHECK(k.memcg.slab_pages < slab);
    CHECK(k.memcg.slab_pages + 600 <= 1000);
    CHECK(k.dcache()->cached_dentries() == n - k.slabstat.freed_dentries);
    CHECK(k.slabstat.shadow_calls == 0);   // memcg reclaim: the root's shadow list is not its
    CHECK(k.check_invariants() == "");
    CHECK(k.check_at_yield() == "");
    // A freed entry looked up again is allocated and charged again.
    const uint64_t allocs = k.slabstat.alloc_dentries;
    {
        Ctx c(k, k.task(t.pid), clk);
        for (uint32_t e = 0; e < n; e++)
            k.fs_lookup(c, e);
    }
    CHECK(k.slabstat.alloc_dentries > allocs);
    CHECK(k.check_invariants() == "");
}

TEST_CASE("slab: with old anon folios to reclaim, a memcg's reclaim stays at high priorities and keeps its dentries",
          "[slab]")
{
    // Once the first sweep has aged the anon LRU, reclaim frees its target at high priorities,
    // where the superblock shrinker's scan, (nr_deferred >> priority) + 2 x (freeable >>
    // priority), stays below its batch of 1024 and below freeable: the slab is not touched.
    KConfig cfg = swapsim_test::small_config();
    cfg.swap_slots = (256ull << 20) / PAGE_SIZE;
    cfg.memcg_max = 40000;
    Kernel k(cfg);
    TestClock clk;
    k.dcache_create(2000, DENTRY, INODE, true);
    Task1 t(k);
    t.anon = k.vma_create(t.mm, 60000);
    {
        Ctx c(k, k.task(t.pid), clk);
        t.write(c, 0, 45000);   // past memory.max: the first sweep ages the LRU
        for (uint32_t e = 0; e < 2000; e++)
            k.fs_lookup(c, e);
        c.flush();
    }
    const uint64_t out = k.vm[mm::PSWPOUT] + k.vm[mm::ZSWPOUT];
    const uint64_t calls = k.slabstat.shrinker_calls, freed = k.slabstat.freed_dentries;
    {
        Ctx c(k, k.task(t.pid), clk);
        t.write(c, 45000, 10000);
    }
    CHECK(k.vm[mm::PSWPOUT] + k.vm[mm::ZSWPOUT] > out + 5000);
    CHECK(k.slabstat.shrinker_calls > calls);
    CHECK(k.slabstat.freed_dentries == freed);
    CHECK(k.memcg.slab_pages > 0);
    CHECK(k.check_invariants() == "");
}

TEST_CASE("slab: a kernel build charges no slab without a walk of a disk tree, and on disk charges its dentries and shrinks them",
          "[slab][kbuild]")
{
    using nlohmann::json;
    json tmpfs = swapsim_test::run_sets("tests/data/kbuild-small.json", {});
    CHECK(!tmpfs["devices"].contains("slab"));
    json disk = swapsim_test::run_sets("tests/data/kbuild-small.json",
                                       {"workload.kbuild.fs=disk", "workload.kbuild.fs_entries=40000"});
    const json& s = disk["devices"]["slab"];
    CHECK(s["alloc_inodes"].get<uint64_t>() >= 40000);
    CHECK(s["lookups"].get<uint64_t>() == 40000 + 40 * 500);   // the walk, then 500 per compile unit
    CHECK(s["shrinker_calls"].get<uint64_t>() > 0);
    CHECK(s["freed_dentries"].get<uint64_t>() > 0);            // 256M: the walk's 54 MB must give way
    CHECK(disk["metrics"]["sys_s"].get<double>() > tmpfs["metrics"]["sys_s"].get<double>());
    json pinned = swapsim_test::run_sets("tests/data/kbuild-small.json",
                                         {"workload.kbuild.fs=tmpfs-charged", "workload.kbuild.fs_entries=40000"});
    const json& p = pinned["devices"]["slab"];
    CHECK(p["freed_dentries"] == 0);
    CHECK(p["slab_unreclaimable_bytes"].get<uint64_t>() == 40000ull * (196 + 1049));
    CHECK(pinned["metrics"]["pswpout"].get<double>() > tmpfs["metrics"]["pswpout"].get<double>());
}
