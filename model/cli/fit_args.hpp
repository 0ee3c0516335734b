// Arguments that `calibrate` and `calibrate --cross-validate` share (defined in cmd_calibrate.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "scenario/registry.hpp"

namespace swapsim::cli {

// --free PARAM...: the registry's fitted costs named (its fit_default set when none is named).
std::vector<const scenario::ParamDef*> free_params(std::vector<std::string>& names);

// --weights metric=w,...: each weight a finite number >= 0.
std::map<std::string, double> parse_weights(const std::string& arg);

}  // namespace swapsim::cli
