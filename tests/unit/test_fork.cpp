// fork, copy-on-write, shared swap entries and tmpfs pages, through the workload interface
// (workload::Process) on a plain test clock.
#include <catch2/catch.hpp>

#include "kconfig_fixture.hpp"

#include <set>
#include <tuple>

#include "kernel/kernel.hpp"
#include "test_clock.hpp"
#include "workload/process.hpp"

using namespace swapsim;
using namespace swapsim::kernel;
using mm::PAGE_SIZE;
using workload::Process;

namespace {

// One socket, four cores, a 64 MiB pmem swap device (SWP_SYNCHRONOUS_IO) without zswap, 4K
// folios, no readahead, every cost zero but the ones a test sets.
KConfig fork_config()
{
    KConfig k = swapsim_test::small_config();
    k.page_cluster = 0;
    k.vma_ra = false;
    k.zswap = false;
    return k;
}

constexpr uint64_t CHUNK = 64 * 1024;

// Slots referenced by the swap PTEs of a VMA.
std::set<mm::swp_offset_t> swap_slots(const Vma& v)
{
    std::set<mm::swp_offset_t> s;
    for (pte_t p : v.pte)
        if (pte_swap(p))
            s.insert(pte_offset(p));
    return s;
}

// A parent on `cfg` (4 CPUs, or `cpus`) that has written the `pages` 4K pages of one VMA and
// holds a second, untouched one of `later_pages`.
struct Written {
    KConfig cfg;
    Kernel k{cfg};
    TestClock clk;
    Process parent;
    uint32_t vma, later;
    Ctx pc;
    explicit Written(uint32_t pages, KConfig config = fork_config(), uint32_t later_pages = 0, int cpus = 4)
        : cfg(config), parent((k.reserve(cpus, cpus), k), 0), vma(parent.mmap_anon(pages)),
          later(later_pages ? parent.mmap_anon(later_pages) : 0), pc(k, parent.task(), clk)
    {
        parent.access(pc, vma, 0, pages, false, true, 1e10, CHUNK);
    }
};

}  // namespace

TEST_CASE("fork then write breaks COW exactly once per page", "[fork]")
{
    const bool parent_first = GENERATE(false, true);
    Written w(64);
    auto [k, clk, parent, vma, pc] = std::tie(w.k, w.clk, w.parent, w.vma, w.pc);
    Process child = parent.fork(pc, 1);
    pc.flush();
    CHECK(k.cow.fork_ptes == 64);
    for (uint32_t i = 0; i < 64; i++) {
        pte_t p = k.mms[parent.mm()].vmas[vma].pte[i];
        REQUIRE(pte_wp(p));
        CHECK(k.mapcount(pte_folio(p)) == 2);
        CHECK(k.mms[child.mm()].vmas[vma].pte[i] == p);
    }
    CHECK(k.check_invariants() == "");
    Ctx cc(k, child.task(), clk);
    Process* first = parent_first ? &parent : &child;
    Process* second = parent_first ? &child : &parent;
    Ctx& c1 = parent_first ? pc : cc;
    Ctx& c2 = parent_first ? cc : pc;
    uint64_t faults0 = k.vm[mm::PGFAULT];
    first->access(c1, vma, 0, 64, false, true, 1e10, CHUNK);
    CHECK(k.cow.copies == 64);
    CHECK(k.cow.reuses == 0);
    second->access(c2, vma, 0, 64, false, true, 1e10, CHUNK);
    CHECK(k.cow.copies == 64);   // the last mapper reuses its page
    CHECK(k.cow.reuses == 64);
    CHECK(k.vm[mm::PGFAULT] - faults0 == 128);
    // Written again: no fault, no copy.
    parent.access(pc, vma, 0, 64, false, true, 1e10, CHUNK);
    child.access(cc, vma, 0, 64, false, true, 1e10, CHUNK);
    CHECK(k.vm[mm::PGFAULT] - faults0 == 128);
    CHECK(k.cow.copies == 64);
    CHECK(k.memcg.anon_pages == 128);
    CHECK(k.check_invariants() == "");
    child.exit(cc);
    parent.exit(pc);
    CHECK(k.memcg.anon_pages == 0);
    CHECK(k.check_invariants() == "");
}

TEST_CASE("fork of swapped-out pages: swap count 2, swapped in once, through the swap cache", "[fork]")
{
    Written w(64);
    auto [k, clk, parent, vma, pc] = std::tie(w.k, w.clk, w.parent, w.vma, w.pc);
    k.madvise_pageout(pc, parent.mm(), vma, 0, 64);
    pc.flush();
    auto slots = swap_slots(k.mms[parent.mm()].vmas[vma]);
    REQUIRE(slots.size() == 64);
    for (auto o : slots)
        REQUIRE(k.swap->count(o) == 1);
    Process child = parent.fork(pc, 1);
    CHECK(k.cow.fork_swap_ptes == 64);
    for (auto o : slots)
        CHECK(k.swap->count(o) == 2);   // swap_duplicate
    CHECK(k.check_invariants() == "");

    // The child reads every page: a major fault and a read each, not the SWP_SYNCHRONOUS_IO
    // bypass (the count is 2), so the folios stay in the swap cache.
    Ctx cc(k, child.task(), clk);
    uint64_t in0 = k.vm[mm::PSWPIN], maj0 = k.vm[mm::PGMAJFAULT];
    child.access(cc, vma, 0, 64, true, false, 1e10, CHUNK);
    CHECK(k.vm[mm::PSWPIN] - in0 == 64);
    CHECK(k.vm[mm::PGMAJFAULT] - maj0 == 64);
    for (auto o : slots) {
        CHECK(k.swap->count(o) == 1);
        CHECK(k.swap->cache_folio(o) != mm::NO_FOLIO);
    }
    // The parent's reads meet the same folios in the swap cache: no read, no major fault.
    parent.access(pc, vma, 0, 64, true, false, 1e10, CHUNK);
    CHECK(k.vm[mm::PSWPIN] - in0 == 64);
    CHECK(k.vm[mm::PGMAJFAULT] - maj0 == 64);
    for (uint32_t i = 0; i < 64; i++) {
        pte_t p = k.mms[parent.mm()].vmas[vma].pte[i];
        REQUIRE(pte_present(p));
        CHECK(pte_wp(p));   // non-exclusive: mapped read-only
        CHECK(k.mapcount(pte_folio(p)) == 2);
        CHECK(k.mms[child.mm()].vmas[vma].pte[i] == p);
    }
    // The child then writes: each page is copied once; the parent keeps the cached folio.
    child.access(cc, vma, 0, 64, false, true, 1e10, CHUNK);
    CHECK(k.cow.copies == 64);
    CHECK(k.check_invariants() == "");
    child.exit(cc);
    parent.exit(pc);
    CHECK(k.memcg.anon_pages == 0);
    CHECK(k.swap->inuse_pages() - k.swap->cached_slots() == 0);
    CHECK(k.check_invariants() == "");
}

TEST_CASE("a page reclaimed while shared by two mms holds swap count 2 and is swapped in once", "[fork]")
{
    KConfig cfg = fork_config();
    cfg.memcg_high = 256;   // 1 MiB
    Written w(128, cfg, 1024);
    auto [k, clk, parent, shared, later, pc] = std::tie(w.k, w.clk, w.parent, w.vma, w.later, w.pc);
    Process child = parent.fork(pc, 1);
    pc.flush();
    // The parent writes 4 MiB more: memory.high reclaim takes the oldest folios, the shared ones.
    parent.access(pc, later, 0, 1024, false, true, 1e10, CHUNK);
    auto ps = swap_slots(k.mms[parent.mm()].vmas[shared]);
    auto cs = swap_slots(k.mms[child.mm()].vmas[shared]);
    REQUIRE(ps.size() > 32);
    CHECK(ps == cs);   // try_to_unmap unmapped both mappings of each folio
    for (auto o : ps)
        CHECK(k.swap->count(o) == 2);
    CHECK(k.check_invariants() == "");
    uint64_t in0 = k.vm[mm::PSWPIN];
    Ctx cc(k, child.task(), clk);
    child.access(cc, shared, 0, 128, true, false, 1e10, CHUNK);
    parent.access(pc, shared, 0, 128, true, false, 1e10, CHUNK);
    // Each was read once (the memcg may have pushed some out again in between: count those).
    CHECK(k.vm[mm::PSWPIN] - in0 >= ps.size());
    CHECK(k.vm[mm::PSWPIN] - in0 <= ps.size() + k.vm[mm::PSWPOUT]);
    CHECK(k.check_invariants() == "");
    child.exit(cc);
    parent.exit(pc);
    CHECK(k.check_invariants() == "");
}

TEST_CASE("tmpfs pages are charged to the memcg, swapped out and read back through the swap cache", "[fork][shmem]")
{
    KConfig cfg = fork_config();
    cfg.memcg_high = 256;
    Kernel k(cfg);
    TestClock clk;
    uint32_t file = k.shmem_create(512);   // a 2 MiB file
    Process p(k, 0);
    Ctx c(k, p.task(), clk);
    p.file_access(c, file, 0, 128, true, 1e10, CHUNK);
    CHECK(k.memcg.memory.usage >= 128);
    CHECK(k.mms[file].rss_anon == 128);
    uint32_t heap = p.mmap_anon(1024);
    p.access(c, heap, 0, 1024, false, true, 1e10, CHUNK);   // pressure
    uint64_t out = swap_slots(k.mms[file].vmas[0]).size();
    CHECK(out > 0);
    uint64_t in0 = k.vm[mm::PSWPIN], maj0 = k.vm[mm::PGMAJFAULT];
    p.munmap(c, heap);
    p.file_access(c, file, 0, 128, false, 1e10, CHUNK);
    CHECK(k.vm[mm::PSWPIN] - in0 == out);
    CHECK(k.vm[mm::PGMAJFAULT] - maj0 == out);
    // shmem_swapin_folio keeps the folio in the swap cache (no SWP_SYNCHRONOUS_IO bypass).
    uint64_t cached = 0;
    for (pte_t pte : k.mms[file].vmas[0].pte)
        if (pte_present(pte) && k.folios[pte_folio(pte)].test(mm::PG_swapcache))
            cached++;
    CHECK(cached == out);
    CHECK(k.check_invariants() == "");
}

TEST_CASE("the rmap walk of a shared folio costs more with more VMAs in its anon_vma", "[fork]")
{
    // The same run with and without the per-VMA cost: the same folios are reclaimed, and the
    // difference is that cost times the further VMAs of each walk (none without fork).
    auto run = [](int forks, double per_vma) {
        KConfig cfg = fork_config();
        cfg.c.rmap_walk = 1e-6;
        cfg.c.rmap_per_vma = per_vma;
        cfg.memcg_high = 64;
        Written w(64, cfg, 512, 8);
        auto [k, clk, parent, more, c] = std::tie(w.k, w.clk, w.parent, w.later, w.pc);
        for (int i = 0; i < forks; i++)
            parent.fork(c, 1 + i);
        c.flush();
        double t0 = clk.cpu_s;
        parent.access(c, more, 0, 512, false, true, 1e10, CHUNK);
        return std::pair<double, uint64_t>(clk.cpu_s - t0, k.vm[mm::PSWPOUT]);
    };
    auto [solo0, solo_out0] = run(0, 0);
    auto [solo1, solo_out1] = run(0, 0.3e-6);
    CHECK(solo_out0 == solo_out1);
    CHECK(solo1 == Approx(solo0).epsilon(1e-12));   // one VMA: nothing more to walk
    auto [three0, out0] = run(2, 0);
    auto [three1, out1] = run(2, 0.3e-6);
    REQUIRE(out0 == out1);
    REQUIRE(out0 > 0);
    // At least one try_to_unmap of a folio mapped by all three: 2 further VMAs.
    CHECK(three1 - three0 >= 2 * 0.3e-6 - 1e-12);
}
