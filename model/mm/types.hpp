// Kernel constants and small handle types shared by the mm/ state layer.
// Values are x86-64 defaults of the kernels the seeds ran (v6.12 era); sources in comments.
#pragma once

#include <cstdint>
#include <limits>

namespace swapsim::mm {

constexpr unsigned PAGE_SHIFT = 12;
constexpr uint64_t PAGE_SIZE = 1ull << PAGE_SHIFT;
constexpr unsigned HPAGE_PMD_ORDER = 9;                 // 2 MiB
constexpr unsigned HPAGE_PMD_NR = 1u << HPAGE_PMD_ORDER;
constexpr unsigned MAX_FOLIO_ORDER = HPAGE_PMD_ORDER;
constexpr unsigned NR_ORDERS = MAX_FOLIO_ORDER + 1;    // SWAP_NR_ORDERS = PMD_ORDER + 1
constexpr unsigned SWAP_CLUSTER_MAX = 32;               // include/linux/swap.h
constexpr unsigned MEMCG_CHARGE_BATCH = 64;             // include/linux/memcontrol.h (v6.1+)
constexpr unsigned MAX_RECLAIM_RETRIES = 16;            // mm/internal.h
constexpr int DEF_PRIORITY = 12;                        // mm/vmscan.c
constexpr unsigned SWAPFILE_CLUSTER = HPAGE_PMD_NR;     // mm/swapfile.c with THP_SWAP
constexpr unsigned SWAP_ADDRESS_SPACE_SHIFT = 14;       // mm/swap.h: 64 MiB per swap cache XArray
constexpr unsigned ZSWAP_ADDRESS_SPACE_SHIFT = 14;      // mm/zswap.c: 64 MiB per zswap tree
constexpr unsigned XA_CHUNK_SIZE = 64;                  // include/linux/xarray.h: slots per xa_node (XA_CHUNK_SHIFT 6)
constexpr unsigned MEMCG_DELAY_PRECISION_SHIFT = 20;    // mm/memcontrol.c
constexpr unsigned MEMCG_DELAY_SCALING_SHIFT = 14;

using folio_t = uint32_t;                               // index into FolioTable
constexpr folio_t NO_FOLIO = std::numeric_limits<folio_t>::max();

// A swap entry on the (single) swap device: the slot offset. Offset 0 holds the swap header
// and is never handed out, so 0 means "no entry" as swp_entry_t.val == 0 does.
using swp_offset_t = uint32_t;
constexpr swp_offset_t NO_SWAP = 0;

inline unsigned order_nr_pages(unsigned order) { return 1u << order; }

}  // namespace swapsim::mm
