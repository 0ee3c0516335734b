// Unit strings, cpulists and the human form of values.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <regex>

#include "scenario/detail.hpp"
#include "scenario/registry.hpp"

using namespace swapsim::scenario;
using nlohmann::json;

namespace {

constexpr double K = 1024, M = K * K, G = M * K, T = G * K;
const double inf = std::numeric_limits<double>::infinity();

ParamDef def_of(Kind k)
{
    ParamDef d;
    d.name = "x";
    d.kind = k;
    d.min = 0;
    d.max = 2 * M;
    return d;
}

std::string reject_message(double (*parse)(const json&), const json& v)
{
    try {
        parse(v);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST_CASE("parse_size: memparse suffixes are binary and case-insensitive", "[units]")
{
    CHECK(parse_size("40G") == 40 * G);
    CHECK(parse_size("40g") == 40 * G);
    CHECK(parse_size("64K") == 64 * K);
    CHECK(parse_size("64k") == 64 * K);
    CHECK(parse_size("64KiB") == 64 * K);
    CHECK(parse_size("64kB") == 64 * K);
    CHECK(parse_size("64KB") == 64 * K);
    CHECK(parse_size("1536M") == 1536 * M);
    CHECK(parse_size("1.5G") == 1536 * M);
    CHECK(parse_size("2T") == 2 * T);
    CHECK(parse_size("3MiB") == 3 * M);
    CHECK(parse_size("100B") == 100);
    CHECK(parse_size("4096") == 4096);
    CHECK(parse_size(4096) == 4096);
    CHECK(parse_size(0) == 0);
    CHECK(parse_size("1e15") == 1e15);
    CHECK(parse_size("0.5K") == 512);
    CHECK(parse_size("1.1K") == 1126);  // rounded to whole bytes
}

TEST_CASE("parse_size rejects garbage, negatives and non-finite values", "[units]")
{
    for (const char* s : {"12Q", "-1G", "", "G", "1.5.G", "inf", "nan", "NaN", "1 G", " 1G", "1G ", "1e999",
                          "0x10", "1GG", ".5G", "5.G", "1Gb/s", "max", "+1G", "1,5G"}) {
        INFO(s);
        CHECK_THROWS_AS(parse_size(s), std::invalid_argument);
    }
    CHECK_THROWS_AS(parse_size(-1), std::invalid_argument);
    CHECK_THROWS_AS(parse_size(true), std::invalid_argument);
    CHECK_THROWS_AS(parse_size(nullptr), std::invalid_argument);
    CHECK_THROWS_AS(parse_size(json::array({1})), std::invalid_argument);
    CHECK(reject_message(parse_size, "12Q") ==
          "expected a size like \"40G\", \"64K\" or a number of bytes, got \"12Q\"");
}

TEST_CASE("parse_time: ns/us/ms/s, bare number is seconds", "[units]")
{
    CHECK(parse_time("10s") == 10);
    CHECK(parse_time("500ms") == 0.5);
    CHECK(parse_time("3us") == 3e-6);
    CHECK(parse_time("3\xc2\xb5s") == 3e-6);
    CHECK(parse_time("120ns") == 120e-9);
    CHECK(parse_time("60us") == 60e-6);
    CHECK(parse_time("2") == 2);
    CHECK(parse_time(2.5) == 2.5);
    CHECK(parse_time("1.5e3ms") == 1.5);
    for (const char* s : {"10 s", "10S", "2min", "-1s", "10sec", "s", "1h", "1e999s"}) {
        INFO(s);
        CHECK_THROWS_AS(parse_time(s), std::invalid_argument);
    }
    CHECK(reject_message(parse_time, "2min") ==
          "expected a time like \"10s\", \"500ms\" or a number of seconds, got \"2min\"");
}

TEST_CASE("parse_rate: decimal MB/s, binary MiB/s, bytes not bits", "[units]")
{
    CHECK(parse_rate("530MB/s") == 530e6);
    CHECK(parse_rate("2GB/s") == 2e9);
    CHECK(parse_rate("2GiB/s") == 2 * G);
    CHECK(parse_rate("100KB/s") == 1e5);
    CHECK(parse_rate("100kB/s") == 1e5);
    CHECK(parse_rate("1.5TB/s") == 1.5e12);
    CHECK(parse_rate("7B/s") == 7);
    CHECK(parse_rate(1000) == 1000);
    CHECK(parse_rate("1000") == 1000);
    for (const char* s : {"1Gb/s", "530MB", "MB/s", "530mb/s", "530 MB/s", "-5MB/s", "5MiB"}) {
        INFO(s);
        CHECK_THROWS_AS(parse_rate(s), std::invalid_argument);
    }
}

TEST_CASE("parse_freq: Hz/kHz/MHz/GHz", "[units]")
{
    CHECK(parse_freq("2.5GHz") == 2.5e9);
    CHECK(parse_freq("2500MHz") == 2.5e9);
    CHECK(parse_freq("800kHz") == 800e3);
    CHECK(parse_freq("800KHz") == 800e3);
    CHECK(parse_freq("1.1GHz") == 1.1e9);  // digits scaled exactly, not 1.1 * 1e9
    CHECK(parse_freq("50Hz") == 50);
    CHECK(parse_freq(3e9) == 3e9);
    for (const char* s : {"2.5 GHz", "2.5G", "2.5ghz", "GHz", "-1Hz"}) {
        INFO(s);
        CHECK_THROWS_AS(parse_freq(s), std::invalid_argument);
    }
}

TEST_CASE("parse_cpulist: kernel cpulist syntax", "[units]")
{
    auto v = parse_cpulist("0-55,112-167", 224);
    REQUIRE(v.size() == 112);
    CHECK(v.front() == 0);
    CHECK(v[55] == 55);
    CHECK(v[56] == 112);
    CHECK(v.back() == 167);
    CHECK(parse_cpulist("all", 4) == std::vector<int>{0, 1, 2, 3});
    CHECK(parse_cpulist("7", 8) == std::vector<int>{7});
    CHECK(parse_cpulist("3,1", 8) == std::vector<int>{1, 3});
    CHECK(parse_cpulist("0-15:2/4", 16) == std::vector<int>{0, 1, 4, 5, 8, 9, 12, 13});
    for (const char* s : {"", "0-", "-1", "5-3", "0-3,2-5", "a", "0,,1", ",0", "0,", "1:2/3", "0-3:3/2",
                          "0-3:0/2", " 0", "0 ", "0-3:2", "1,1", "99999999"}) {
        INFO(s);
        CHECK_THROWS_AS(parse_cpulist(s, 4096), std::invalid_argument);
    }
    try {
        parse_cpulist("0-224", 224);
        FAIL("CPU 224 of 224 accepted");
    } catch (const std::invalid_argument& e) {
        CHECK(std::string(e.what()) == "CPU 224 does not exist: the machine has 224 CPUs (0-223)");
    }
    try {
        parse_cpulist("0-3,2-5", 8);
        FAIL("overlap accepted");
    } catch (const std::invalid_argument& e) {
        CHECK(std::string(e.what()) ==
              "expected a CPU list like \"0-55,112-167\" or \"all\", got \"0-3,2-5\" (CPU 2 is listed twice)");
    }
}

TEST_CASE("format_value: human forms", "[units]")
{
    ParamDef size = def_of(Kind::Size), time = def_of(Kind::Time), rate = def_of(Kind::Rate),
             freq = def_of(Kind::Freq), list = def_of(Kind::SizeList), integer = def_of(Kind::Int),
             real = def_of(Kind::Real), flag = def_of(Kind::Bool), choice = def_of(Kind::Enum);
    CHECK(format_value(size, 40 * G) == "40G");
    CHECK(format_value(size, 64 * K) == "64K");
    CHECK(format_value(size, 1536 * M) == "1536M");
    CHECK(format_value(size, 503 * G) == "503G");
    CHECK(format_value(size, 1280 * K) == "1280K");
    CHECK(format_value(size, 2 * T) == "2T");
    CHECK(format_value(size, 1000) == "1000");
    CHECK(format_value(size, 0) == "0");
    CHECK(format_value(size, 1e15) == "1e15");
    CHECK(format_value(size, inf) == "max");
    CHECK(format_value(size, "40G") == "40G");
    CHECK(format_value(size, "max") == "max");
    CHECK(format_value(time, 10) == "10s");
    CHECK(format_value(time, 60e-6) == "60us");
    CHECK(format_value(time, 0.5) == "500ms");
    CHECK(format_value(time, 120e-9) == "120ns");
    CHECK(format_value(time, 1.5) == "1.5s");
    CHECK(format_value(time, 3600) == "3600s");
    CHECK(format_value(time, 0) == "0s");
    CHECK(format_value(rate, 530e6) == "530MB/s");
    CHECK(format_value(rate, 2 * G) == "2GiB/s");
    CHECK(format_value(rate, 1e5) == "100kB/s");
    CHECK(format_value(freq, 2.5e9) == "2.5GHz");
    CHECK(format_value(freq, 800e3) == "800kHz");
    CHECK(format_value(freq, 2.5e6) == "2.5MHz");
    CHECK(format_value(list, json::array({16 * K, 64 * K})) == "16K,64K");
    CHECK(format_value(list, json::array()) == "none");
    CHECK(format_value(integer, 5) == "5");
    CHECK(format_value(integer, -1) == "-1");
    CHECK(format_value(real, 0.25) == "0.25");
    CHECK(format_value(flag, false) == "false");
    CHECK(format_value(choice, "zstd") == "zstd");
}

TEST_CASE("format_value round-trips through the parsers exactly", "[units]")
{
    ParamDef size = def_of(Kind::Size), time = def_of(Kind::Time), rate = def_of(Kind::Rate),
             freq = def_of(Kind::Freq);
    uint64_t x = 88172645463325252ull;  // xorshift: deterministic "random" values
    auto next = [&] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    };
    for (int i = 0; i < 2000; i++) {
        double mant = double(next() % 1000000) / double(1 + next() % 1000);
        double e = std::pow(10.0, double(int(next() % 24) - 12));
        double v = mant * e;
        INFO(v);
        CHECK(parse_time(format_value(time, v)) == v);
        CHECK(parse_rate(format_value(rate, v)) == v);
        CHECK(parse_freq(format_value(freq, v)) == v);
        double bytes = std::round(v);
        if (bytes < 1e15)
            CHECK(parse_size(format_value(size, bytes)) == bytes);
    }
    for (double v : {1.1e9, 3.3e-6, 0.1, 1e-9, 7.5e-7, 12345.678, 1e-12, 123456789.0})
        CHECK(parse_time(format_value(time, v)) == v);
    for (double b : {123456789.0, 4095.0, 1e15, 4.0 * T + K, 65536.0})
        CHECK(parse_size(format_value(size, b)) == b);
}

// Syntax only: a pattern cannot see that "1e999" overflows.
TEST_CASE("schema patterns accept exactly the strings the parsers accept", "[units][schema]")
{
    const std::vector<std::string> samples = {
        "40G", "40g", "64KiB", "64kB", "1.5G", "4096", "100B", "1e15", "12Q", "-1G", "", "1 G", "max", "10s",
        "500ms", "3us", "3\xc2\xb5s", "120ns", "2min", "10S", "530MB/s", "2GiB/s", "100kB/s", "1Gb/s", "2.5GHz",
        "800kHz", "2.5G", "2.5ghz", "0", ".5", "5.", "1GG", "1E3", "7KHz", "3TiB/s", "1kiB/s"};
    for (Kind k : {Kind::Size, Kind::Time, Kind::Rate, Kind::Freq}) {
        std::regex re(detail::unit_pattern(k, false), std::regex::ECMAScript);
        for (const auto& s : samples) {
            bool parses = detail::parse_unit_string(k, s).has_value();
            INFO(kind_name(k) << " \"" << s << "\"");
            CHECK(std::regex_match(s, re) == parses);
        }
    }
    std::regex with_max(detail::unit_pattern(Kind::Size, true), std::regex::ECMAScript);
    CHECK(std::regex_match(std::string("max"), with_max));
    CHECK_FALSE(std::regex_match(std::string("max"), std::regex(detail::unit_pattern(Kind::Size, false))));
}

TEST_CASE("edit distance counts a transposition as one edit", "[units]")
{
    CHECK(detail::edit_distance("hihg", "high") == 1);
    CHECK(detail::edit_distance("high", "high") == 0);
    CHECK(detail::edit_distance("", "abc") == 3);
    CHECK(detail::edit_distance("zstdd", "zstd") == 1);
    CHECK(detail::edit_distance("kitten", "sitting") == 3);
    CHECK(detail::closest("zsdt", {"zstd", "lz4", "lzo-rle"}) == "zstd");
    CHECK(detail::closest("gzip", {"zstd", "lz4", "lzo-rle"}).empty());
}
