// Reads a valgrind lackey trace (`--tool=lackey --trace-mem=yes`) on stdin and prints, for the
// traced process's data accesses, how its pages are touched again over its life: the life is cut
// into S equal segments of data accesses (S = argv[1], default 8, the model's
// workload.kbuild.steps), and per segment it counts the pages first touched and the distinct
// pages touched again (first touched in an earlier segment). Used by tools/measure_heap_reuse.sh
// for workload.kbuild.heap_reuse. The trace (tens of GB) is read once: each page keeps the list
// of 2^16-access windows it was touched in, mapped to segments at the end.
// Also the shape of the reuse: carried[s] = pages touched in segment s and in s - 1 (a working
// set kept from one segment to the next), and live_segments[k] = pages touched in k + 1
// distinct segments (a hot set shows as pages touched in every segment of their life), and
// windows_in_segment[k] = (page, segment) pairs whose page is touched in 2^k to 2^(k+1) - 1 of
// the segment's 2^16-access windows (how often a page is taken up again within a segment).
// Output: one JSON object on stdout.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <vector>

// `, "name": [v0, v1, ...]`: a JSON field (not the first) of the first n values.
static void print_array(const char* name, const std::vector<uint64_t>& v, size_t n)
{
    std::printf(", \"%s\": [", name);
    for (size_t i = 0; i < n; i++)
        std::printf("%s%llu", i ? ", " : "", (unsigned long long)v[i]);
    std::printf("]");
}

// The log2 bucket of a count of windows (1: 0, 2-3: 1, ...), at most 23.
static size_t log2_bucket(uint64_t n) { return size_t(std::min(23, 63 - __builtin_clzll(n))); }

int main(int argc, char** argv)
{
    const int segs = argc > 1 ? std::atoi(argv[1]) : 8;
    const unsigned win_shift = 16;
    std::unordered_map<uint64_t, std::vector<uint32_t>> pages;   // page -> windows touched
    pages.reserve(1 << 20);
    uint64_t n = 0;
    char line[256];
    while (std::fgets(line, sizeof line, stdin)) {
        // data lines: " L addr,size", " S addr,size", " M addr,size"; instruction lines "I  ..."
        if (line[0] != ' ' || (line[1] != 'L' && line[1] != 'S' && line[1] != 'M'))
            continue;
        uint64_t pg = std::strtoull(line + 3, nullptr, 16) >> 12;
        uint32_t w = uint32_t(n++ >> win_shift);
        std::vector<uint32_t>& v = pages[pg];
        if (v.empty() || v.back() != w)
            v.push_back(w);
    }
    const double windows = double((n >> win_shift) + 1);
    std::vector<uint64_t> fresh(size_t(segs), 0), again(size_t(segs), 0), carried(size_t(segs), 0),
        live(size_t(segs), 0);
    std::vector<uint64_t> wins(24, 0);   // log2 histogram of windows per (page, segment)
    for (auto& [pg, v] : pages) {
        int last = -1, count = 0;
        uint64_t in_seg = 0;
        for (uint32_t w : v) {
            int s = std::min(segs - 1, int(double(w) * segs / windows));
            if (s == last) {
                in_seg++;
                continue;
            }
            if (in_seg)
                wins[log2_bucket(in_seg)]++;
            in_seg = 1;
            (last < 0 ? fresh : again)[size_t(s)]++;
            if (last >= 0 && last == s - 1)
                carried[size_t(s)]++;
            last = s;
            count++;
        }
        if (in_seg)
            wins[log2_bucket(in_seg)]++;
        live[size_t(count - 1)]++;
    }
    // The model's estimator: segment s touches have (1 - exp(-reuse / S)) distinct old pages,
    // have = pages first touched before s. Solved over all segments together.
    double have = 0, sum_have = 0, sum_again = 0;
    for (size_t s = 0; s < size_t(segs); s++) {
        sum_have += have;
        sum_again += double(again[s]);
        have += double(fresh[s]);
    }
    double frac = sum_have > 0 ? sum_again / sum_have : 0;
    double reuse = frac <= 0 ? 0.0 : frac < 1 ? -double(segs) * std::log(1 - frac) : INFINITY;
    std::printf("{\"accesses\": %llu, \"segments\": %d, \"pages\": %zu", (unsigned long long)n, segs,
                pages.size());
    print_array("fresh", fresh, size_t(segs));
    print_array("again", again, size_t(segs));
    print_array("carried", carried, size_t(segs));
    print_array("live_segments", live, size_t(segs));
    size_t top = wins.size() - 1;
    while (top > 0 && !wins[top])
        top--;
    print_array("windows_in_segment", wins, top + 1);
    std::printf(", \"again_fraction\": %.4f, \"heap_reuse\": %.3f}\n", frac, reuse);
    return 0;
}
