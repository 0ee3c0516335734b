// kernel.version presets (scenario/kernel_versions.hpp).
#include "scenario/kernel_versions.hpp"

#include <stdexcept>

namespace swapsim::scenario {

const std::vector<KernelChange>& kernel_changes()
{
    static const std::vector<KernelChange> changes = {
        {"kernel.mthp_swapout", false, true, "6.10",
         "v6.10: 'mm: swap: swap-out small-sized THP without splitting' (Ryan Roberts): add_to_swap gets contiguous slots for any large folio; v6.9 does so only for a PMD-size THP and splits the smaller ones"},
        {"kernel.zswap.large_folios", false, true, "6.13",
         "v6.13: 'mm: ZSWAP swap-out of mTHP folios' (Kanchana P Sridhar; v7 = seed 000, patch 'mm: zswap: Support mTHP swapout in zswap_store()'): zswap_store() stores a large folio page by page; v6.12 rejects it"},
        {"kernel.swap_alloc", "si_lock", "cluster_lock", "6.14",
         "v6.14: 'mm, swap: rework of swap allocator locks' (Kairui Song): slot allocation under per-cluster locks, si->lock only for the cluster lists"},
        {"kernel.swap_slot_cache", true, false, "6.15",
         "v6.15: 'mm, swap: remove swap slot cache' (Kairui Song): order-0 slots come from the per-CPU cluster instead"},
        {"kernel.swap_cache", "xarray", "swap_table", "6.18",
         "v6.18: 'mm, swap: introduce swap table as swap cache (phase I)' (Kairui Song, seed 001)"},
    };
    return changes;
}

const std::vector<KernelVersion>& kernel_versions()
{
    static const std::vector<KernelVersion> versions = {
        {"6.9", 609, ""},
        {"6.10", 610, ""},
        {"6.11", 611, ""},
        {"mm-unstable-2024-09-23", 612, "seed 000's 'before' tree, commit acfabf7e197f (zswap-mTHP v7 applies on it): v6.12 mm"},
        {"6.12", 612, ""},
        {"6.13", 613, ""},
        {"6.14", 614, ""},
        {"6.15", 615, ""},
        {"6.17", 617, ""},
        {"6.18", 618, ""},
        {"mm-unstable-2025-10", 618, "the later zswap compress-batching postings' tree: v6.18-rc mm, which has the swap table (phase I in mm-unstable from 2025-09); the batching itself is the series' kernel.zswap.batch_size"},
    };
    return versions;
}

namespace {

int rank_of(const std::string& release)
{
    for (const auto& v : kernel_versions())
        if (release == v.name)
            return v.rank;
    throw std::logic_error("kernel_versions: unknown release '" + release + "'");
}

}  // namespace

std::vector<std::string> kernel_version_names()
{
    std::vector<std::string> names = {"none"};
    for (const auto& v : kernel_versions())
        names.push_back(v.name);
    return names;
}

std::vector<std::pair<std::string, nlohmann::json>> kernel_preset(const std::string& version)
{
    std::vector<std::pair<std::string, nlohmann::json>> out;
    if (version == "none")
        return out;
    int rank = rank_of(version);
    for (const auto& c : kernel_changes())
        out.emplace_back(c.key, rank >= rank_of(c.since) ? c.after : c.before);
    return out;
}

void apply_kernel_version(Config& cfg)
{
    if (!cfg.reg().find("kernel.version"))   // a registry without presets (the registry tests')
        return;
    const std::string version = cfg.s("kernel.version");
    for (const auto& [key, value] : kernel_preset(version))
        if (!cfg.explicitly_set(key))
            cfg.set(key, value, "kernel.version " + version, "kernel.version");
}

}  // namespace swapsim::scenario
