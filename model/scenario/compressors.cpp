#include "scenario/compressors.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace swapsim::scenario {

CodecPoint codec_point(const std::string& codec, const std::string& kind, unsigned order)
{
    static const nlohmann::json table = nlohmann::json::parse(compressor_table_json()).at("codecs");
    if (!table.contains(codec) || !table[codec].contains(kind))
        throw std::invalid_argument("no compressor measurements for " + codec + " on " + kind + " data");
    const nlohmann::json& k = table[codec][kind];
    static const struct { const char* name; unsigned order; } blocks[] = {{"4K", 0}, {"16K", 2}, {"64K", 4}, {"2M", 9}};
    auto at = [&](size_t i) {
        const nlohmann::json& b = k.at(blocks[i].name);
        return CodecPoint{b.at("ratio").get<double>(), b.at("comp_ns_per_4k").get<double>(),
                          b.at("decomp_ns_per_4k").get<double>()};
    };
    size_t hi = 1;
    while (hi + 1 < std::size(blocks) && blocks[hi].order < order)
        hi++;
    CodecPoint a = at(hi - 1), b = at(hi);
    double t = std::clamp((double(order) - blocks[hi - 1].order) / (blocks[hi].order - blocks[hi - 1].order), 0.0, 1.0);
    return {a.ratio + t * (b.ratio - a.ratio), a.comp_ns + t * (b.comp_ns - a.comp_ns),
            a.decomp_ns + t * (b.decomp_ns - a.decomp_ns)};
}

}  // namespace swapsim::scenario
