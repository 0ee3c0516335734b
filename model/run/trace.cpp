#include "run/trace.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "kernel/kernel.hpp"

namespace swapsim::run {

Tracer::Tracer(const kernel::Kernel& k, const std::string& path)
    : k_(k), f_(std::fopen(path.c_str(), "w")), path_(path)
{
    if (!f_)
        throw std::runtime_error(path + ": cannot write the trace: " + std::strerror(errno));
    std::fputs("t_s,memcg_usage_bytes,memory_high_bytes,swapout_pages_per_s,tasks_in_reclaim,throttled_tasks,"
               "io_wait_tasks,lock_spin_cpus,iaa_queue_depth,ssd_queue_depth\n",
               f_);
}

Tracer::~Tracer()
{
    if (f_)
        std::fclose(f_);
}

void Tracer::close()
{
    bool bad = std::ferror(f_) != 0;
    int err = 0;   // an earlier failed write's errno is gone: say what a trace runs into
    if (std::fflush(f_) != 0 && !bad) {
        bad = true;
        err = errno;
    }
    if (std::fclose(f_) != 0 && !bad) {
        bad = true;
        err = errno;
    }
    f_ = nullptr;
    if (bad)   // a full disk (ENOSPC), a file size limit: no partial trace passes for a whole one
        throw std::runtime_error(path_ + ": cannot write the trace: " +
                                 (err ? std::strerror(err) : "a write failed (disk full or a file size limit?)"));
}

void Tracer::sample(double t)
{
    double swapout = double(k_.vm[mm::PSWPOUT] + k_.vm[mm::ZSWPOUT]);
    double throttled = 0, io_wait = 0, spin = 0;
    int in_reclaim = 0;
    for (size_t pid = 0; pid < k_.nr_tasks(); pid++) {
        const kernel::Task& task = k_.task(int(pid));
        throttled += task.throttled_s;
        io_wait += task.io_wait_s;
        in_reclaim += task.memalloc;
    }
    for (const auto& [name, st] : k_.lock_stats())
        spin += st->spin_s;
    double iaa_wait = k_.iaa ? k_.iaa->queue_wait_s() : 0, ssd_wait = k_.ssd ? k_.ssd->queue_wait_s() : 0;
    double dt = t - t_;
    auto rate = [dt](double now, double& last) {
        double r = dt > 0 ? (now - last) / dt : 0;
        last = now;
        return r;
    };
    double high = double(k_.memcg.memory.high);
    std::fprintf(f_, "%.4f,%lld,%.0f,%.0f,%d,%.3f,%.3f,%.3f,%.3f,%.3f\n", t,
                 (long long)(k_.memcg.memory.usage * int64_t(mm::PAGE_SIZE)),
                 high >= 1e18 ? -1.0 : high * double(mm::PAGE_SIZE), rate(swapout, swapout_), in_reclaim,
                 rate(throttled, throttled_), rate(io_wait, io_wait_), rate(spin, spin_), rate(iaa_wait, iaa_wait_),
                 rate(ssd_wait, ssd_wait_));
    t_ = t;
}

}  // namespace swapsim::run
