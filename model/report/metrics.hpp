// What each result.json metric is: unit, the kernel counter and the file a user reads it from
// on a real machine, and the mechanism in the model that produces it. `swapsim metrics` prints
// this table; a test fails when result.json holds a metric it does not document.
// Per-size mTHP stats are one entry each with "<size>" in the name (e.g. zswpout_<size>).
#pragma once

#include <string>
#include <vector>

namespace swapsim::report {

struct MetricDoc {
    std::string name;        // result.json key under "metrics" ("<size>": 64kB, 2048kB, ...)
    std::string unit;        // pages, folios, events, s, us, KB/s, bytes, tasks
    std::string kernel;      // the counter's kernel name and where a user reads it
    std::string mechanism;   // what produces it in the model: kernel function, model file
};

const std::vector<MetricDoc>& metric_docs();
// The entry documenting `name` (a per-size name matches its "<size>" entry), or nullptr.
const MetricDoc* find_metric_doc(const std::string& name);

}  // namespace swapsim::report
