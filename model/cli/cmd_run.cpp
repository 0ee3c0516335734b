// swapsim run: placeholder until the simulator lands.
#include <cstdio>
#include "cli/commands.hpp"
namespace swapsim::cli {
int cmd_run(int, char**) { std::fprintf(stderr, "swapsim run: not built yet\n"); return 1; }
}
