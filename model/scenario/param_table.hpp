// Declaring registry rows: each component's params.cpp adds the rows its code reads, each
// naming the Settings field it fills (scenario/settings.hpp):
//     t.cycles("cost.fault.base", 1500, "doc", "source").to(section::costs, &kernel::Costs::fault);
// scenario/params.cpp builds the registry from them in a fixed order.
#pragma once

#include <limits>

#include "scenario/registry.hpp"
#include "scenario/settings.hpp"

namespace swapsim::scenario {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double KiB = 1024.0, MiB = 1024.0 * KiB, GiB = 1024.0 * MiB;
constexpr const char* est = "estimate from kernel code size and x86 latencies; fitted by swapsim calibrate";

struct Table {
    std::vector<ParamDef> rows;
    Row p(ParamDef d)
    {
        rows.push_back(std::move(d));
        return {rows.back()};
    }

    Row meta(const char* n, Kind k, nlohmann::json def, const char* doc)
    {
        return p({n, k, "", std::move(def), -inf, inf, false, false, {}, doc, "swapsim", Category::Meta});
    }
    Row integer(Category c, const char* n, const char* unit, int64_t def, double lo, double hi,
                const char* doc, const char* src, bool fitted = false)
    {
        return p({n, Kind::Int, unit, def, lo, hi, false, false, {}, doc, src, c, fitted});
    }
    Row real(Category c, const char* n, const char* unit, double def, double lo, double hi,
             const char* doc, const char* src, bool fitted = false, bool lo_excl = false)
    {
        return p({n, Kind::Real, unit, def, lo, hi, lo_excl, false, {}, doc, src, c, fitted});
    }
    Row flag(Category c, const char* n, bool def, const char* doc, const char* src)
    {
        return p({n, Kind::Bool, "", def, -inf, inf, false, false, {}, doc, src, c});
    }
    Row choice(Category c, const char* n, const char* def, std::vector<std::string> opts,
               const char* doc, const char* src)
    {
        return p({n, Kind::Enum, "", def, -inf, inf, false, false, std::move(opts), doc, src, c});
    }
    Row size(Category c, const char* n, nlohmann::json def, double lo, double hi, const char* doc,
             const char* src, bool allow_max = false, bool fitted = false)
    {
        return p({n, Kind::Size, "bytes", std::move(def), lo, hi, lo == 0, allow_max, {}, doc, src, c, fitted});
    }
    Row time(Category c, const char* n, double def, double lo, double hi, const char* doc,
             const char* src, bool fitted = false)
    {
        return p({n, Kind::Time, "s", def, lo, hi, false, false, {}, doc, src, c, fitted});
    }
    Row rate(Category c, const char* n, double def, const char* doc, const char* src, bool fitted)
    {
        return p({n, Kind::Rate, "bytes/s", def, 0, inf, true, false, {}, doc, src, c, fitted});
    }
    // A fitted CPU cost in cycles (scaled by machine.cpu_freq).
    Row cycles(const char* n, double def, const char* doc, const char* src, double lo = 0, double hi = 1e9)
    {
        return real(Category::Cost, n, "cycles", def, lo, hi, doc, src, true);
    }
    // A fitted wall-clock cost in ns (not scaled by the clock: memory, device or IPI latency).
    Row nanos(const char* n, double def, const char* doc, const char* src, double lo = 0, double hi = 1e9)
    {
        return real(Category::Cost, n, "ns", def, lo, hi, doc, src, true);
    }
};

// The rows of each component, in registry order (each in its folder's params.cpp).
void add_machine_params(Table& t);    // hw/params.cpp: topology, clock, DRAM, IAA devices
void add_swap_device_params(Table& t);  // hw/params.cpp: the swap device
void add_kernel_params(Table& t);     // kernel/params.cpp: sysfs/sysctl/cgroup knobs
void add_workload_params(Table& t);   // workload/params.cpp: usemem
void add_platform_costs(Table& t);    // engine/params.cpp: SMT and memory bandwidth
void add_kernel_costs(Table& t);      // kernel/params.cpp: fitted kernel path costs
void add_workload_costs(Table& t);    // workload/params.cpp: fork and wakeup
void add_compressor_costs(Table& t);  // kernel/params.cpp: compressors on usemem data
void add_workload_sim_params(Table& t);   // workload/params.cpp: usemem's simulated step
void add_kernel_sim_params(Table& t);     // kernel/params.cpp: reclaim slice

}  // namespace swapsim::scenario
