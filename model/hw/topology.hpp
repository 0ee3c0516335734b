// CPU topology: sockets x cores x SMT threads with Linux's logical CPU numbering, and where
// the scheduler puts N new tasks.
//
// Numbering as Linux enumerates a 2-socket SMT x86 server: CPUs 0..S*C-1 are the first thread
// of each core, socket by socket; CPUs S*C..2*S*C-1 are their SMT siblings in the same order.
// Placement models fork balancing (sched_balance_find_dst_cpu): the idlest socket first,
// a fully idle core before an idle sibling thread. Later moves (select_idle_sibling at
// wakeup, a task on a shared core pulled to an idle core) are Kernel::sched_wakeup and
// Kernel::sched_balance.
// Granularity: one CPU per task at fork. Leaves out: load balancing by load, cgroup cpu
// controllers.
#pragma once

#include <vector>

namespace swapsim::hw {

struct Topology {
    int sockets = 1, cores_per_socket = 1, threads_per_core = 1;

    int nr_cpus() const { return sockets * cores_per_socket * threads_per_core; }
    int nr_cores() const { return sockets * cores_per_socket; }
    int core_of(int cpu) const { return cpu % nr_cores(); }
    int thread_of(int cpu) const { return cpu / nr_cores(); }
    int socket_of(int cpu) const { return core_of(cpu) / cores_per_socket; }
    int sibling(int cpu) const;   // the other thread of the core, or -1 without SMT
};

// CPUs for `n` tasks, in fork order, chosen from `allowed`. More tasks than CPUs wrap around
// (tasks then share a CPU).
std::vector<int> place_tasks(const Topology& t, const std::vector<int>& allowed, int n);

}  // namespace swapsim::hw
