// /proc/vmstat events and per-size mTHP stats (/sys/kernel/mm/transparent_hugepage/
// hugepages-<size>kB/stats/*) under their kernel names.
// Granularity: exact counts. Leaves out: the per-memcg copies (one memcg: they are equal).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "mm/types.hpp"

namespace swapsim::mm {

enum VmEvent : unsigned {
    PGFAULT, PGMAJFAULT, PSWPIN, PSWPOUT, ZSWPIN, ZSWPOUT, ZSWPWB,
    THP_FAULT_ALLOC, THP_SWPOUT, THP_SWPOUT_FALLBACK, THP_SPLIT_PAGE,
    SWAP_RA, SWAP_RA_HIT, PGSCAN_DIRECT, PGSTEAL_DIRECT, PGACTIVATE, PGDEACTIVATE, PGROTATED,
    PGREFILL, WORKINGSET_REFAULT_ANON, THP_FAULT_FALLBACK, THP_FAULT_FALLBACK_CHARGE,
    PGSCAN_KSWAPD, PGSTEAL_KSWAPD, ALLOCSTALL, OOM_KILL, WORKINGSET_REFAULT_FILE, WORKINGSET_ACTIVATE_FILE,
    PGSTEAL_FILE, NR_VM_EVENTS
};

enum MthpStat : unsigned {
    MTHP_STAT_ANON_FAULT_ALLOC, MTHP_STAT_ANON_FAULT_FALLBACK, MTHP_STAT_ZSWPOUT, MTHP_STAT_SWPOUT,
    MTHP_STAT_SWPOUT_FALLBACK, MTHP_STAT_SWPIN, MTHP_STAT_SPLIT, MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE,
    MTHP_STAT_SWPIN_FALLBACK, MTHP_STAT_SWPIN_FALLBACK_CHARGE, NR_MTHP_STATS
};

const char* vm_event_name(VmEvent e);
const char* mthp_stat_name(MthpStat s);
// "64kB", "2048kB": the hugepages-<size>kB directory name of an order.
std::string order_size_name(unsigned order);

struct VmStat {
    std::array<uint64_t, NR_VM_EVENTS> ev{};
    std::array<std::array<uint64_t, NR_MTHP_STATS>, NR_ORDERS> mthp{};

    void count(VmEvent e, uint64_t n = 1) { ev[e] += n; }
    void count_mthp(unsigned order, MthpStat s, uint64_t n = 1) { mthp[order][s] += n; }
    uint64_t operator[](VmEvent e) const { return ev[e]; }
};

}  // namespace swapsim::mm
