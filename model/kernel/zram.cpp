// zram as the swap device: zram_write_page / zram_read_page, called synchronously from
// swap_writepage and swap_read_folio (SWP_SYNCHRONOUS_IO: __swap_writepage ->
// swap_writepage_bdev_sync -> zram_submit_bio), and zram_slot_free_notify from swap_range_free.
//
// Models: per block (one page, or 2^CONFIG_ZSMALLOC_MULTI_PAGES_ORDER pages of a large enough
// folio): page_same_filled (stops at the first page that is not), ZRAM_SAME with no pool
// space, zcomp_compress on the per-CPU stream in the reclaiming task, ZRAM_HUGE when the
// result reaches the huge class size, zs_malloc under its class lock and the copy into the
// zspage; a read decompresses the whole object (a 4 KiB read of a 16 KiB object decompresses
// 16 KiB) or fills a same-filled page. Ratio and costs per block size and data kind are the
// measurements of calibration/compressors/table.json (times cost.compress.kernel_factor).
// The pool is charged to no memcg: it counts in Kernel::ram_pages() only.
// Granularity: per block. Leaves out: the per-CPU stream's local lock (uncontended: one
// stream per CPU), the zs_malloc slow path (recompress after sleeping), mem_limit, writeback.
//
// Yield points: zram_write_folio, between the blocks of a large folio: the folio is isolated
// and in the swap cache; the blocks written so far are pool objects in the RAM count.

#include <algorithm>
#include <cmath>

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

using namespace mm;

bool Kernel::page_zero(const Vma& v, uint32_t idx) const
{
    double z = cfg_.zram.data.zero_share;
    if (z <= 0)
        return false;
    if (z >= 1)
        return true;
    double x = (double(idx) + double(v.data_gen) * double(v.pte.size())) * 0.6180339887498949;
    return x - std::floor(x) < z;
}

uint64_t Kernel::ram_pages() const
{
    return folio_pages_ + uint64_t(std::max<int64_t>(0, memcg.pagetable_pages)) +
           uint64_t(std::max<int64_t>(0, memcg.slab_pages)) + zpool.pool_pages() +
           (zram ? zram->pool().pool_pages() : 0);
}

void Kernel::note_ram() { ram_peak_ = std::max(ram_peak_, ram_pages()); }

void Kernel::zram_write_folio(Ctx& c, folio_t f)
{
    const Costs& k = cfg_.c;
    const ZramConfig& z = cfg_.zram;
    const Folio& fo0 = folios[f];
    const unsigned order = fo0.order, nr = fo0.nr_pages();
    const swp_offset_t off = fo0.swap;
    const uint32_t index = fo0.index;
    const auto [mm_id, vi] = vma_ref_[fo0.owner];
    const unsigned bo = z.multi_order && order >= z.multi_order ? z.multi_order : 0, bn = 1u << bo;
    for (unsigned b = 0; b < nr; b += bn) {
        if (c.slice_over(cfg_.reclaim_slice))   // a 2M folio's blocks take a while
            c.flush();
        const Vma& v = mms[mm_id].vmas[vi];
        bool same = true;
        double comp = 0, decomp = 0, bytes = 0;
        for (unsigned i = 0; i < bn; i++) {
            bool zero = page_zero(v, index + b + i);
            if (same) {   // page_same_filled: scans until the first differing word
                c.sys(zero ? z.same_hit : z.same_miss);
                same = zero;
            }
            const BlockCost& bc = (zero ? z.data.zero : z.data.kind)[bo];
            comp += bc.comp_s;
            decomp += bc.decomp_s;
            bytes += bc.ratio * double(PAGE_SIZE);
        }
        c.sys(z.write_page);
        if (same) {
            zram->write(off + b, bn, true, 0);
            continue;
        }
        c.sys(comp);   // zcomp_compress on this CPU's stream
        unsigned len = unsigned(std::max(1.0, std::ceil(bytes)));
        int cls = zram->write(off + b, bn, false, len, decomp);
        const Zram::Obj* o = zram->object(off + b);
        c.lock(zram_class_lock_[size_t(cls)], k.zs_class_hold, 1, 0, "zs_malloc");
        c.sys(double(o->len) / k.zs_copy_bw, "zs_obj_write");
    }
    note_ram();
}

void Kernel::zram_read(Ctx& c, swp_offset_t off, unsigned nr)
{
    const Costs& k = cfg_.c;
    const Zram::Obj* last = nullptr;
    for (unsigned i = 0; i < nr; i++) {
        swp_offset_t s = off + i;
        if (!zram->stored(s))
            continue;
        if (zram->same_filled(s)) {   // zram_fill_page
            c.sys(cfg_.zram.read_page);
            c.mem(double(PAGE_SIZE), k.zero_bw, true, "zram_fill_page");
            continue;
        }
        const Zram::Obj* o = zram->object(s);
        if (o == last)   // the rest of a multi-page object already decompressed
            continue;
        last = o;
        c.sys(cfg_.zram.read_page);
        if (o->huge())
            c.sys(double(o->len) / k.zs_copy_bw, "zs_obj_read");
        else
            c.sys(o->decomp_s, "zcomp_decompress");
    }
}

}  // namespace swapsim::kernel
