// A run's time series (swapsim run --trace FILE) and its progress line on a terminal.
// Both are engine daemons that wake every `step` of simulated time and only read kernel
// state, so the simulation is the same with or without them; with neither, nothing runs.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace swapsim::kernel { class Kernel; }

namespace swapsim::run {

// CSV, one row per step: the state at t and the rates over the step before it.
//   t_s                   simulated time
//   memcg_usage_bytes     memory.current;  memory_high_bytes: memory.high
//   swapout_pages_per_s   (pswpout + zswpout) per second over the step
//   tasks_in_reclaim      tasks in reclaim (PF_MEMALLOC) at t
//   throttled_tasks       mean tasks asleep in the memory.high penalty over the step
//   io_wait_tasks         mean tasks waiting for a request tag or a read
//   lock_spin_cpus        mean CPUs spinning on a contended spinlock (all lock classes)
//   iaa_queue_depth       mean IAA jobs waiting for an engine (Little's law: queue wait per second)
//   ssd_queue_depth       mean swap-device requests waiting for the medium
class Tracer {
public:
    Tracer(const kernel::Kernel& k, const std::string& path);   // throws naming the file
    ~Tracer();
    void sample(double t);   // append the row at simulated time t
    void close();            // flush and close; throws naming the file if a write failed

private:
    const kernel::Kernel& k_;
    FILE* f_;
    std::string path_;
    double t_ = 0, swapout_ = 0, throttled_ = 0, io_wait_ = 0, spin_ = 0, iaa_wait_ = 0, ssd_wait_ = 0;
};

}  // namespace swapsim::run
