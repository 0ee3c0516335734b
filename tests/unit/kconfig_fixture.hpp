// The kernel configuration the unit tests start from: one socket, four single-thread cores,
// 4 GiB, a 64 MiB pmem swap device, every cost zero but the ones a test sets.
#pragma once

#include "kernel/config.hpp"
#include "mm/types.hpp"

namespace swapsim_test {

inline swapsim::kernel::KConfig small_config()
{
    using swapsim::mm::PAGE_SIZE;
    swapsim::kernel::KConfig k;
    k.topo = {1, 4, 1};
    k.hz = 1e9;
    k.dram_pages = (4ull << 30) / PAGE_SIZE;
    k.dev = swapsim::kernel::SwapDev::Pmem;
    k.swap_slots = (64ull << 20) / PAGE_SIZE;
    k.comp = {"test", 1024, 0, 0};
    k.page_cluster = 2;
    return k;
}

}  // namespace swapsim_test
