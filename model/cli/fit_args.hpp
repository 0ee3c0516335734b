// Arguments that `calibrate` and `calibrate --cross-validate` share (defined in cmd_calibrate.cpp;
// --weights is cli/args.hpp's parse_weights).
#pragma once

#include <string>
#include <vector>

#include "scenario/registry.hpp"

namespace swapsim::cli {

// --free PARAM...: the registry's fitted costs named (its fit_default set when none is named).
std::vector<const scenario::ParamDef*> free_params(std::vector<std::string>& names);

// --free-preset NAME: the costs a run on one swap back end exercises and no data sheet gives
// (reclaim, rmap and lock handoff for all; then the back end's own), for a user's machine whose
// measurements cannot move the zswap or IAA costs of the default set.
struct FreePreset {
    const char* name;
    const char* why;
    std::vector<std::string> params;
};
const std::vector<FreePreset>& free_presets();
// The preset's parameters, or an error naming the presets.
std::vector<std::string> free_preset(const std::string& name);

}  // namespace swapsim::cli
