// kernel.version presets: the defaults of the kernel keys that changed between releases.
//
// A preset sets a key only where the scenario, a --params file and --set left it at its
// registry default; an explicit key wins. Only changes with a known release are listed
// (each with the series it comes from); keys without one stay at their registry defaults.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/registry.hpp"

namespace swapsim::scenario {

// One kernel change a preset follows: `key` is `before` in releases older than `since`, `after` from it.
struct KernelChange {
    const char* key;
    nlohmann::json before, after;
    const char* since;    // first release with `after` ("6.14")
    const char* source;   // the series and the release it was merged in
};

struct KernelVersion {
    const char* name;     // the kernel.version value
    int rank;             // order of releases: 612 for 6.12
    const char* note;
};

const std::vector<KernelChange>& kernel_changes();
const std::vector<KernelVersion>& kernel_versions();
std::vector<std::string> kernel_version_names();   // "none" first: no preset

// The key -> value pairs that `version` sets ({} for "none"); throws std::logic_error if unknown.
std::vector<std::pair<std::string, nlohmann::json>> kernel_preset(const std::string& version);

// Applies cfg's kernel.version to the keys nobody set (origin "kernel.version").
void apply_kernel_version(Config& cfg);

}  // namespace swapsim::scenario
