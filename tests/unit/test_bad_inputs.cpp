// Every case in tests/bad/ is rejected by `swapsim validate` with exit status 2, nothing on
// stdout and exactly the one line in X.expected on stderr. A case is X.json (run as
// `swapsim validate tests/bad/X.json`) or X.args (the command line, one argument per line).
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "run_cmd.hpp"

namespace fs = std::filesystem;
using swapsim_test::slurp;

namespace {

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        if (nl == std::string::npos)
            break;
        start = nl + 1;
    }
    return out;
}

}  // namespace

TEST_CASE("bad inputs in tests/bad are rejected with the expected one-line message", "[cli][bad]")
{
    const fs::path dir = fs::path(SWAPSIM_SOURCE_DIR) / "tests" / "bad";
    std::set<std::string> cases;
    for (const auto& e : fs::directory_iterator(dir)) {
        auto ext = e.path().extension();
        if (ext == ".json" || ext == ".args")
            cases.insert(e.path().stem().string());
    }
    // Guards against an empty or misplaced corpus passing silently.
    REQUIRE(cases.size() >= 30);

    for (const auto& name : cases) {
        fs::path base = dir / name;
        std::vector<std::string> args{"validate", "tests/bad/" + name + ".json"};
        if (fs::exists(base.string() + ".args"))
            args = lines(slurp(base.string() + ".args"));
        std::string cmd = "swapsim";
        for (const auto& a : args)
            cmd += " " + a;
        INFO("case " << name << ": " << cmd);
        REQUIRE(fs::exists(base.string() + ".expected"));
        std::string expected = slurp(base.string() + ".expected");
        CHECK(std::count(expected.begin(), expected.end(), '\n') == 1);
        auto r = swapsim_test::run_swapsim(args);
        CHECK(r.status == 2);
        CHECK(r.out.empty());
        CHECK(r.err == expected);
    }
}
