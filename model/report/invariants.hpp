// Physical invariants every run's result must satisfy, checked at the end of the run (a broken
// one is an internal error: swapsim run exits 3 naming it), and the result.json section
// "accounting" they read: where the swapped-out pages went, and where the written pages were
// when the writing finished.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "kernel/kernel.hpp"

namespace swapsim::report {

struct Limits {
    double cpus = 1;            // CPUs the workload may run on (workload.cpus)
    double ram_bytes = 0;       // machine.dram
    double memcg_max = 0;       // memory.max, bytes (inf: max)
};

// result.json's accounting.swap_out: pgsteal_direct + pageout_freed + written_unmapped +
// written_again + written_resident = zswpout + pswpout + freed_clean (Kernel::SwapoutAccounting).
nlohmann::json swap_accounting(const kernel::Kernel& k);
// accounting.memcg: bytes that forced charges put past memory.max (PageCounter::forced_over_max).
nlohmann::json memcg_accounting(const kernel::Kernel& k);
nlohmann::json census_json(const kernel::Kernel::Census& n);

// "" if the result satisfies every invariant, else the first broken one, named, with its numbers:
//   no negative metric or per-process time; user + sys <= wall time of each task and
//   <= elapsed x allowed CPUs; RAM used <= machine.dram; memory.peak <= memory.max plus what
//   forced charges put past it (accounting.memcg);
//   pgsteal = zswpout + pswpout (accounting.swap_out, above); pages written = resident +
//   swapped out at writes-done (or after the last page-out), swapped out <= swap slots in use.
std::string check_result(const nlohmann::json& result, const Limits& lim);

}  // namespace swapsim::report
