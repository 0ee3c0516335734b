// fork, copy-on-write and the anon_vma reverse map of shared folios.
//
// Models (mm/memory.c, mm/rmap.c, v6.12): dup_mm/copy_page_range: the child gets a copy of
// each VMA chained to the parent's anon_vma; copy_present_pte shares each anon folio
// (folio_try_dup_anon_rmap_pte: mapcount + 1) and write-protects the PTE in parent and child;
// copy_nonpresent_pte takes another reference on each swap entry (swap_duplicate: swap count
// + 1) and both PTEs lose the exclusive bit. do_wp_page on a write to a write-protected PTE:
// wp_can_reuse_anon_folio (no other mapper, and the swap cache can let go of the folio: no
// other swap reference) -> wp_page_reuse; else wp_page_copy (a new charged page, copied,
// mapped writable; the old folio loses this mapping). The rmap of a folio visits every VMA of
// its anon_vma (rmap_walk_anon), so its cost grows with the VMAs forked from one another.
// Granularity: per PTE. Leaves out: large folios shared by fork (refused: forked mms here hold
// order-0 anon folios only), PMD-mapped THP, KSM, pinned pages (copied at fork), MADV_DONTFORK,
// vfork, the per-page PageAnonExclusive bit (exclusive = mapcount 1 and no other swap ref).
#include <algorithm>
#include <stdexcept>

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

using namespace mm;

void Kernel::reserve(size_t tasks, size_t nr_mms)
{
    tasks_.reserve(tasks + size_t(nr_nodes()) + 1);   // + kthreads(): kswapd per node, oom_reaper
    mms.reserve(nr_mms);
    tables_pinned_ = true;
}

// Past reserve(), running tasks hold references into the task and mm tables: growing them
// would move every entry under those references.
void Kernel::check_table_room(size_t size, size_t capacity, const char* what) const
{
    if (tables_pinned_ && size == capacity)
        throw std::logic_error(std::string("Kernel::reserve counted too few ") + what +
                               " for this workload: the table would move under running tasks");
}

uint32_t Kernel::shmem_create(uint64_t npages)
{
    uint32_t mm_id = mm_create(-1, -1);
    uint32_t vi = vma_create(mm_id, npages);
    mms[mm_id].vmas[vi].shmem = true;
    return mm_id;
}

const std::vector<uint32_t>* Kernel::anon_vma_members(const Folio& fo) const
{
    if (anon_vma_.empty())
        return nullptr;
    auto [mm_id, vi] = vma_ref_[fo.owner];
    auto it = anon_vma_.find(mms[mm_id].vmas[vi].anon_vma);
    return it == anon_vma_.end() ? nullptr : &it->second;
}

unsigned Kernel::rmap_vmas(const Folio& fo) const
{
    if (!fo.anon()) {   // rmap_walk_file: every VMA on the file's i_mmap
        auto [mm_id, vi] = vma_ref_[fo.owner];
        return std::max<unsigned>(1, unsigned(files_[mms[mm_id].vmas[vi].file - 1].i_mmap.size()));
    }
    const std::vector<uint32_t>* m = anon_vma_members(fo);
    return m ? unsigned(m->size()) : 1u;
}

unsigned Kernel::mapcount(folio_t f) const
{
    const Folio& fo = folios[f];
    return fo.test(PG_mapped) ? 1u + fo.shared : 0u;
}

template <class Fn>
void Kernel::for_each_mapping(folio_t f, Fn&& fn)
{
    const Folio& fo = folios[f];
    const std::vector<uint32_t>* members = anon_vma_members(fo);
    if (!members) {
        auto [mm_id, vi] = vma_ref_[fo.owner];
        fn(mms[mm_id], mms[mm_id].vmas[vi]);
        return;
    }
    for (uint32_t id : *members) {
        auto [mm_id, vi] = vma_ref_[id];
        Vma& v = mms[mm_id].vmas[vi];
        if (fo.index < v.pte.size() && pte_present(v.pte[fo.index]) && pte_folio(v.pte[fo.index]) == f)
            fn(mms[mm_id], v);
    }
}

// try_to_unmap: every mapping of the folio becomes its swap entry, one swap reference each.
void Kernel::try_to_unmap(Ctx& c, folio_t f)
{
    Folio& fo = folios[f];
    unsigned nr = fo.nr_pages();
    if (!fo.anon()) {   // a file folio: every mapper's PTE is cleared (it refaults from the page cache)
        auto [cmm, cvi] = vma_ref_[fo.owner];
        const FileMapping& fm = files_[mms[cmm].vmas[cvi].file - 1];
        unsigned maps = 0;
        for (uint32_t id : fm.i_mmap) {
            auto [mm_id, vi] = vma_ref_[id];
            Vma& v = mms[mm_id].vmas[vi];
            if (pte_present(v.pte[fo.index]) && pte_folio(v.pte[fo.index]) == f) {
                v.pte[fo.index] = PTE_NONE;
                mms[mm_id].rss_file -= nr;
                maps++;
            }
        }
        c.sys(cfg_.c.rmap_walk + cfg_.c.rmap_per_vma * (rmap_vmas(fo) - 1) + cfg_.c.rmap_per_pte * nr * maps);
        fo.shared = 0;
        fo.clear(PG_mapped);
        fo.clear(PG_young);
        return;
    }
    unsigned maps = 0;
    for_each_mapping(f, [&](MmStruct& m, Vma& v) {
        maps++;
        for (unsigned i = 0; i < nr; i++)
            v.pte[fo.index + i] = mk_swp_pte(fo.swap + i);
        swap->dup(fo.swap, nr);
        m.rss_anon -= nr;
        m.swapents += nr;
    });
    c.sys(cfg_.c.rmap_walk + cfg_.c.rmap_per_vma * (rmap_vmas(fo) - 1) + cfg_.c.rmap_per_pte * nr * maps);
    fo.shared = 0;
    fo.clear(PG_mapped);
    fo.clear(PG_young);
}

void Kernel::tlb_flush_dirty(Ctx& c, folio_t f)
{
    // try_to_unmap_flush_dirty: the unmapped PTEs may be cached in the TLBs of the mappers'
    // CPUs; the reclaimer IPIs each CPU running one and waits for it.
    const Costs& k = cfg_.c;
    auto flush_one = [&](const MmStruct& m) {
        if (m.owner_task == c.task.pid || m.owner_task < 0 || !tasks_[size_t(m.owner_task)].running) {
            c.sys(k.tlb_irq, "try_to_unmap_flush_dirty");
            return;
        }
        c.sys(k.tlb_flush, "try_to_unmap_flush_dirty");   // the IPI and the wait for it
        tasks_[size_t(m.owner_task)].stolen += k.tlb_irq;
    };
    const Folio& fo = folios[f];
    const std::vector<uint32_t>* members = anon_vma_members(fo);
    if (!members) {
        flush_one(mms[vma_ref_[fo.owner].first]);
        return;
    }
    for (uint32_t id : *members) {   // the mms that mapped it (their PTEs now hold the entry)
        auto [mm_id, vi] = vma_ref_[id];
        const Vma& v = mms[mm_id].vmas[vi];
        if (fo.index < v.pte.size() && v.pte[fo.index] == mk_swp_pte(fo.swap))
            flush_one(mms[mm_id]);
    }
}

uint32_t Kernel::fork_mm(Ctx& c, uint32_t parent, int child_task, int child_cpu)
{
    const Costs& k = cfg_.c;
    if (mms.size() == mms.capacity() || tasks_.size() == tasks_.capacity())
        throw std::logic_error("fork_mm: no room reserved for another task and mm (Kernel::reserve)");
    uint32_t child = mm_create(child_task, child_cpu);
    c.sys(k.fork_mm);
    for (uint32_t vi = 0; vi < mms[parent].vmas.size(); vi++) {
        uint32_t cvi = vma_create(child, mms[parent].vmas[vi].pte.size());
        Vma& pv = mms[parent].vmas[vi];
        Vma& cv = mms[child].vmas[cvi];
        MmStruct& pm = mms[parent];
        MmStruct& cm = mms[child];
        cv.anon_vma = pv.anon_vma;
        cv.data_gen = pv.data_gen;
        std::vector<uint32_t>& members = anon_vma_[pv.anon_vma];
        if (members.empty())
            members.push_back(pv.id);
        members.push_back(cv.id);
        // The child's page tables: one per PMD range the parent has (charged, zeroed).
        for (size_t pmd = 0; pmd < pv.pte_table.size(); pmd++) {
            if (!pv.pte_table[pmd])
                continue;
            if (!charge_pages(c, 1, memcg.pagetable_pages))
                throw std::runtime_error("memcg OOM: memory.max reached and reclaim made no progress");
            alloc_pages(c, 0, node_of_cpu(c.task.cpu));
            c.mem(double(PAGE_SIZE), k.zero_bw, true);
            cv.pte_table[pmd] = true;
        }
        for (size_t i = 0; i < pv.pte.size(); i++) {
            pte_t p = pv.pte[i];
            if (p == PTE_NONE)
                continue;
            if (pte_swap(p)) {
                swap->dup(pte_offset(p), 1);   // swap_duplicate
                cv.pte[i] = p;
                cm.swapents++;
                cow.fork_swap_ptes++;
                c.sys(k.fork_per_swap_pte);
                continue;
            }
            folio_t f = pte_folio(p);
            Folio& fo = folios[f];
            if (fo.order)
                throw std::runtime_error("fork of a large anon folio is not modelled (use 4K folios: kernel.mthp)");
            if (fo.shared == 254)
                throw std::runtime_error("fork: more than 255 mms map one folio");
            fo.shared++;
            pv.pte[i] = p | PTE_WP;
            cv.pte[i] = p | PTE_WP;
            cm.rss_anon++;
            cow.fork_ptes++;
            c.sys(k.fork_per_pte);
        }
        (void)pm;
    }
    return child;
}

void Kernel::mm_drop(uint32_t mm_id)
{
    for (Vma& v : mms[mm_id].vmas) {   // the VMAs are gone: their memory too
        if (anon_vma_.count(v.anon_vma))
            v.pte.assign(v.pte.size(), PTE_NONE);   // still walked by the anon_vma's rmap
        else
            v.pte.release();
        std::vector<bool>().swap(v.pte_table);
    }
}

// A write to a write-protected PTE: reuse the folio if this is its only mapping and no other
// swap reference can read it back from the swap cache; else copy it.
unsigned Kernel::do_wp_page(Ctx& c, MmStruct& m, Vma& v, uint32_t idx)
{
    const Costs& k = cfg_.c;
    const pte_t orig = v.pte[idx];
    folio_t f = pte_folio(orig);
    {
        Folio& fo = folios[f];
        bool other_swap_ref = fo.test(PG_swapcache) && swap->count(fo.swap) > 0;
        if (fo.shared == 0 && !other_swap_ref) {   // wp_page_reuse
            if (fo.test(PG_swapcache))
                swap_cache_del(c, f);   // folio_free_swap: no PTE refers to the entry
            folios[f].set(PG_dirty);
            folios[f].set(PG_young);
            v.pte[idx] = mk_pte(f);
            c.sys(k.fault_per_pte);
            cow.reuses++;
            return 1;
        }
    }
    // wp_page_copy: the charge may reclaim, and reclaim may unmap the old folio meanwhile.
    if (!charge_folio(c, 1))
        throw std::runtime_error("memcg OOM: memory.max reached and reclaim made no progress");
    if (v.pte[idx] != orig) {   // !pte_same: give the page back, let the caller fault again
        memcg.uncharge(1);
        memcg.anon_pages -= 1;
        return 0;
    }
    folio_t nf = alloc_folio(c, 0, node_of_cpu(c.task.cpu), true, v.id, idx);
    c.mem(double(PAGE_SIZE), k.cow_copy_bw, true);
    Folio& nfo = folios[nf];
    nfo.set(PG_young);
    nfo.set(PG_mapped);
    nfo.set(PG_dirty);
    lru_add(c, nf);
    v.pte[idx] = mk_pte(nf);
    c.sys(k.fault_per_pte);
    cow.copies++;
    // The old folio loses this mapping (folio_remove_rmap_pte).
    Folio& fo = folios[f];
    if (fo.shared) {
        fo.shared--;
    } else {
        fo.clear(PG_mapped);   // left in the swap cache for the other swap references
        if (fo.test(PG_isolated))
            fo.set(PG_orphan);
    }
    (void)m;
    return 1;
}

}  // namespace swapsim::kernel
