#include "report/invariants.hpp"

#include <cmath>

#include <fmt/format.h>

namespace swapsim::report {

using nlohmann::json;

namespace {

double num(const json& j, const char* key) { return j.contains(key) ? j.at(key).get<double>() : 0.0; }

// Rounding of sums of many doubles: a relative 1e-9 and an absolute 1 ns.
bool above(double a, double b) { return a > b + 1e-9 * std::fabs(b) + 1e-9; }

// Where the pages written are at one moment: resident or swapped out, and the swapped-out
// ones hold swap slots (zswap's entries among them).
std::string pages_conserved(const json& n, const char* when)
{
    uint64_t written = n.at("pages_written"), resident = n.at("resident_pages"), swapped = n.at("swapped_pages"),
             slots = n.at("swap_slots_in_use"), zswap = n.at("zswap_stored_pages");
    if (written != resident + swapped)
        return fmt::format("pages written = resident + swapped out {}: {} written, {} resident + {} swapped out",
                           when, written, resident, swapped);
    if (swapped > slots)
        return fmt::format("pages swapped out <= swap slots in use {}: {} > {}", when, swapped, slots);
    if (zswap > slots)
        return fmt::format("zswap pages <= swap slots in use {}: {} > {}", when, zswap, slots);
    return "";
}

}  // namespace

json swap_accounting(const kernel::Kernel& k)
{
    const auto& a = k.swapout_acct;
    return {{"pgsteal_direct", k.vm[mm::PGSTEAL_DIRECT]}, {"pgsteal_kswapd", k.vm[mm::PGSTEAL_KSWAPD]},
            {"pageout_freed", a.pageout_freed},
            {"written_unmapped", a.written_unmapped}, {"written_again", a.written_again},
            {"written_resident", a.written_resident},
            {"zswpout", k.vm[mm::ZSWPOUT]}, {"pswpout", k.vm[mm::PSWPOUT]}, {"freed_clean", a.freed_clean}};
}

json memcg_accounting(const kernel::Kernel& k)
{
    return {{"forced_over_max_bytes", k.memcg.memory.forced_over_max * mm::PAGE_SIZE}};
}

json census_json(const kernel::Kernel::Census& n)
{
    return {{"processes", n.processes},
            {"pages_written", n.pages_written},
            {"resident_pages", n.resident_pages},
            {"swapped_pages", n.swapped_pages},
            {"swap_slots_in_use", n.swap_slots_in_use},
            {"swap_slot_cache", n.swap_slot_cache},
            {"zswap_stored_pages", n.zswap_stored_pages},
            {"zswap_pool_bytes", n.zswap_pool_bytes}};
}

std::string check_result(const json& r, const Limits& lim)
{
    const json& m = r.at("metrics");
    // No negative time or count anywhere in the metrics or per process.
    for (const auto& [name, v] : m.items())
        if (v.is_number() && v.get<double>() < 0)
            return fmt::format("no negative metric: {} = {}", name, v.get<double>());
    double elapsed = num(m, "elapsed_s"), cpu = num(m, "user_s") + num(m, "sys_s");
    if (r.contains("per_process")) {
        for (const json& p : r.at("per_process")) {
            for (const auto& [name, v] : p.items())
                if (v.is_number() && v.get<double>() < 0)
                    return fmt::format("no negative time: pid {} {} = {}", p.value("pid", -1), name, v.get<double>());
            double busy = num(p, "user_s") + num(p, "sys_s"), wall = num(p, "wall_s");
            if (above(busy, wall))
                return fmt::format("user + sys <= wall time of each task: pid {} {:.6f} + {:.6f} s > {:.6f} s",
                                   p.value("pid", -1), num(p, "user_s"), num(p, "sys_s"), wall);
        }
    }
    if (above(cpu, elapsed * lim.cpus))
        return fmt::format("user + sys <= elapsed x allowed CPUs: {:.3f} + {:.3f} s > {:.3f} s x {} CPUs",
                           num(m, "user_s"), num(m, "sys_s"), elapsed, lim.cpus);
    if (num(m, "ram_used_peak") > lim.ram_bytes)
        return fmt::format("memory <= RAM: peak {} bytes > machine.dram {} bytes", uint64_t(num(m, "ram_used_peak")),
                           uint64_t(lim.ram_bytes));
    // The kernel forces some charges past memory.max (zswap's, in reclaim): by those pages at most.
    double forced = r.contains("accounting") && r["accounting"].contains("memcg")
                        ? num(r["accounting"]["memcg"], "forced_over_max_bytes") : 0.0;
    if (std::isfinite(lim.memcg_max) && num(m, "memory_peak") > lim.memcg_max + forced)
        return fmt::format("memcg peak <= memory.max (+ forced charges): memory.peak {} bytes > {} + {} bytes",
                           uint64_t(num(m, "memory_peak")), uint64_t(lim.memcg_max), uint64_t(forced));
    if (r.contains("accounting")) {
        const json& acc = r.at("accounting");
        const json& s = acc.at("swap_out");
        uint64_t freed = s.at("pgsteal_direct").get<uint64_t>() + s.value("pgsteal_kswapd", uint64_t(0)) +
                         s.at("pageout_freed").get<uint64_t>() +
                         s.at("written_unmapped").get<uint64_t>() + s.at("written_again").get<uint64_t>() +
                         s.at("written_resident").get<uint64_t>();
        uint64_t written = s.at("zswpout").get<uint64_t>() + s.at("pswpout").get<uint64_t>() +
                           s.at("freed_clean").get<uint64_t>();
        if (freed != written)
            return fmt::format("pgsteal = zswpout + pswpout: pgsteal_direct {} + pageout_freed {} + written_unmapped {} "
                               "+ written_again {} + written_resident {} != zswpout {} + pswpout {} + freed_clean {}",
                               s["pgsteal_direct"].get<uint64_t>(), s["pageout_freed"].get<uint64_t>(),
                               s["written_unmapped"].get<uint64_t>(), s["written_again"].get<uint64_t>(),
                               s["written_resident"].get<uint64_t>(),
                               s["zswpout"].get<uint64_t>(), s["pswpout"].get<uint64_t>(), s["freed_clean"].get<uint64_t>());
        for (const char* when : {"at_writes_done", "after_pageout"}) {
            if (!acc.contains(when))
                continue;
            std::string bad = pages_conserved(acc.at(when), when);
            if (!bad.empty())
                return bad;
        }
    }
    return "";
}

}  // namespace swapsim::report
