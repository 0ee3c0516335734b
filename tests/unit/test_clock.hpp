// A plain clock for the timed kernel paths in tests (no SimGrid): time advances by the work
// handed to it, memory work at its own rate.
#pragma once

#include "kernel/kernel.hpp"

namespace swapsim::kernel {

class TestClock final : public Clock {
public:
    double now() const override { return t; }
    void cpu(int, double s) override { t += s; cpu_s += s; }
    void mem(int, double bytes, double rate) override { t += bytes / rate; mem_s += bytes / rate; }
    void sleep_until(double when) override
    {
        if (when > t) {
            slept += when - t;
            t = when;
        }
    }
    double t = 0, cpu_s = 0, mem_s = 0, slept = 0;
};

}  // namespace swapsim::kernel
