// Repository contracts: the README's commands, CI, and the published ground truth.
#include <catch2/catch.hpp>

#include <regex>

#include "report/result.hpp"
#include "run_cmd.hpp"

using swapsim_test::slurp;

TEST_CASE("CI runs exactly the README's test command", "[repo]")
{
    std::string readme = slurp(SWAPSIM_SOURCE_DIR "/README.md");
    std::string ci = slurp(SWAPSIM_SOURCE_DIR "/.ci/run");
    std::smatch m;
    // README command 2 is the second ```sh block.
    std::regex block("```sh\\n([^`]+)\\n```");
    std::vector<std::string> cmds;
    for (auto it = std::sregex_iterator(readme.begin(), readme.end(), block); it != std::sregex_iterator(); ++it)
        cmds.push_back((*it)[1]);
    REQUIRE(cmds.size() >= 2);
    CHECK(cmds[0].find("swapsim run scenarios/default.json") != std::string::npos);
    CHECK(cmds[1].find("ctest") != std::string::npos);
    CHECK(ci.find(cmds[1]) != std::string::npos);
}

TEST_CASE("the published ground truth is the seeds' file, unchanged", "[repo]")
{
    std::string data = slurp(SWAPSIM_SOURCE_DIR "/calibration/published/seed-tables.json");
    CHECK(swapsim::report::sha256_hex(data) == "e0048b421c6ca4c3fb9b27cfedb4bdcbef6400c7b8234aaf01720176a37ba4f4");
}
