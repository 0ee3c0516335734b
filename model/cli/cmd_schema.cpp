// swapsim schema: the JSON Schema of scenario files (committed as scenarios/swapsim.schema.json).
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/options.hpp"

namespace swapsim::cli {
namespace {

int schema(int argc, char** argv)
{
    Options o = parse_options(argc, argv, OptionSpec{});
    if (o.help) {
        std::fputs("usage: swapsim schema\n"
                   "\n"
                   "Prints the JSON Schema (draft-07) of scenario files, generated from the parameter registry.\n"
                   "Regenerate the committed copy with: build/swapsim schema > scenarios/swapsim.schema.json\n",
                   stdout);
        return 0;
    }
    if (!o.positional.empty())
        throw UsageError("unexpected argument '" + o.positional[0] + "'");
    std::string text = scenario::json_schema().dump(2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
}

}  // namespace

int cmd_schema(int argc, char** argv) { return guarded("schema", schema, argc, argv); }

}  // namespace swapsim::cli
