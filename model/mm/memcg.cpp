#include "mm/memcg.hpp"

#include <algorithm>
#include <stdexcept>

namespace swapsim::mm {

MemCgroup::MemCgroup(int nr_cpus, uint64_t high_pages, uint64_t max_pages, uint64_t swap_max_pages)
    : stock_(size_t(nr_cpus), 0), obj_stock_(size_t(nr_cpus), 0)
{
    memory.high = high_pages;
    memory.max = max_pages;
    swap.max = swap_max_pages;
}

bool MemCgroup::consume_stock(int cpu, unsigned nr_pages)
{
    if (nr_pages > charge_batch)
        return false;
    unsigned& s = stock_[size_t(cpu)];
    if (s < nr_pages)
        return false;
    s -= nr_pages;
    return true;
}

void MemCgroup::refill_stock(int cpu, unsigned nr_pages)
{
    unsigned& s = stock_[size_t(cpu)];
    s += nr_pages;
    if (s > charge_batch) {   // drain_stock
        uncharge(s);
        s = 0;
    }
}

bool MemCgroup::page_counter_try_charge(PageCounter& c, unsigned nr, bool force)
{
    uint64_t after = uint64_t(std::max<int64_t>(c.usage, 0)) + nr;
    if (after > c.max) {
        if (!force)
            return false;
        uint64_t before_over = c.usage > 0 && uint64_t(c.usage) > c.max ? uint64_t(c.usage) - c.max : 0;
        c.forced_over_max += after - c.max - before_over;
    }
    c.usage += nr;
    c.watermark = std::max(c.watermark, c.usage);
    return true;
}

ChargeResult MemCgroup::try_charge(int cpu, unsigned nr_pages, bool force)
{
    ChargeResult r;
    if (consume_stock(cpu, nr_pages)) {
        r.from_stock = true;
        return r;
    }
    unsigned batch = std::max(charge_batch, nr_pages);
    if (!page_counter_try_charge(memory, batch, false)) {
        // retry: with batch > nr_pages, try exactly nr_pages first (as the kernel does)
        if (batch > nr_pages && page_counter_try_charge(memory, nr_pages, false)) {
            batch = nr_pages;
        } else if (force) {
            // force: charged past memory.max, returns without the high check.
            page_counter_try_charge(memory, nr_pages, true);
            r.batch = nr_pages;
            return r;
        } else {
            r.ok = false;
            return r;
        }
    }
    r.batch = batch;
    if (batch > nr_pages)
        refill_stock(cpu, batch - nr_pages);
    // done_restock: the charging task owes reclaim for the whole batch while over high.
    if (over_high())
        r.over_high = batch;
    return r;
}

void MemCgroup::uncharge(unsigned nr_pages)
{
    memory.usage -= nr_pages;
    if (memory.usage < 0)
        throw std::logic_error("memcg usage below zero");
}

void MemCgroup::refill_obj_stock(int cpu, uint64_t nr_bytes, bool allow_uncharge)
{
    uint64_t& b = obj_stock_[size_t(cpu)];
    b += nr_bytes;
    if (allow_uncharge && b > PAGE_SIZE) {
        unsigned pages = unsigned(b >> PAGE_SHIFT);
        b &= PAGE_SIZE - 1;
        kmem_pages -= pages;
        refill_stock(cpu, pages);   // obj_cgroup_uncharge_pages
    }
}

ChargeResult MemCgroup::charge_zswap(int cpu, uint64_t bytes, unsigned nr_entries)
{
    zswap_bytes += bytes;
    zswapped += nr_entries;
    bytes += zswap_entry_charge * nr_entries;
    uint64_t& b = obj_stock_[size_t(cpu)];
    if (b >= bytes) {   // consume_obj_stock
        b -= bytes;
        ChargeResult r;
        r.from_stock = true;
        return r;
    }
    unsigned nr_pages = unsigned(bytes >> PAGE_SHIFT);
    uint64_t rem = bytes & (PAGE_SIZE - 1);
    if (rem)
        nr_pages++;
    // zswap_store runs in reclaim (PF_MEMALLOC): the charge is forced past memory.max.
    ChargeResult r = try_charge(cpu, nr_pages, true);
    kmem_pages += nr_pages;
    if (rem)
        refill_obj_stock(cpu, PAGE_SIZE - rem, false);
    return r;
}

void MemCgroup::uncharge_zswap(int cpu, uint64_t bytes, unsigned nr_entries)
{
    zswap_bytes -= bytes;
    zswapped -= nr_entries;
    refill_obj_stock(cpu, bytes + zswap_entry_charge * nr_entries, true);
}

bool MemCgroup::try_charge_swap(bool have_entry, unsigned nr_pages)
{
    if (!have_entry) {
        events.swap_fail++;
        return false;
    }
    if (!page_counter_try_charge(swap, nr_pages, false)) {
        events.swap_max++;
        events.swap_fail++;
        return false;
    }
    return true;
}

void MemCgroup::uncharge_swap(unsigned nr_pages)
{
    swap.usage -= nr_pages;
    if (swap.usage < 0)
        throw std::logic_error("memcg swap usage below zero");
}

uint64_t MemCgroup::calculate_overage(uint64_t usage, uint64_t high)
{
    if (usage <= high)
        return 0;
    high = std::max<uint64_t>(high, 1);
    unsigned __int128 overage = usage - high;
    overage <<= MEMCG_DELAY_PRECISION_SHIFT;
    overage /= high;
    return uint64_t(std::min<unsigned __int128>(overage, std::numeric_limits<uint64_t>::max()));
}

uint64_t MemCgroup::calculate_high_delay(unsigned nr_pages, uint64_t max_overage, unsigned hz, unsigned batch)
{
    if (!max_overage)
        return 0;
    unsigned __int128 p = (unsigned __int128)max_overage * max_overage * hz;
    p >>= MEMCG_DELAY_PRECISION_SHIFT;
    p >>= MEMCG_DELAY_SCALING_SHIFT;
    p = p * nr_pages / batch;
    return uint64_t(std::min<unsigned __int128>(p, std::numeric_limits<uint64_t>::max() / 4));
}

uint64_t MemCgroup::high_delay_jiffies(unsigned nr_pages, unsigned hz) const
{
    uint64_t u = uint64_t(std::max<int64_t>(memory.usage, 0));
    uint64_t su = uint64_t(std::max<int64_t>(swap.usage, 0));
    uint64_t p = calculate_high_delay(nr_pages, calculate_overage(u, memory.high), hz, charge_batch);
    p += calculate_high_delay(nr_pages, calculate_overage(su, swap.high), hz, charge_batch);
    return std::min<uint64_t>(p, 2ull * hz);   // MEMCG_MAX_HIGH_DELAY_JIFFIES
}

uint64_t MemCgroup::margin() const
{
    uint64_t u = uint64_t(std::max<int64_t>(memory.usage, 0));
    return u < memory.max ? memory.max - u : 0;
}

void MemCgroup::drain_all_stock()
{
    for (unsigned& s : stock_) {
        if (s)
            uncharge(s);
        s = 0;
    }
}

MemcgStat MemCgroup::stat() const
{
    auto bytes = [](int64_t pages) { return uint64_t(std::max<int64_t>(pages, 0)) * PAGE_SIZE; };
    MemcgStat s;
    s.current = bytes(memory.usage);
    s.anon = bytes(anon_pages);
    s.file = bytes(file_pages);
    s.pagetables = bytes(pagetable_pages);
    s.kernel = bytes(kmem_pages + pagetable_pages + slab_pages);
    s.slab_reclaimable = slab_reclaimable_bytes;
    s.slab_unreclaimable = slab_unreclaimable_bytes;
    s.zswap = zswap_bytes;
    s.zswapped = zswapped * PAGE_SIZE;
    return s;
}

int64_t MemCgroup::stock_pages() const
{
    int64_t n = 0;
    for (unsigned s : stock_)
        n += s;
    return n;
}

}  // namespace swapsim::mm
