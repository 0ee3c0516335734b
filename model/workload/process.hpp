// A process in the kernel's terms: the interface every workload speaks (usemem, swapinout,
// kbuild, ...). Each call runs the kernel path a real process would enter.
//
// Models: mmap / munmap of private anonymous memory (munmap: zap_pte_range + free_pgtables);
// a user loop reading or writing a page range (faults on pages not present, on swap entries
// and on write-protected PTEs; memory.high debt paid on return to user mode); fork
// (copy_page_range with COW, kernel/fork.cpp), exec (the old mm released) and exit
// (exit_mmap); read(2)/write(2) of a tmpfs file (shmem page cache, Kernel::shmem_create);
// CPU work in user mode.
// Granularity: an access advances `chunk` bytes per simulated step and breaks the step at a
// fault that leaves memory.high debt; a file access is the same loop on the file's pages.
// Executable file mappings (mmap_file) are read through touch().
// Leaves out: writable file mappings, read(2) of files on disk, mprotect, mremap, threads,
// the syscall entry cost of read/write (the copy is the user loop's bandwidth).
#pragma once

#include <cstdint>
#include <vector>

#include "kernel/kernel.hpp"

namespace swapsim::workload {

class Process {
public:
    // A new task on `cpu` with an empty mm.
    Process(kernel::Kernel& k, int cpu);
    int pid() const { return pid_; }
    uint32_t mm() const { return mm_; }
    kernel::Task& task() { return k_.task(pid_); }

    uint32_t mmap_anon(uint64_t npages);   // a new VMA; returns its index in the mm
    // mmap(PROT_READ | PROT_EXEC, MAP_PRIVATE) of a whole file (Kernel::file_create): faults
    // are filemap_fault's; returns the VMA's index in the mm.
    uint32_t mmap_file(uint32_t file);
    void munmap(kernel::Ctx& c, uint32_t vma);

    // The user loop over pages [first, first + n) of a VMA: `read`, `write` or both (each page
    // read, then written: a swapped page takes a read fault, then a write-protect fault).
    // `bw`: bytes/s of the loop per pass; `chunk`: bytes per simulated step.
    void access(kernel::Ctx& c, uint32_t vma, uint64_t first, uint64_t n, bool read, bool write, double bw,
                uint64_t chunk);
    // The same for a list of pages in the given order (a random access pattern).
    void touch_pages(kernel::Ctx& c, uint32_t vma, const std::vector<uint32_t>& pages, bool write, double bw,
                     uint64_t chunk);
    // One access to page `p` of a VMA, faulting it in as needed; the caller prices the work
    // (a server's request touches a few bytes of each page, not the page).
    void touch(kernel::Ctx& c, uint32_t vma, uint64_t p, bool write);
    // read(2) of the listed pages of a tmpfs file, each faulted in if swapped out; the caller
    // prices the copy (a compile job's measured sys time holds its header reads).
    void file_read_pages(kernel::Ctx& c, uint32_t file_mm, const std::vector<uint32_t>& pages, uint64_t chunk);
    // read(2) / write(2) of pages [first, first + n) of a tmpfs file (shmem_create's mm).
    void file_access(kernel::Ctx& c, uint32_t file_mm, uint64_t first, uint64_t n, bool write, double bw,
                     uint64_t chunk);

    // fork: a child task on `cpu` with a COW copy of this mm.
    Process fork(kernel::Ctx& c, int cpu);
    void exec(kernel::Ctx& c);   // the mm's memory is released; the caller maps the new image
    void exit(kernel::Ctx& c);   // exit_mmap, then the task leaves its CPU for good
    void user(kernel::Ctx& c, double s);   // CPU work in user mode
    void release();   // after exit: the model's memory for the mm (its page-table arrays) goes

private:
    Process(kernel::Kernel& k, int pid, uint32_t mm) : k_(k), pid_(pid), mm_(mm) {}
    uint64_t touch_one(kernel::Ctx& c, uint32_t mm, uint32_t vma, uint64_t p, bool read, bool write);
    void loop(kernel::Ctx& c, uint32_t mm, uint32_t vma, uint64_t first, uint64_t n, bool read, bool write,
              double bw, uint64_t chunk);
    // touch_pages on any mm; bw 0: the copy is not priced here.
    void touch_list(kernel::Ctx& c, uint32_t mm, uint32_t vma, const std::vector<uint32_t>& pages, bool write,
                    double bw, uint64_t chunk);
    kernel::Kernel& k_;
    int pid_ = 0;
    uint32_t mm_ = 0;
};

}  // namespace swapsim::workload
