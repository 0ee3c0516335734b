// memcg charging and memory.high enforcement in task context.
//
// Models: try_charge_memcg as called by the fault path, with memory.max reclaim retries and
// OOM; the over-high debt handed to mem_cgroup_handle_over_high on return to user mode (or
// synchronously inside the charge once the debt exceeds MEMCG_CHARGE_BATCH); reclaim_high's
// memory.events high count; the retry-with-SWAP_CLUSTER_MAX loop, MAX_RECLAIM_RETRIES and
// the throttling sleep of calculate_high_delay capped at 2 s.
// Granularity: one reclaim pass per reclaim_high call; the pass's CPU time is run before the
// penalty is computed. Leaves out: hierarchy above the leaf memcg, kworker high_work.
//
// Yield points:
// - try_charge_memcg, after each memory.max reclaim (the flush): the pages requested are not
//   charged yet; the reclaimed folios are uncharged and freed.
// - mem_cgroup_handle_over_high, after each reclaim_high pass (the flush) and in the penalty
//   sleep (block_until, schedule_timeout_killable): the task's over-high debt is taken (zeroed)
//   before the first, as the kernel does, so another task does not pay it again.

#include <algorithm>

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

using namespace mm;

void Kernel::account_charge(Ctx& c, const ChargeResult& r)
{
    if (r.from_stock) {
        c.sys(cfg_.c.charge_stock);
        return;
    }
    c.sys(cfg_.c.charge);
    c.lock(page_counter_, cfg_.c.counter_hold);
    c.task.memcg_nr_pages_over_high += r.over_high;
}

bool Kernel::charge_pages(Ctx& c, unsigned nr_pages, int64_t& stat, bool may_block)
{
    bool drained = false;
    unsigned retries = MAX_RECLAIM_RETRIES;
    for (;;) {
        ChargeResult r = memcg.try_charge(c.task.cpu, nr_pages, c.task.memalloc);
        account_charge(c, r);
        if (r.ok)
            break;
        if (!may_block)   // !gfpflags_allow_blocking: nomem, before the MEMCG_MAX event
            return false;
        // memory.max: reclaim in the charging task, then retry (try_charge_memcg).
        memcg.events.max++;
        unsigned long reclaimed = try_to_free_mem_cgroup_pages(c, nr_pages);
        c.flush();
        if (memcg.margin() >= nr_pages)
            continue;
        if (!drained) {
            memcg.drain_all_stock();
            drained = true;
            continue;
        }
        if (reclaimed && nr_pages <= 8)
            continue;
        if (retries--)
            continue;
        memcg.events.oom++;
        return false;
    }
    stat += nr_pages;
    // Large debts are paid inside the charge, not on return to user mode. v6.12 does this only
    // for a blocking gfp, so a 2M fault's debt waits for the return to user, after the
    // clearing, and is skipped if usage is back under memory.high by then. Modelled so, the
    // 2M runs' reclaim turns slice-sensitive (README, Granularity); the model keeps it here.
    if (c.task.memcg_nr_pages_over_high > cfg_.charge_batch && !c.task.memalloc)
        mem_cgroup_handle_over_high(c);
    return true;
}

void Kernel::resume_user_mode(Ctx& c)
{
    // TIF_NOTIFY_RESUME is set again by charges made during reclaim (zswap's compressed
    // objects): the exit-to-user loop calls back until no debt is left.
    while (c.task.memcg_nr_pages_over_high)
        mem_cgroup_handle_over_high(c);
}

unsigned long Kernel::reclaim_high(Ctx& c, unsigned nr_pages)
{
    if (!memcg.over_high())
        return 0;
    memcg.events.high++;
    return try_to_free_mem_cgroup_pages(c, nr_pages);
}

void Kernel::mem_cgroup_handle_over_high(Ctx& c)
{
    unsigned nr_pages = c.task.memcg_nr_pages_over_high;
    if (!nr_pages)
        return;
    c.task.memcg_nr_pages_over_high = 0;
    int nr_retries = int(MAX_RECLAIM_RETRIES);
    bool in_retry = false;
    for (;;) {
        unsigned long nr_reclaimed = reclaim_high(c, in_retry ? cfg_.swap_cluster_max : nr_pages);
        c.flush();
        uint64_t penalty = memcg.high_delay_jiffies(nr_pages, cfg_.hz_jiffies);
        if (penalty <= cfg_.hz_jiffies / 100)
            return;
        if (nr_reclaimed || nr_retries-- > 0) {
            in_retry = true;
            continue;
        }
        double sleep = double(penalty) / cfg_.hz_jiffies;
        c.task.throttled_s += sleep;
        c.block_until(c.now() + sleep);
        return;
    }
}

}  // namespace swapsim::kernel
