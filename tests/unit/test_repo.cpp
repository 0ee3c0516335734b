// Repository contracts: the README's commands, CI, and the published ground truth.
#include <catch2/catch.hpp>

#include <cctype>
#include <regex>
#include <sstream>

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

TEST_CASE("the README's copies of results/ tables are the committed results", "[repo]")
{
    // The per-table MAPE rows of results/summary.md and the rows of the IAA sizing sweeps.
    std::string readme = slurp(SWAPSIM_SOURCE_DIR "/README.md");
    size_t rows = 0;
    for (const char* f : {"/results/summary.md", "/results/iaa-sweep-v7-sync-verify.md", "/results/iaa-sweep-batching.md"}) {
        std::istringstream in(slurp(std::string(SWAPSIM_SOURCE_DIR) + f));
        for (std::string line; std::getline(in, line);) {
            bool mape = line.rfind("| zswap-mthp-v7/", 0) == 0 && line.find("(4)") != std::string::npos;
            bool sweep = line.size() > 2 && line.rfind("| ", 0) == 0 && std::isdigit((unsigned char)line[2]);
            if (!mape && !sweep && line.rfind("| **all tables**", 0) != 0)
                continue;
            INFO(f << ": " << line);
            CHECK(readme.find(line + "\n") != std::string::npos);
            rows++;
        }
    }
    CHECK(rows == 8 + 16 + 16);
}
