// The heap of a process about to build a large model in memory (fsmove analyze on a long
// trace): kept in huge pages where the kernel gives them on request.
#pragma once

#include <cstddef>

namespace fsmove::base {

// Makes malloc serve every thread, and blocks up to `reserve_bytes`, from one heap that it never
// returns to the system, extends that heap by `reserve_bytes` now, and asks the kernel for
// transparent huge pages on it (madvise MADV_HUGEPAGE: honoured where
// /sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise", as Debian ships it).
//
// Why: a long analysis touches its model's memory a few pages at a time, and each first touch of
// a 4 KiB page is a page fault. On bare metal that is a fraction of a microsecond; in a virtual
// machine whose guest page tables are shadowed, this project's, build/bench/page_fault_bench
// measured 12 us, against 0.22 us per 4 KiB when one fault maps 2 MiB: faults were a sixth of
// the analysis of a 115 MB trace. What is never touched costs nothing but address space; the
// resident set grows by at most the rounding to 2 MiB of what is.
//
// Call once, early, while the process has one thread and before it forks (huge pages make a
// child's copy-on-write coarser). Returns false when the heap could not be extended
// (malloc's settings are changed either way); the process then runs in ordinary pages.
bool UseHugePageHeap(size_t reserve_bytes);

}  // namespace fsmove::base
