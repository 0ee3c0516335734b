// Declaring registry rows: each component's params.cpp adds the rows its code reads, each
// naming the Settings field it fills (scenario/settings.hpp):
//     t.cycles("cost.fault.base", 1500, "doc", "source").to(section::costs, &kernel::Costs::fault);
// scenario/params.cpp builds the registry from them in a fixed order.
#pragma once

#include <cstring>
#include <limits>

#include "scenario/registry.hpp"
#include "scenario/settings.hpp"

namespace swapsim::scenario {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double KiB = 1024.0, MiB = 1024.0 * KiB, GiB = 1024.0 * MiB;
constexpr const char* est = "estimate from kernel code size and x86 latencies";
// The range of an estimated cost without a stated one: a factor 4 either side of the estimate,
// the spread of one kernel path between running cache-hot and taking a cache miss (~100 ns) on
// each line it touches. Calibrate may free such a cost only inside it.
constexpr double est_band = 4;
constexpr const char* est_band_src =
    "estimate from kernel code size and x86 latencies; range: a factor 4 either side (one path cache-hot, or a ~100 ns miss on each line it touches)";

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
        return cost(n, "cycles", def, doc, src, lo, hi);
    }
    // A fitted wall-clock cost in ns (not scaled by the clock: memory, device or IPI latency).
    Row nanos(const char* n, double def, const char* doc, const char* src, double lo = 0, double hi = 1e9)
    {
        return cost(n, "ns", def, doc, src, lo, hi);
    }
    // A cost with no range of its own: an estimate (`est`) gets est_band around it, a measured
    // or published figure a factor 2 (the machine and kernel differ from where it was taken).
    Row cost(const char* n, const char* unit, double def, const char* doc, const char* src, double lo, double hi)
    {
        bool band = lo == 0 && hi == 1e9 && def > 0, estimate = std::strcmp(src, est) == 0;
        if (band) {
            lo = def / (estimate ? est_band : 2);
            hi = def * (estimate ? est_band : 2);
        }
        Row r = real(Category::Cost, n, unit, def, lo, hi, doc, band && estimate ? est_band_src : src, true);
        if (band && !estimate)
            rows.back().source += "; range: a factor 2 either side of that figure (machine and kernel differ from where it was taken)";
        return r;
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
