// A file on the root disk in the page cache (kernel/filemap.cpp): its folios on the file LRU,
// charged as file pages, mapped by several processes, dropped clean by reclaim and refaulted.
#include <catch2/catch.hpp>

#include "kconfig_fixture.hpp"

#include "kernel/kernel.hpp"
#include "test_clock.hpp"

using namespace swapsim;
using namespace swapsim::kernel;
using mm::PAGE_SIZE;

namespace {

// No swap device: reclaim can free only file pages, so any anon swap-out would be a bug.
KConfig file_config(uint64_t memcg_max)
{
    KConfig cfg = swapsim_test::small_config();
    cfg.dev = SwapDev::None;
    cfg.zswap = false;
    cfg.memcg_max = memcg_max;
    cfg.c.fault = 1e-6;
    return cfg;
}

struct Proc {
    Proc(Kernel& k, uint32_t file, uint64_t anon_pages) : k(k)
    {
        mm = k.mm_create(int(k.nr_tasks()), 0);
        pid = k.task_create(0, mm);
        text = k.file_mmap(mm, file);
        anon = k.vma_create(mm, anon_pages);
    }
    Task& task() { return k.task(pid); }
    // Read (execute) pages [first, first + n) of the file mapping: faults as a user loop takes them.
    void exec(Ctx& c, uint32_t first, uint32_t n)
    {
        for (uint32_t p = first; p < first + n;) {
            pte_t pte = k.mms[mm].vmas[text].pte[p];
            p += pte_present(pte) ? k.touch_present(mm, text, p) : k.handle_mm_fault(c, mm, text, p, false);
        }
        c.flush();
    }
    void write(Ctx& c, uint32_t first, uint32_t n)
    {
        for (uint32_t p = first; p < first + n;)
            p += k.handle_mm_fault(c, mm, anon, p, true);
        c.flush();
    }
    Kernel& k;
    uint32_t mm = 0, text = 0, anon = 0;
    int pid = 0;
};

// b maps and reads pages [first, first + n) of the file, then exits: they stay cached, unmapped.
void cache_then_exit(Kernel& k, TestClock& clk, Proc& b, uint32_t first, uint32_t n)
{
    Ctx c(k, b.task(), clk);
    b.exec(c, first, n);
    k.exit_mmap(c, b.mm);
}

bool cached(const Kernel& k, uint32_t file, uint32_t first, uint32_t n)
{
    for (uint32_t i = first; i < first + n; i++)
        if (k.file_folio(file, i) == mm::NO_FOLIO)
            return false;
    return true;
}

}  // namespace

TEST_CASE("file pages: read-around charges them as file, they count in memory.current, a second mapper's fault is minor",
          "[filemap]")
{
    Kernel k(file_config(UINT64_MAX));
    TestClock clk;
    const uint32_t file = k.file_create(128);
    Proc a(k, file, 64), b(k, file, 64);
    {
        Ctx c(k, a.task(), clk);
        a.exec(c, 0, 128);
    }
    const uint64_t major = k.vm[mm::PGMAJFAULT];
    CHECK(major >= 4);     // 128 pages in windows of at most 32
    CHECK(major <= 8);
    CHECK(k.filestat.read_pages == 128);
    CHECK(clk.slept > 0);   // the reads are IO wait, off CPU
    CHECK(k.file_cached_pages(file) == 128);
    CHECK(k.memcg.stat().file == 128 * PAGE_SIZE);
    CHECK(k.memcg.file_pages == 128);
    CHECK(k.memcg.memory.usage >= 128);
    CHECK(k.lruvec[0].nr_pages(mm::LRU_INACTIVE_FILE) == 128);
    {
        Ctx c(k, b.task(), clk);
        b.exec(c, 0, 128);   // all cached: fault-around maps 16 at a time, no read
    }
    CHECK(k.vm[mm::PGMAJFAULT] == major);
    CHECK(k.filestat.read_pages == 128);
    CHECK(k.memcg.file_pages == 128);   // shared: charged once
    CHECK(k.mms[b.mm].rss_file == 128);
    CHECK(k.mapcount(k.file_folio(file, 5)) == 2);
    CHECK(k.check_invariants() == "");
    CHECK(k.check_at_yield() == "");
}

TEST_CASE("file pages: reclaim drops clean file folios without swap-out, a refault is a major fault with a shadow",
          "[filemap]")
{
    Kernel k(file_config(256));
    TestClock clk;
    const uint32_t file = k.file_create(128);
    Proc a(k, file, 512), b(k, file, 64);
    cache_then_exit(k, clk, b, 0, 128);   // the page cache keeps b's folios, unmapped
    CHECK(k.file_cached_pages(file) == 128);
    CHECK(k.memcg.file_pages == 128);
    const uint64_t major = k.vm[mm::PGMAJFAULT];
    {
        Ctx c(k, a.task(), clk);
        a.write(c, 0, 200);   // 128 file + 200 anon + page tables > 256: file pages must go
    }
    CHECK(k.vm[mm::PGSTEAL_FILE] > 0);
    CHECK(k.vm[mm::PGSTEAL_FILE] == k.filestat.evicted);
    CHECK(k.vm[mm::PSWPOUT] + k.vm[mm::ZSWPOUT] == 0);
    CHECK(k.file_cached_pages(file) == 128 - k.filestat.evicted);
    CHECK(k.memcg.file_pages == int64_t(k.file_cached_pages(file)));
    CHECK(k.check_invariants() == "");
    uint32_t gone = 0;
    while (k.file_folio(file, gone) != mm::NO_FOLIO)
        gone++;
    REQUIRE(gone < 128);
    {
        Ctx c(k, a.task(), clk);
        a.exec(c, gone, 1);   // read back from the disk
    }
    CHECK(k.vm[mm::PGMAJFAULT] == major + 1);
    CHECK(k.vm[mm::WORKINGSET_REFAULT_FILE] >= 1);
    CHECK(k.file_folio(file, gone) != mm::NO_FOLIO);
    CHECK(k.check_invariants() == "");
}

TEST_CASE("file pages: a referenced exec-mapped folio is activated and stays while an unreferenced one is freed",
          "[filemap]")
{
    Kernel k(file_config(256));
    TestClock clk;
    const uint32_t file = k.file_create(128);
    Proc a(k, file, 512), b(k, file, 64);
    {
        Ctx ca(k, a.task(), clk);
        a.exec(ca, 0, 64);   // pages 0..63: a maps them (young PTEs), at the inactive list's tail
    }
    cache_then_exit(k, clk, b, 64, 64);   // pages 64..127: cached, unmapped
    REQUIRE(cached(k, file, 0, 128));
    // a writes its heap in steps and executes its text between them (as a compile job does),
    // until the first reclaim call.
    uint32_t written = 0;
    while (!k.filestat.evicted && written < 180) {
        Ctx c(k, a.task(), clk);
        a.write(c, written, 4);
        written += 4;
        if (!k.filestat.evicted)
            a.exec(c, 0, 64);
    }
    REQUIRE(k.filestat.evicted > 0);
    // folio_check_references: the exec-mapped, referenced folios went to the active list on
    // their first reference; the unmapped ones, scanned after them, are what reclaim freed.
    // (Kept on the inactive list instead, as a once-referenced anon folio is, they would have
    // been freed by the next pass: their young bits were cleared and a did not run in between.)
    REQUIRE(cached(k, file, 0, 64));
    CHECK(!cached(k, file, 64, 64));
    unsigned active = 0;
    for (uint32_t i = 0; i < 64; i++)
        active += k.folios[k.file_folio(file, i)].lru == mm::LRU_ACTIVE_FILE;
    CHECK(active >= 32);
    // More pressure while a keeps executing its text: shrink_active_list rotates referenced
    // exec folios (they stay active) and only b's unmapped pages go.
    for (; written < 180; written += 4) {
        Ctx c(k, a.task(), clk);
        a.write(c, written, 4);
        a.exec(c, 0, 64);
    }
    CHECK(cached(k, file, 0, 64));
    CHECK(k.filestat.evicted > 40);
    CHECK(k.vm[mm::PGDEACTIVATE] < k.vm[mm::PGREFILL]);   // rotated, not deactivated
    CHECK(k.vm[mm::PSWPOUT] + k.vm[mm::ZSWPOUT] == 0);
    CHECK(k.check_invariants() == "");
}
