// libFuzzer target over the scenario loader and the --set parser (cmake -DSWAPSIM_FUZZ=ON with
// clang++; see README "Fuzzing and sanitisers"). An input is one --set argument on its first
// line, then a scenario file. Both must load or be rejected with an InputError whose message is
// one line naming the file; anything else (another exception, a crash, a sanitiser report) is a
// finding: turn it into a tests/bad case.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "scenario/registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::string in(reinterpret_cast<const char*>(data), size);
    size_t nl = in.find('\n');
    std::string set = nl == std::string::npos ? in : in.substr(0, nl);
    std::string text = nl == std::string::npos ? std::string() : in.substr(nl + 1);
    auto check = [](const swapsim::scenario::InputError& e, const char* file) {
        std::string w = e.what();
        if (w.find('\n') != std::string::npos || w.size() > 1200 || w.rfind(file, 0) != 0)
            std::abort();   // a message of more than one line, unbounded, or not naming the file
    };
    swapsim::scenario::LoadOptions lo;
    lo.sets.push_back(set);
    try {
        swapsim::scenario::load_defaults(lo);
    } catch (const swapsim::scenario::InputError& e) {
        check(e, "--set");
        lo.sets.clear();
    }
    try {
        swapsim::scenario::load_scenario_text(text, "fuzz.json", lo);
    } catch (const swapsim::scenario::InputError& e) {
        check(e, lo.sets.empty() ? "fuzz.json" : "");
    }
    return 0;
}
