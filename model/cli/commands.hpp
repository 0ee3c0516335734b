// swapsim subcommands. Each returns the process exit status: 0 ok, 1 run failure, 2 bad input.
#pragma once

#include <filesystem>

#include <nlohmann/json_fwd.hpp>

namespace swapsim { const char* version(); const char* git_commit(); }

namespace swapsim::cli {

using nlohmann::json;            // every subcommand reads and writes JSON
namespace fs = std::filesystem;

int cmd_run(int argc, char** argv);
int cmd_validate(int argc, char** argv);
int cmd_params(int argc, char** argv);
int cmd_schema(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_calibrate(int argc, char** argv);
int cmd_cross_validate(int argc, char** argv);   // calibrate --cross-validate (cmd_crossval.cpp)
int cmd_sweep(int argc, char** argv);
int cmd_metrics(int argc, char** argv);
int cmd_collect(int argc, char** argv);

}  // namespace swapsim::cli
