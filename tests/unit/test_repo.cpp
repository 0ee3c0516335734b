// Repository contracts: the README's commands, CI, and the published ground truth.
#include <catch2/catch.hpp>

#include <cctype>
#include <regex>
#include <sstream>

#include <filesystem>
#include <set>

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
    // CI's commands are README command 2, then the reliability steps (their packages are in
    // command 2's install line), and nothing else.
    std::vector<std::string> steps;
    std::istringstream in(ci);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#' || line.rfind("set ", 0) == 0 || line.rfind("cd ", 0) == 0 ||
            line.rfind("export ", 0) == 0)
            continue;
        steps.push_back(line);
    }
    CHECK(steps == std::vector<std::string>{cmds[1], "tools/ci_reliability.sh 60"});
    for (const char* pkg : {" clang ", " libclang-rt-14-dev "})
        CHECK(cmds[1].find(pkg) != std::string::npos);
}

TEST_CASE("the published ground truth is the seeds' file, unchanged", "[repo]")
{
    std::string data = slurp(SWAPSIM_SOURCE_DIR "/calibration/published/seed-tables.json");
    CHECK(swapsim::report::sha256_hex(data) == "e0048b421c6ca4c3fb9b27cfedb4bdcbef6400c7b8234aaf01720176a37ba4f4");
}

TEST_CASE("the README's and user guide's copies of results/ tables are the committed results", "[repo]")
{
    // The per-table MAPE rows of results/summary.md and the rows of the IAA sizing sweeps.
    std::string readme = slurp(SWAPSIM_SOURCE_DIR "/README.md") + slurp(SWAPSIM_SOURCE_DIR "/docs/user-guide.md");
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

namespace {

// Shell words of one command line (no quoting is used in the README's commands).
std::vector<std::string> words(const std::string& line)
{
    std::vector<std::string> w;
    std::istringstream in(line);
    for (std::string x; in >> x;)
        w.push_back(x);
    return w;
}

// The `./build/swapsim ...` commands of a markdown text: lines of ```sh blocks and `...` spans.
std::vector<std::string> swapsim_commands(const std::string& md)
{
    std::vector<std::string> out;
    std::regex span("`(\\./build/swapsim [^`]+)`");
    std::string joined = std::regex_replace(md, std::regex("\\\\\n\\s*"), " ");   // continuation lines
    for (auto it = std::sregex_iterator(joined.begin(), joined.end(), span); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1]);
    std::istringstream in(joined);
    bool sh = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("```", 0) == 0)
            sh = line == "```sh";
        else if (sh && line.rfind("./build/swapsim ", 0) == 0)
            out.push_back(line);
    }
    return out;
}

}  // namespace

TEST_CASE("README: at most 200 lines, and every command in it is one swapsim accepts", "[repo]")
{
    std::string readme = slurp(SWAPSIM_SOURCE_DIR "/README.md");
    CHECK(std::count(readme.begin(), readme.end(), '\n') <= 200);
    auto cmds = swapsim_commands(readme);
    CHECK(cmds.size() >= 12);
    std::string targets = slurp(SWAPSIM_SOURCE_DIR "/calibration/targets.json");
    std::set<std::string> seen;
    for (const std::string& c : cmds) {
        INFO(c);
        std::vector<std::string> w = words(c);
        REQUIRE(w.size() >= 2);
        const std::string& sub = w[1];
        seen.insert(sub);
        auto help = swapsim_test::run_swapsim({"help", sub});
        REQUIRE(help.status == 0);
        std::vector<std::string> sets;
        std::string scenario;
        for (size_t i = 2; i < w.size(); i++) {
            const std::string& a = w[i];
            std::string prev = i > 2 ? w[i - 1] : "";
            if (a[0] == '-') {
                std::string opt = a.substr(0, a.find('='));
                INFO(opt);
                CHECK(help.out.find(opt) != std::string::npos);   // an option the command documents
            } else if (prev == "--set") {
                sets.push_back(a);
            } else if (prev == "--vary") {   // each value of a --vary is a --set of that key
                std::string key = a.substr(0, a.find('='));
                std::istringstream vals(a.substr(a.find('=') + 1));
                for (std::string v; std::getline(vals, v, ',');)
                    sets.push_back(key + "=" + v);
            } else if (a.size() > 5 && a.compare(a.size() - 5, 5, ".json") == 0 && prev != "--out") {
                CHECK(std::filesystem::exists(std::string(SWAPSIM_SOURCE_DIR "/") + a));
                if (a.rfind("scenarios/", 0) == 0 && scenario.empty())
                    scenario = a;
            } else if (a.rfind("zswap-mthp-v7/", 0) == 0) {
                CHECK(targets.find("\"" + a + "\"") != std::string::npos);   // a table compare knows
            }
        }
        if (!scenario.empty()) {   // the scenario with the command's --set and --vary values loads
            for (const auto& s : sets) {
                INFO(s);
                CHECK(swapsim_test::run_swapsim({"validate", scenario, "--set", s}).status == 0);
            }
        }
    }
    // One example for each command.
    for (const char* sub : {"run", "validate", "params", "metrics", "schema", "compare", "calibrate", "sweep", "collect"}) {
        INFO(sub);
        CHECK(seen.count(sub));
    }
}

TEST_CASE("README and docs: every relative link points to a file (and heading) of the repository", "[repo]")
{
    namespace fs = std::filesystem;
    const fs::path root = SWAPSIM_SOURCE_DIR;
    auto anchor_of = [](std::string h) {   // GitHub's heading anchors
        std::string a;
        for (char c : h) {
            if (std::isalnum((unsigned char)c) || c == '-' || c == '_')
                a += char(std::tolower((unsigned char)c));
            else if (c == ' ')
                a += '-';
        }
        return a;
    };
    size_t links = 0;
    for (fs::path md : {root / "README.md", root / "docs/user-guide.md", root / "docs/model.md", root / "docs/speed.md",
                        root / "docs/compressors.md"}) {
        std::string text = slurp(md.string());
        std::regex link("\\]\\(([^)#:]*)(#[^)]*)?\\)");
        for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator(); ++it) {
            std::string file = (*it)[1], anchor = (*it)[2];
            fs::path target = file.empty() ? md : md.parent_path() / file;
            INFO(md.filename().string() << ": " << (*it)[0]);
            // docs/architecture.md is written by the structure work (issue 23).
            if (file == "architecture.md" || file == "docs/architecture.md")
                if (!fs::exists(target))
                    continue;
            REQUIRE(fs::exists(target));
            links++;
            if (anchor.empty())
                continue;
            std::set<std::string> anchors;
            std::istringstream in(slurp(target.string()));
            for (std::string line; std::getline(in, line);)
                if (line.rfind("#", 0) == 0)
                    anchors.insert(anchor_of(line.substr(line.find(' ') + 1)));
            CHECK(anchors.count(anchor.substr(1)));
        }
    }
    CHECK(links >= 15);
}

TEST_CASE("the build generates a man page and bash completion from the commands' help", "[repo]")
{
    std::string bin = SWAPSIM_BINARY;
    std::string dir = bin.substr(0, bin.rfind('/'));
    std::string man = slurp(dir + "/swapsim.1"), bash = slurp(dir + "/swapsim.bash");
    for (const char* sub : {"run", "validate", "params", "metrics", "schema", "compare", "calibrate", "sweep", "collect"}) {
        INFO(sub);
        CHECK(man.find(std::string(".SS ") + sub + "\n") != std::string::npos);
        CHECK(bash.find(std::string("    ") + sub + ") opts=") != std::string::npos);
    }
    CHECK(man.find("--baseline") != std::string::npos);
    CHECK(bash.find("--job-list") != std::string::npos);
    std::string cmd = "bash -c 'source " + dir + "/swapsim.bash && complete -p swapsim' > /dev/null";
    CHECK(std::system(cmd.c_str()) == 0);
}
