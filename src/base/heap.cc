// See heap.h.
#include "fsmove/base/heap.h"

#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace fsmove::base {

namespace {
constexpr uintptr_t kPage = 4096;
// glibc serves a block from the heap only below its mmap threshold, at most 32 MiB on 64-bit.
constexpr size_t kMmapThreshold = size_t{32} << 20;
constexpr size_t kBlock = size_t{16} << 20;
}  // namespace

bool UseHugePageHeap(size_t reserve_bytes) {
  // One arena: the threads of the analysis share the main heap (theirs would be mapped apart,
  // without the advice), and allocate rarely enough that its lock costs nothing measurable.
  mallopt(M_ARENA_MAX, 1);
  // Blocks come from the heap rather than from mappings of their own (a batch's 256 KiB buffer,
  // a grown hash table), and the heap keeps what is freed.
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMmapThreshold));
  mallopt(M_TRIM_THRESHOLD,
          static_cast<int>(std::min<size_t>(2 * reserve_bytes + kBlock, INT32_MAX)));
  // Extends the heap by the reserve: blocks carved from the heap grown for them (the break
  // moves; no page is touched but their headers), advised together, and given back.
  std::vector<void*> blocks;
  blocks.reserve(reserve_bytes / kBlock + 1);
  uintptr_t low = UINTPTR_MAX, high = 0;
  for (size_t n = 0; n < reserve_bytes; n += kBlock) {
    void* block = malloc(kBlock);
    if (block == nullptr) break;
    blocks.push_back(block);
    low = std::min(low, reinterpret_cast<uintptr_t>(block));
    high = std::max(high, reinterpret_cast<uintptr_t>(block) + kBlock);
  }
  const uintptr_t begin = (low + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = high & ~(kPage - 1);
  // Holes in [begin, end) (another mapping between two blocks) only make madvise say ENOMEM;
  // the mapped parts are advised.
  if (!blocks.empty() && end > begin) {
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) free(*it);
  return !blocks.empty();
}

}  // namespace fsmove::base
