// The analysis's heap: large blocks from one heap advised for huge pages, not from mappings of
// their own. Each test runs in a process of its own under ctest (the call changes malloc for the
// whole process).
#include "fsmove/base/heap.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace fsmove::base {
namespace {

// g++ defines __SANITIZE_ADDRESS__; clang 14 tells through __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FSMOVE_SANITIZER_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || \
    defined(FSMOVE_SANITIZER_MALLOC)
constexpr bool kOwnMalloc = true;  // the sanitizer's allocator ignores mallopt
#else
constexpr bool kOwnMalloc = false;
#endif

// The VmFlags of the mapping of this process that holds `address` ("" if none).
std::string VmFlagsAt(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long long low = 0, high = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &low, &high) == 2) {  // a mapping's first line
      inside = address >= low && address < high;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

TEST(HeapTest, LargeBlocksComeFromTheAdvisedHeap) {
  if (kOwnMalloc) GTEST_SKIP() << "a sanitizer's allocator";
  ASSERT_TRUE(UseHugePageHeap(size_t{32} << 20));
  const size_t mapped_before = mallinfo2().hblks;
  // Over glibc's default threshold (128 KiB), a block this large would get a mapping of its own.
  char* block = static_cast<char*>(malloc(size_t{4} << 20));
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(mallinfo2().hblks, mapped_before);
  EXPECT_NE(VmFlagsAt(reinterpret_cast<uintptr_t>(block) + (size_t{2} << 20)).find(" hg"),
            std::string::npos);
  free(block);
}

TEST(HeapTest, TheHeapKeepsWhatIsFreed) {
  if (kOwnMalloc) GTEST_SKIP() << "a sanitizer's allocator";
  ASSERT_TRUE(UseHugePageHeap(size_t{32} << 20));
  const size_t heap = mallinfo2().arena;
  EXPECT_GE(heap, size_t{32} << 20);  // extended by the reserve
  free(malloc(size_t{8} << 20));
  EXPECT_GE(mallinfo2().arena, heap);  // not trimmed back
}

}  // namespace
}  // namespace fsmove::base
