// munmap / exit_mmap of anonymous memory.
//
// Models: zap_pte_range over every VMA: present folios are taken off the LRU (lru_lock) and
// freed (uncharged); swap PTEs go through free_swap_and_cache_nr in runs of contiguous entries
// of one cluster: the reference is dropped, the slot freed (through the per-CPU return cache
// for order-0 entries), its zswap entry invalidated; a cached folio that is not under
// writeback is reclaimed with it (__try_to_reclaim_swap). The run's swap metadata was last
// written at swap-out: each line it touches is a miss (cost.zap.cold_line_ns, counted by
// Kernel::zap_swap_lines; under ci->lock, or the XArray's xa_lock for the shadows it clears).
// A folio another mm still maps (fork) only loses this mapping.
// free_pgtables then frees and uncharges the VMA's page-table pages.
// Granularity: per folio and per run of swap entries; the time is run every sim.reclaim_slice.
// A file mapping (filemap.cpp) only loses its PTEs (zap_pte_range's folio_remove_rmap; a young
// PTE's folio_mark_accessed sets PG_referenced) and leaves the file's i_mmap: its folios stay in
// the page cache.
// Leaves out: the final TLB flush, mmap_lock.
//
// Yield points: exit_mmap_vma runs its time every sim.reclaim_slice (zap_pmd_range's
// cond_resched): the PTEs zapped so far are none, their rss and swap counts dropped, their
// folios freed or, when a reclaimer holds them isolated, marked orphaned for it to free; the
// mm and VMA are looked up again after it.

#include <algorithm>

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

using namespace mm;

// The last reference of an unmapped folio: out of the swap cache, off the LRU, freed.
// folios_put_refs takes the lru_lock once per batch of folios (PAGEVEC_SIZE).
void Kernel::release_folio(Ctx& c, folio_t f)
{
    Folio& fo = folios[f];
    if (fo.test(PG_swapcache))
        swap_cache_del(c, f);
    if (fo.lru != LRU_NONE) {
        int nid = fo.nid;
        lruvec[size_t(nid)].del(f);
        if (++c.task.lru_release_pending >= cfg_.lru_add_batch) {
            c.lock(lru_lock_[size_t(nid)],
                   cfg_.c.lru_lock_base + cfg_.c.isolate_per_folio * double(c.task.lru_release_pending));
            c.task.lru_release_pending = 0;
        }
    }
    free_folio(c, f);
}

void Kernel::exit_mmap(Ctx& c, uint32_t mm_id)
{
    c.sys(cfg_.c.exit_mm);
    for (uint32_t v = 0; v < mms[mm_id].vmas.size(); v++)
        exit_mmap_vma(c, mm_id, v);
}

void Kernel::exit_mmap_vma(Ctx& c, uint32_t mm_id, uint32_t vma)
{
    const Costs& k = cfg_.c;
    if (mms[mm_id].vmas[vma].file) {   // a file mapping: its PTEs go, the page cache keeps the folios
        MmStruct& m = mms[mm_id];
        Vma& v = m.vmas[vma];
        unsigned n = 0;
        for (size_t i = 0; i < v.pte.size(); i++) {
            const pte_t p = v.pte[i];
            if (!pte_present(p))
                continue;
            Folio& fo = folios[pte_folio(p)];
            if (fo.test(PG_young))   // zap_present_pte: a young PTE marks the folio accessed
                fo.set(PG_referenced);
            if (fo.shared) {
                fo.shared--;
            } else {
                fo.clear(PG_mapped);
                fo.clear(PG_young);
            }
            v.pte[i] = PTE_NONE;
            n++;
        }
        m.rss_file -= n;
        c.sys((k.zap_per_pte + k.zap_per_folio) * n);
        std::vector<uint32_t>& i_mmap = files_[v.file - 1].i_mmap;   // unlink_file_vma
        i_mmap.erase(std::remove(i_mmap.begin(), i_mmap.end(), v.id), i_mmap.end());
        free_pgtables(c, v);
        return;
    }
    {
        size_t n = mms[mm_id].vmas[vma].pte.size();
        for (size_t i = 0; i < n;) {
            // zap_pmd_range's cond_resched: run the planned time now and then (the refs are
            // taken again after it, as other tasks ran).
            if (c.slice_over(cfg_.reclaim_slice))
                c.flush();
            MmStruct& m = mms[mm_id];
            Vma& v = m.vmas[vma];
            pte_t p = v.pte[i];
            if (p == PTE_NONE) {
                i++;
                continue;
            }
            if (pte_present(p)) {
                folio_t f = pte_folio(p);
                Folio& fo = folios[f];
                unsigned nr = fo.nr_pages();
                size_t end = std::min<size_t>(n, fo.index + nr);
                for (size_t j = i; j < end; j++)
                    v.pte[j] = PTE_NONE;
                c.sys(k.zap_per_pte * double(end - i) + k.zap_per_folio);
                m.rss_anon -= end - i;
                i = end;
                if (fo.shared) {   // another mm still maps it (fork)
                    fo.shared--;
                    continue;
                }
                fo.clear(PG_mapped);
                if (fo.test(PG_isolated)) {   // a reclaimer's reference outlives ours
                    fo.set(PG_orphan);
                    continue;
                }
                release_folio(c, f);
                continue;
            }
            // A run of swap entries, contiguous in one cluster.
            swp_offset_t off = pte_offset(p);
            size_t j = i + 1;
            while (j < n && v.pte[j] == mk_swp_pte(off + swp_offset_t(j - i)) &&
                   (off + (j - i)) % SWAPFILE_CLUSTER != 0)
                j++;
            unsigned nr = unsigned(j - i);
            for (size_t q = i; q < j; q++)
                v.pte[q] = PTE_NONE;
            m.swapents -= nr;
            c.sys(k.zap_per_swap * nr);
            const ZapLines cold = zap_swap_lines(off, nr);
            swap_free_slots(c, off, nr, &cold);
            // __try_to_reclaim_swap: a cached folio left unreferenced goes with the entry.
            for (unsigned q = 0; q < nr; q++) {
                folio_t f = swap->cache_folio(off + q);
                if (f == NO_FOLIO)
                    continue;
                Folio& fo = folios[f];
                if (fo.test(PG_writeback) || fo.test(PG_mapped) || fo.test(PG_isolated))
                    continue;
                if (swap->count(fo.swap) != 0)
                    continue;
                release_folio(c, f);
            }
            i = j;
        }
    }
    free_pgtables(c, mms[mm_id].vmas[vma]);
    if (swap) {
        SwapFreeTrace tr;
        free_cpu_ = c.task.cpu;
        swap->flush_free_cache(c.task.cpu, &tr);
        price_slot_frees(c, tr, NO_SWAP);
    }
}

}  // namespace swapsim::kernel
