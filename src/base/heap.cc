// See heap.h.
#include "fsmove/base/heap.h"

#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
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
  std::vector<char*> blocks;
  blocks.reserve(reserve_bytes / kBlock + 1);
  for (size_t n = 0; n < reserve_bytes; n += kBlock) {
    char* block = static_cast<char*>(malloc(kBlock));
    if (block == nullptr) break;
    blocks.push_back(block);
  }
  if (blocks.empty()) return false;
  const auto [low, high] = std::minmax_element(blocks.begin(), blocks.end(), std::less<char*>());
  char* const begin = *low + (kPage - reinterpret_cast<uintptr_t>(*low) % kPage) % kPage;
  char* const end = *high + kBlock - reinterpret_cast<uintptr_t>(*high + kBlock) % kPage;
  // Holes in [begin, end) (another mapping between two blocks) only make madvise say ENOMEM;
  // the mapped parts are advised.
  if (end > begin) madvise(begin, static_cast<size_t>(end - begin), MADV_HUGEPAGE);
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) free(*it);
  return true;
}

}  // namespace fsmove::base
