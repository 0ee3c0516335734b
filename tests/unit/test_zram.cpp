// zram as the swap device, zsmalloc multi-page objects and large-folio swap-in, on the plain
// test clock: where zram's memory is accounted, what a 64K folio becomes, same-filled pages,
// and when alloc_swap_folio falls back to order 0.
#include <catch2/catch.hpp>

#include <utility>

#include "kernel/kernel.hpp"
#include "test_clock.hpp"

using namespace swapsim;
using namespace swapsim::kernel;
using mm::PAGE_SIZE;

namespace {

// One socket, four cores, zram of 64 MiB, no zswap, 64K mTHP; every page compresses to 30%.
KConfig zram_config(unsigned multi_order = 0)
{
    KConfig k;
    k.topo = {1, 4, 1};
    k.hz = 1e9;
    k.dram_pages = (4ull << 30) / PAGE_SIZE;
    k.dev = SwapDev::Zram;
    k.zswap = false;
    k.swap_slots = (64ull << 20) / PAGE_SIZE;
    k.mthp_orders = {4};
    k.zram.multi_order = multi_order;
    for (unsigned o = 0; o < k.zram.data.kind.size(); o++) {
        k.zram.data.kind[o] = {0.30, 1e-6, 2e-7};
        k.zram.data.zero[o] = {0.001, 1e-7, 1e-7};
    }
    return k;
}

struct World {
    explicit World(const KConfig& c, uint32_t pages = 64) : k(c)
    {
        mm = k.mm_create(0, 0);
        pid = k.task_create(0, mm);
        vma = k.vma_create(mm, pages);
        n = pages;
    }
    Task& task() { return k.task(pid); }
    // Touch pages [0, n) in order (write or read), as the swapinout workload does.
    unsigned touch(Ctx& c, bool write)
    {
        unsigned faults = 0;
        for (uint32_t p = 0; p < n;) {
            pte_t pte = k.mms[mm].vmas[vma].pte[p];
            if (pte_present(pte)) {
                p += k.touch_present(mm, vma, p);
                continue;
            }
            p += k.handle_mm_fault(c, mm, vma, p, write);
            faults++;
        }
        c.flush();
        return faults;
    }
    Kernel k;
    uint32_t mm = 0, vma = 0, n = 0;
    int pid = 0;
    TestClock clk;
};

}  // namespace

TEST_CASE("zram: the pool is machine RAM, not the memcg's", "[zram]")
{
    World w(zram_config());
    Ctx c(w.k, w.task(), w.clk);
    w.touch(c, true);
    const int64_t charged_written = w.k.memcg.memory.usage;
    REQUIRE(w.k.memcg.anon_pages == 64);
    w.k.madvise_pageout(c, w.mm, w.vma, 0, 64);
    c.flush();
    const mm::Zram& z = *w.k.zram;
    CHECK(w.k.vm[mm::PSWPOUT] == 64);
    CHECK(z.stats().pages_stored == 64);
    CHECK(z.stats().compr_data_size == 64 * unsigned(0.30 * PAGE_SIZE + 0.999));
    REQUIRE(z.pool().pool_pages() > 0);
    // memory.current lost the 64 pages written and gained nothing for the compressed copies...
    CHECK(w.k.memcg.anon_pages == 0);
    CHECK(w.k.memcg.kmem_pages == 0);
    CHECK(w.k.memcg.memory.usage == charged_written - 64);
    // ... which are in RAM all the same.
    CHECK(w.k.ram_pages() == uint64_t(w.k.memcg.pagetable_pages) + z.pool().pool_pages());
    CHECK(w.k.ram_peak_pages() >= 64);
    // Reading back frees zram's copies (swap_free_nr -> zram_slot_free_notify).
    w.touch(c, false);
    CHECK(z.stats().pages_stored == 0);
    CHECK(z.pool().pool_pages() == 0);
    CHECK(w.k.check_invariants() == "");
}

TEST_CASE("zsmalloc: a 64K folio is stored as four order-2 objects with multi-page order 2", "[zram][zsmalloc]")
{
    for (unsigned order : {0u, 2u}) {
        World w(zram_config(order), 16);
        Ctx c(w.k, w.task(), w.clk);
        w.touch(c, true);
        REQUIRE(w.k.vm.mthp[4][mm::MTHP_STAT_ANON_FAULT_ALLOC] == 1);
        w.k.madvise_pageout(c, w.mm, w.vma, 0, 16);
        c.flush();
        const mm::Zram& z = *w.k.zram;
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPOUT] == 1);
        if (order == 0) {
            CHECK(z.stats().objects == 16);
            CHECK(z.stats().multi_objects == 0);
            continue;
        }
        CHECK(z.stats().objects == 4);
        CHECK(z.stats().multi_objects == 4);
        const mm::ZsPool& pool = z.pool();
        for (unsigned i = 0; i < 16; i++) {
            const mm::Zram::Obj* o = z.object(w.k.mms[w.mm].vmas[w.vma].pte[i] & ~PTE_SWAP);
            REQUIRE(o);
            CHECK(o->nr == 4);
            CHECK(o->len == unsigned(4 * 0.30 * PAGE_SIZE + 0.999));
            CHECK(pool.cls(unsigned(o->cls)).order == 2);              // zspage of 16 KiB pages
            CHECK(pool.cls(unsigned(o->cls)).size > PAGE_SIZE);        // a multi-page class
        }
        // The four objects of 4915 B share a zspage chain of order-2 pages: pool pages are a
        // multiple of 4.
        CHECK(pool.pool_pages() % 4 == 0);
        w.touch(c, false);
        CHECK(z.stats().objects == 0);
        CHECK(pool.pool_pages() == 0);
    }
}

TEST_CASE("zram: a same-filled page costs no pool space", "[zram]")
{
    KConfig cfg = zram_config();
    cfg.zram.data.zero_share = 1.0;
    World w(cfg);
    Ctx c(w.k, w.task(), w.clk);
    w.touch(c, true);
    w.k.madvise_pageout(c, w.mm, w.vma, 0, 64);
    c.flush();
    const mm::Zram& z = *w.k.zram;
    CHECK(z.stats().same_pages == 64);
    CHECK(z.stats().pages_stored == 64);
    CHECK(z.stats().compr_data_size == 0);
    CHECK(z.stats().objects == 0);
    CHECK(z.pool().pool_pages() == 0);
    w.touch(c, false);   // zram_fill_page
    CHECK(w.k.vm[mm::PSWPIN] == 64);
    CHECK(z.stats().same_pages == 0);
}

TEST_CASE("large-folio swap-in: whole 64K folios from zram, and the fallbacks to order 0", "[zram][swapin]")
{
    auto swapped_out = [](World& w, Ctx& c) {
        w.touch(c, true);
        w.k.madvise_pageout(c, w.mm, w.vma, 0, w.n);
        c.flush();
        REQUIRE(w.k.vm[mm::PSWPOUT] + w.k.vm[mm::ZSWPOUT] == w.n);
    };
    SECTION("contiguous entries of one device: one fault per 64K folio")
    {
        World w(zram_config());
        Ctx c(w.k, w.task(), w.clk);
        swapped_out(w, c);
        CHECK(w.touch(c, false) == 4);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN] == 4);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN_FALLBACK] == 0);
        CHECK(w.k.vm[mm::PSWPIN] == 64);
        CHECK(w.k.vm[mm::PGMAJFAULT] == 4);
    }
    SECTION("zswap enabled earlier since boot (off now): every swap-in order 0, no fallback counted")
    {
        KConfig cfg = zram_config();
        cfg.zswap_ever = true;   // zswap_never_enabled() is false for the rest of the boot
        World w(cfg);
        Ctx c(w.k, w.task(), w.clk);
        swapped_out(w, c);
        CHECK(w.touch(c, false) == 64);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN] == 0);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN_FALLBACK] == 0);
        CHECK(w.k.vm[mm::PSWPIN] == 64);
    }
    SECTION("no free 64K block (fragmented memory): order 0, swpin_fallback counted")
    {
        KConfig cfg = zram_config();
        World w(cfg);
        Ctx c(w.k, w.task(), w.clk);
        swapped_out(w, c);
        w.k.alloc_fail_share = 1.0;   // kernel.mthp.alloc_fail_percent = 100 from now on
        CHECK(w.touch(c, false) == 64);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN] == 0);
        // Counted once per 64K range: after its first page is in, the range is mixed.
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN_FALLBACK] == 4);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN_FALLBACK_CHARGE] == 0);
        CHECK(w.k.vm[mm::PSWPIN] == 64);
        CHECK(w.k.check_invariants() == "");
    }
    SECTION("memcg at memory.max: the large charge fails, swpin_fallback_charge counted")
    {
        KConfig cfg = zram_config();
        cfg.memcg_max = 28;
        World w(cfg, 16);
        Ctx c(w.k, w.task(), w.clk);
        swapped_out(w, c);
        // Another 12 pages (4K folios: the VMA is too small for 64K) leave less than 16 pages
        // of room below memory.max.
        uint32_t other = w.k.vma_create(w.mm, 12);
        for (uint32_t p = 0; p < 12; p++)
            w.k.handle_mm_fault(c, w.mm, other, p, true);
        c.flush();
        REQUIRE(w.k.memcg.memory.usage + 16 > 28);
        w.touch(c, false);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN] == 0);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN_FALLBACK_CHARGE] >= 1);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN_FALLBACK] == w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN_FALLBACK_CHARGE]);
        CHECK(w.k.check_invariants() == "");
    }
    SECTION("mixed entries (not contiguous): order 0 without a fallback count, as can_swapin_thp")
    {
        World w(zram_config());
        Ctx c(w.k, w.task(), w.clk);
        swapped_out(w, c);
        auto& pte = w.k.mms[w.mm].vmas[w.vma].pte;
        const pte_t p0 = pte[0];   // each PTE still holds one slot, but out of order
        pte[0] = pte[1];
        pte[1] = p0;
        CHECK(w.touch(c, false) == 16 + 3);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN] == 3);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN_FALLBACK] == 0);
        CHECK(w.k.check_invariants() == "");
    }
    SECTION("zswap was enabled: order 0 (zswap cannot load large folios)")
    {
        KConfig cfg = zram_config();
        cfg.zswap = true;
        cfg.comp = {"test", 1024, 0, 0};
        World w(cfg);
        Ctx c(w.k, w.task(), w.clk);
        swapped_out(w, c);
        CHECK(w.touch(c, false) == 64);
        CHECK(w.k.vm.mthp[4][mm::MTHP_STAT_SWPIN] == 0);
    }
}
