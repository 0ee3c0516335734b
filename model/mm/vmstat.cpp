#include "mm/vmstat.hpp"

namespace swapsim::mm {

const char* vm_event_name(VmEvent e)
{
    static const char* const names[NR_VM_EVENTS] = {
        "pgfault", "pgmajfault", "pswpin", "pswpout", "zswpin", "zswpout", "zswpwb",
        "thp_fault_alloc", "thp_swpout", "thp_swpout_fallback", "thp_split_page",
        "swap_ra", "swap_ra_hit", "pgscan_direct", "pgsteal_direct", "pgactivate", "pgdeactivate",
        "pgrotated", "pgrefill", "workingset_refault_anon", "thp_fault_fallback", "thp_fault_fallback_charge",
        "pgscan_kswapd", "pgsteal_kswapd", "allocstall", "oom_kill", "workingset_refault_file",
        "workingset_activate_file", "pgsteal_file",
    };
    return names[e];
}

const char* mthp_stat_name(MthpStat s)
{
    static const char* const names[NR_MTHP_STATS] = {
        "anon_fault_alloc", "anon_fault_fallback", "zswpout", "swpout", "swpout_fallback",
        "swpin", "split", "anon_fault_fallback_charge",
        "swpin_fallback", "swpin_fallback_charge",
    };
    return names[s];
}

std::string order_size_name(unsigned order)
{
    return std::to_string((PAGE_SIZE >> 10) << order) + "kB";
}

}  // namespace swapsim::mm
