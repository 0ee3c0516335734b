// Every case in tests/bad/ is rejected by `swapsim validate` with exit status 2, nothing on
// stdout and exactly the one line in X.expected on stderr. A case is X.json (run as
// `swapsim validate tests/bad/X.json`) or X.args (the command line, one argument per line).
// Mutated copies of real scenarios are either valid or rejected the same way.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <random>
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

namespace {

// Every value of a scenario (objects, arrays and scalars), as JSON pointers.
void collect_paths(const nlohmann::json& j, const nlohmann::json::json_pointer& at,
                   std::vector<nlohmann::json::json_pointer>& out)
{
    if (!at.empty())
        out.push_back(at);
    if (j.is_object())
        for (const auto& [k, v] : j.items())
            collect_paths(v, at / k, out);
    else if (j.is_array())
        for (size_t i = 0; i < j.size(); i++)
            collect_paths(j[i], at / i, out);
}

}  // namespace

// Mutation fuzzing of real scenarios: each case replaces one value (or deletes its key) with
// a value of the wrong type, sign or size. `validate` must accept it (stdout "FILE: ok") or
// reject it with exit status 2, nothing on stdout and one line on stderr naming the file,
// never crash or print a partial result.
TEST_CASE("mutated scenarios are accepted or rejected in one line and never crash", "[cli][bad]")
{
    const std::vector<std::string> seeds{
        "scenarios/default.json",
        "scenarios/zswap-mthp-v7/iaa-batching-2m/iaa_canned_batching.json",
        "scenarios/zswap-mthp-v7/case2-2m/baseline_zstd.json",
        "tests/data/swapin.json",
    };
    const std::vector<nlohmann::json> weird{
        -1, 0, 1, 1.5, 1e308, -1e308, INT64_MIN, UINT64_MAX, "", "abc", "-1G", "0G", "1.5ms", "-5s",
        "99999999999999999999T", "1e400", "nan", "0-99999", "3-1", ",", true, nullptr,
        nlohmann::json::array(), nlohmann::json::object(), nlohmann::json::array({1}),
    };
    std::mt19937_64 rng(1);   // fixed: the same cases every run
    int accepted = 0, rejected = 0;
    for (const auto& seed : seeds) {
        auto base = nlohmann::json::parse(slurp(std::string(SWAPSIM_SOURCE_DIR) + "/" + seed));
        base.erase("$schema");
        std::vector<nlohmann::json::json_pointer> paths;
        collect_paths(base, nlohmann::json::json_pointer(), paths);
        for (int i = 0; i < 60; i++) {
            const auto& p = paths[rng() % paths.size()];
            size_t pick = rng() % (weird.size() + 1);
            nlohmann::json m = base;
            if (pick == weird.size()) {
                auto& parent = m[p.parent_pointer()];
                if (parent.is_object())
                    parent.erase(p.back());
                else
                    parent.erase(size_t(std::stoul(p.back())));
            } else {
                m[p] = weird[pick];
            }
            swapsim_test::TempFile f;
            std::string text = m.dump();
            REQUIRE(::write(f.fd, text.data(), text.size()) == ssize_t(text.size()));
            INFO(seed << " with " << p.to_string() << (pick == weird.size() ? " deleted" : " = " + weird[pick].dump()));
            auto r = swapsim_test::run_swapsim({"validate", f.path});
            REQUIRE((r.status == 0 || r.status == 2));
            if (r.status == 0) {
                CHECK(r.out == f.path + ": ok\n");
                accepted++;
            } else {
                CHECK(r.out.empty());
                CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
                CHECK(r.err.rfind(f.path + ": ", 0) == 0);
                rejected++;
            }
        }
    }
    // Most mutations are errors; some (a renamed scenario, a dropped optional key) are not.
    CHECK(rejected > 150);
    CHECK(accepted > 10);
}
