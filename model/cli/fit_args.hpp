// Arguments that `calibrate` and `calibrate --cross-validate` share (defined in cmd_calibrate.cpp;
// --weights is cli/args.hpp's parse_weights).
#pragma once

#include <string>
#include <vector>

#include "scenario/registry.hpp"

namespace swapsim::cli {

// --free PARAM...: the registry's fitted costs named (its fit_default set when none is named).
std::vector<const scenario::ParamDef*> free_params(std::vector<std::string>& names);

}  // namespace swapsim::cli
