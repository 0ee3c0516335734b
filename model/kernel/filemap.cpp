// File-backed page cache on the file LRU: a file on the root block device that processes map
// executable (a toolchain binary such as cc1), its faults, its eviction and its refaults.
//
// Models (v6.12): do_read_fault of a VM_EXEC file mapping: do_fault_around first
// (filemap_map_pages maps the cached pages of the fault_around_bytes = 64 KiB window around the
// fault whose PTEs are none), and only when the faulting page is not cached __do_fault ->
// filemap_fault: a page-cache miss is a major fault (pgmajfault) that reads the mmap read-around
// window (do_sync_mmap_readahead: ra_pages = 32 pages (read_ahead_kb 128) centred on the fault;
// page_cache_ra_unbounded: for each page not cached a folio is allocated, charged to the memcg as
// a file page (memory.stat file), added to the page cache (filemap_add_folio: a folio another
// fault added meanwhile wins, -EEXIST) and to the file LRU (folio_add_lru); one bio for the window
// to KConfig::rootdev) and sleeps on the folio lock until the read completes (IO wait, not sys);
// then the faulting page is mapped (finish_fault). workingset_refault: a page read back whose
// shadow's refault distance (nonresident_age now - at eviction) fits the workingset (active file
// pages, plus anon pages while swap has room: workingset_test_recent) starts on the active list
// (WORKINGSET_ACTIVATE_FILE) and ages nonresident_age; one that was PG_workingset at eviction also
// adds its IO to file_cost (lru_note_cost_refault). __filemap_remove_folio + workingset_eviction
// (reclaim's __remove_mapping of a clean file folio): nonresident_age ages by the folio's pages and
// the slot keeps a shadow entry. lru_note_cost with its decay. The rmap of a file folio
// (rmap_walk_file over i_mmap) is in vmscan.cpp / fork.cpp (try_to_unmap).
// Granularity: per page (per sim.page_unit pages); read-around and fault-around windows in units.
// Costs, the existing ones: the fault (cost.fault, cost.fault_per_pte per PTE mapped), the page
// cache's XArray priced as the swap cache's (cost.swapcache.lookup per lookup and per
// fault-around walk, .add per folio added, .del per folio removed), allocation and charge as an
// anon fault's, the bio (cost.bio.submit + cost.bio.per_folio per folio).
// Leaves out: dirty file pages and their writeback, read(2) of files, async readahead
// (PG_readahead marks), mmap_miss (read-around stops after 100 misses without a hit), large
// folios in the page cache, anon refaults in the cost balance (anon shadows keep no age here:
// anon_cost is swap-outs and rotations only), shadow-node reclaim, a fault on a page whose read is
// still in flight waiting for it (it maps the folio at once), the rootdev's own request queue
// apart from tags.
//
// Yield points (Ctx::flush; other tasks see this state): the memcg charge of a read-around folio
// (reclaim, memcontrol.cpp): nothing of that folio exists yet; submit_bio sleeping for a tag and
// the wait for the read: the window's folios are in the page cache, charged and on the LRU.

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

using namespace mm;

namespace {
constexpr unsigned FILE_RA_PAGES = 32;        // VM_READAHEAD_PAGES: read_ahead_kb 128
constexpr unsigned FAULT_AROUND_PAGES = 16;   // fault_around_bytes 64 KiB
constexpr uint32_t SHADOW_WORKINGSET = 0x80000000u;
constexpr uint32_t SHADOW_AGE = 0x3fffffffu;
}  // namespace

uint32_t Kernel::file_create(uint64_t npages)
{
    uint32_t mm_id = mm_create(-1, -1);
    uint32_t vi = vma_create(mm_id, npages);
    Vma& v = mms[mm_id].vmas[vi];
    v.pagecache = true;
    v.file = uint32_t(files_.size()) + 1;
    FileMapping fm;
    fm.mm = mm_id;
    fm.vma = v.id;
    fm.shadow.assign(size_t(npages), 0);
    files_.push_back(std::move(fm));
    if (!rootdev)
        rootdev = std::make_unique<hw::BlockDevice>(cfg_.rootdev);
    return uint32_t(files_.size() - 1);
}

uint32_t Kernel::file_mmap(uint32_t mm_id, uint32_t file)
{
    FileMapping& fm = files_.at(file);
    uint64_t npages = fm.shadow.size();
    uint32_t vi = vma_create(mm_id, npages);
    Vma& v = mms[mm_id].vmas[vi];
    v.file = file + 1;
    files_[file].i_mmap.push_back(v.id);
    return vi;
}

uint64_t Kernel::file_cached_pages(uint32_t file) const
{
    return mms[files_.at(file).mm].rss_file;
}

folio_t Kernel::file_folio(uint32_t file, uint32_t idx) const
{
    auto [mm_id, vi] = vma_ref_[files_.at(file).vma];
    pte_t p = mms[mm_id].vmas[vi].pte.at(idx);
    return pte_present(p) ? pte_folio(p) : NO_FOLIO;
}

void Kernel::map_file_pte(MmStruct& m, Vma& v, uint32_t idx, folio_t f)
{
    Folio& fo = folios[f];
    if (fo.test(PG_mapped))
        fo.shared++;
    fo.set(PG_mapped);
    fo.set(PG_young);   // x86 maps a faulted (and a faulted-around) PTE young
    v.pte[idx] = mk_pte(f);
    m.rss_file++;
}

unsigned Kernel::filemap_fault(Ctx& c, MmStruct& m, Vma& v, uint32_t idx)
{
    const Costs& k = cfg_.c;
    const uint32_t file = v.file - 1;
    pte_alloc(c, v, idx);
    const unsigned unit = std::max(1u, cfg_.page_unit);
    auto cache = [&]() -> Vma& { auto [mm_id, vi] = vma_ref_[files_[file].vma]; return mms[mm_id].vmas[vi]; };
    // do_fault_around: the cached pages of the aligned window whose PTEs are none.
    {
        const uint32_t win = std::max(1u, FAULT_AROUND_PAGES / unit);
        const uint32_t lo = idx / win * win, hi = uint32_t(std::min<uint64_t>(uint64_t(lo) + win, v.pte.size()));
        c.sys(k.swap_cache_lookup);
        const Vma& pc = cache();
        unsigned mapped = 0;
        for (uint32_t j = lo; j < hi; j++) {
            if (v.pte[j] != PTE_NONE || !pte_present(pc.pte[j]))
                continue;
            map_file_pte(m, v, j, pte_folio(pc.pte[j]));
            mapped++;
        }
        c.sys(k.fault_per_pte * mapped);
        if (v.pte[idx] != PTE_NONE) {
            filestat.minor++;
            return 1;
        }
    }
    // filemap_fault: not cached. do_sync_mmap_readahead's read-around, then the folio lock.
    vm.count(PGMAJFAULT);
    filestat.major++;
    const uint64_t npages = v.pte.size();
    const uint32_t ra = std::max(1u, FILE_RA_PAGES / unit);
    const uint32_t lo = idx > ra / 2 ? idx - ra / 2 : 0;
    const uint32_t hi = uint32_t(std::min<uint64_t>(uint64_t(lo) + ra, npages));
    const int nid = node_of_cpu(c.task.cpu);
    unsigned nread = 0;
    for (uint32_t j = lo; j < hi; j++) {
        if (pte_present(cache().pte[j]))
            continue;
        if (!charge_pages(c, 1, memcg.file_pages))
            throw std::runtime_error("memcg OOM: memory.max reached and reclaim made no progress");
        folio_t f = alloc_folio(c, 0, nid, false, files_[file].vma, j);
        if (pte_present(cache().pte[j])) {   // filemap_add_folio: -EEXIST, another fault read it
            free_folio(c, f);
            continue;
        }
        c.sys(k.swap_cache_add);
        cache().pte[j] = mk_pte(f);
        mms[files_[file].mm].rss_file++;
        const uint32_t shadow = files_[file].shadow[j];
        files_[file].shadow[j] = 0;
        const bool active = shadow && workingset_refault(c, shadow, int(folios[f].nid));
        lru_add(c, f);
        if (active) {
            Lruvec& l = lruvec[folios[f].nid];
            l.del(f);
            l.add(f, LRU_ACTIVE_FILE);
        }
        // The faulting page's folio stays locked through the read (shrink_folio_list's
        // folio_trylock fails) and is then mapped: mapped young now, reclaim keeps it too.
        if (j == idx && v.pte[idx] == PTE_NONE) {
            map_file_pte(m, v, idx, f);
            c.sys(k.fault_per_pte);
        }
        nread++;
    }
    double ready = c.now();
    if (nread) {
        filestat.io_wait_s += c.io_wait_until(rootdev->tag_free_at(c.now()));   // no request tag: submit_bio sleeps
        c.sys(k.bio_submit + k.bio_per_folio * nread);
        ready = rootdev->submit(c.now(), uint64_t(nread) * PAGE_SIZE, false, uint64_t(lo) * PAGE_SIZE);
        filestat.read_pages += nread;
        filestat.reads++;
    }
    filestat.io_wait_s += c.io_wait_until(ready);   // folio_lock: sleep until the read completes
    if (v.pte[idx] != PTE_NONE)
        return 1;
    // Another fault read the page first (-EEXIST): map the cached folio (finish_fault), or, if
    // reclaim took it meanwhile, take the fault again.
    const pte_t slot = cache().pte[idx];
    if (!pte_present(slot))
        return 0;
    map_file_pte(m, v, idx, pte_folio(slot));
    c.sys(k.fault_per_pte);
    return 1;
}

bool Kernel::workingset_refault(Ctx& c, uint32_t shadow, int nid)
{
    vm.count(WORKINGSET_REFAULT_FILE);
    filestat.refaults++;
    LruCost& lc = lru_cost_[size_t(nid)];
    const uint32_t eviction = (shadow & SHADOW_AGE) - 1;
    const uint64_t distance = (uint32_t(lc.nonresident_age) - eviction) & SHADOW_AGE;
    const Lruvec& l = lruvec[size_t(nid)];
    uint64_t workingset = l.nr_pages(LRU_ACTIVE_FILE);
    if (swap && swap->nr_slots() - 1 + cfg_.swapfile_slots > swap->inuse_pages())   // mem_cgroup_get_nr_swap_pages > 0
        workingset += l.nr_pages(LRU_ACTIVE_ANON) + l.nr_pages(LRU_INACTIVE_ANON);
    if (distance > workingset)
        return false;
    lc.nonresident_age += 1;   // workingset_age_nonresident
    lc.activate_file++;
    vm.count(WORKINGSET_ACTIVATE_FILE);
    filestat.refault_activated++;
    if (shadow & SHADOW_WORKINGSET)
        lru_note_cost(&c, nid, true, 1, 0);   // lru_note_cost_refault
    return true;
}

void Kernel::page_cache_del(Ctx& c, folio_t f)
{
    Folio& fo = folios[f];
    auto [mm_id, vi] = vma_ref_[fo.owner];
    Vma& pc = mms[mm_id].vmas[vi];
    c.sys(cfg_.c.swap_cache_del);
    LruCost& lc = lru_cost_[fo.nid];
    lc.nonresident_age += fo.nr_pages();   // workingset_eviction ages first
    files_[pc.file - 1].shadow[fo.index] =
        (uint32_t(lc.nonresident_age & SHADOW_AGE) + 1) | (fo.test(PG_workingset) ? SHADOW_WORKINGSET : 0);
    pc.pte[fo.index] = PTE_NONE;
    mms[mm_id].rss_file -= fo.nr_pages();
    filestat.evicted += fo.nr_pages();
}

void Kernel::lru_note_cost(Ctx* c, int nid, bool file, uint64_t nr_io, uint64_t nr_rotated)
{
    LruCost& lc = lru_cost_[size_t(nid)];
    const double cost = double(nr_io * SWAP_CLUSTER_MAX + nr_rotated);   // in simulated pages, as the sizes
    (file ? lc.file : lc.anon) += cost;
    if (lc.file + lc.anon > double(lruvec[size_t(nid)].total_pages() / 4)) {
        lc.file = std::floor(lc.file / 2);
        lc.anon = std::floor(lc.anon / 2);
    }
    if (c)
        c->lock(lru_lock_[size_t(nid)], cfg_.c.lru_lock_base);
}

}  // namespace swapsim::kernel
