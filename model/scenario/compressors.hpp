// Measured compressor ratio and cost per codec, data kind and block size, from
// calibration/compressors/table.json (compiled in; made by tools/compressor_table.py from the
// measurements of compressors.md). Between the measured blocks (4K, 16K, 64K, 2M) values are
// interpolated linearly in log2(block size).
#pragma once

#include <string>

namespace swapsim::scenario {

struct CodecPoint {
    double ratio = 1;       // compressed / original bytes
    double comp_ns = 0;     // CPU time per 4 KiB of original data (library, measurement VM)
    double decomp_ns = 0;
};

// codec: zram name (lzo-rle, lz4, zstd); kind: usemem, mixed, elf, text, random, zero;
// order: block of 2^order pages (0-9). Throws std::invalid_argument for an unknown codec or kind.
CodecPoint codec_point(const std::string& codec, const std::string& kind, unsigned order);

// The compiled-in table (calibration/compressors/table.json).
const char* compressor_table_json();

}  // namespace swapsim::scenario
