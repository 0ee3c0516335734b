#include "workload/process.hpp"

#include <algorithm>

namespace swapsim::workload {

using namespace kernel;

Process::Process(Kernel& k, int cpu) : k_(k)
{
    pid_ = int(k.nr_tasks());
    mm_ = k.mm_create(pid_, cpu);
    k.task_create(cpu, mm_);
}

uint32_t Process::mmap_anon(uint64_t npages)
{
    return k_.vma_create(mm_, npages);
}

uint32_t Process::mmap_file(uint32_t file)
{
    return k_.file_mmap(mm_, file);
}

void Process::munmap(Ctx& c, uint32_t vma)
{
    k_.exit_mmap_vma(c, mm_, vma);
    c.flush();
}

// One page of a user loop: fault it in if needed (paying memory.high debt on return to user
// mode), else mark it accessed. Returns the pages of its folio from `p` on (0: fault again).
uint64_t Process::touch_one(Ctx& c, uint32_t mm, uint32_t vma, uint64_t p, bool read, bool write)
{
    pte_t pte = k_.mms[mm].vmas[vma].pte[p];
    if (pte == PTE_NONE || pte_swap(pte) || (write && pte_wp(pte))) {
        // A read of a swapped page maps it read-only; the write that follows
        // takes a second (write-protect) fault.
        uint64_t covered = k_.handle_mm_fault(c, mm, vma, uint32_t(p), write && !(read && pte_swap(pte)));
        if (c.task.oom_victim)   // SIGKILL: the loop does not resume
            return std::max<uint64_t>(covered, 1);
        if (write && read && pte_swap(pte))
            k_.handle_mm_fault(c, mm, vma, uint32_t(p), true);
        if (c.task.memcg_nr_pages_over_high) {
            c.flush();
            k_.resume_user_mode(c);
        }
        return covered;
    }
    return k_.touch_present(mm, vma, uint32_t(p));
}

void Process::loop(Ctx& c, uint32_t mm, uint32_t vma, uint64_t first, uint64_t npages, bool read, bool write,
                   double bw, uint64_t chunk)
{
    const uint64_t end = first + npages;
    const uint64_t chunk_pages = std::max<uint64_t>(1, chunk / mm::PAGE_SIZE);
    const double passes = (read ? 1.0 : 0.0) + (write ? 1.0 : 0.0);
    uint64_t p = first;
    while (p < end) {
        uint64_t step_end = std::min(end, p + chunk_pages);
        while (p < step_end) {
            uint64_t covered = std::min(touch_one(c, mm, vma, p, read, write), end - p);
            if (c.task.oom_victim)
                return;
            c.mem(passes * double(covered * mm::PAGE_SIZE), bw, false);
            p += covered;
        }
        c.flush();
    }
}

void Process::touch_list(Ctx& c, uint32_t mm, uint32_t vma, const std::vector<uint32_t>& pages, bool write,
                         double bw, uint64_t chunk)
{
    const uint64_t chunk_pages = std::max<uint64_t>(1, chunk / mm::PAGE_SIZE);
    for (size_t i = 0; i < pages.size(); i++) {
        while (!touch_one(c, mm, vma, pages[i], !write, write)) {   // 0: the fault must be taken again
        }
        if (c.task.oom_victim)
            return;
        if (bw > 0)
            c.mem(double(mm::PAGE_SIZE), bw, false);
        if ((i + 1) % chunk_pages == 0)
            c.flush();
    }
    c.flush();
}

void Process::touch_pages(Ctx& c, uint32_t vma, const std::vector<uint32_t>& pages, bool write, double bw,
                          uint64_t chunk)
{
    touch_list(c, mm_, vma, pages, write, bw, chunk);
}

void Process::file_read_pages(Ctx& c, uint32_t file_mm, const std::vector<uint32_t>& pages, uint64_t chunk)
{
    touch_list(c, file_mm, 0, pages, false, 0, chunk);
}

void Process::touch(Ctx& c, uint32_t vma, uint64_t p, bool write)
{
    while (!touch_one(c, mm_, vma, p, !write, write)) {   // 0: the fault must be taken again
    }
}

void Process::access(Ctx& c, uint32_t vma, uint64_t first, uint64_t n, bool read, bool write, double bw,
                     uint64_t chunk)
{
    loop(c, mm_, vma, first, n, read, write, bw, chunk);
}

void Process::file_access(Ctx& c, uint32_t file_mm, uint64_t first, uint64_t n, bool write, double bw,
                          uint64_t chunk)
{
    loop(c, file_mm, 0, first, n, !write, write, bw, chunk);
}

Process Process::fork(Ctx& c, int cpu)
{
    int child = int(k_.nr_tasks());
    uint32_t cmm = k_.fork_mm(c, mm_, child, cpu);
    k_.task_create(cpu, cmm);
    return Process(k_, child, cmm);
}

void Process::exec(Ctx& c)
{
    k_.exit_mmap(c, mm_);
    k_.mm_drop(mm_);
    c.flush();
}

void Process::exit(Ctx& c)
{
    k_.exit_mmap(c, mm_);
    c.flush();
    k_.task_exited(c.task);
    k_.sched_sleep(c.task);
}

void Process::release()
{
    k_.mm_drop(mm_);
}

void Process::user(Ctx& c, double s)
{
    c.user(s);
    c.flush();
}

}  // namespace swapsim::workload
