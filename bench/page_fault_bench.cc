// What a first touch of fresh memory costs on this machine: 4 KiB pages faulted one by one, the
// same memory advised for transparent huge pages (what base::UseHugePageHeap gives an analysis's
// heap), and populated in one call. Per 4 KiB of memory (the `per_page` counter). On this
// project's VM, whose guest page tables are shadowed, a fault cost 12 us against 0.8 us per page
// populated at once: a sixth of an analysis of a 115 MB trace went to faults
// (docs/performance.md).
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace {

constexpr size_t kBytes = size_t{32} << 20;
constexpr size_t kPage = 4096;
constexpr size_t kHuge = size_t{2} << 20;
constexpr size_t kPages = kBytes / kPage;
constexpr size_t kMappedPages = (kBytes + kHuge) / kPage;

// A fresh anonymous mapping of kBytes, 2 MiB aligned (so huge pages can back all of it).
char* MapAligned(int extra_flags, char** to_unmap, size_t* unmap_bytes) {
  *unmap_bytes = kBytes + kHuge;
  void* p = mmap(nullptr, *unmap_bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  *to_unmap = static_cast<char*>(p);
  return *to_unmap + (kHuge - reinterpret_cast<uintptr_t>(p) % kHuge) % kHuge;
}

enum class Way { kTouch4KiBPages, kTouchHugePageAdvised, kPopulate };

// Times the first touch of every page of a fresh mapping (or, populated, the mmap call itself).
void Measure(benchmark::State& state, Way way) {
  const bool populate = way == Way::kPopulate;
  for (auto _ : state) {
    if (!populate) state.PauseTiming();
    char* base = nullptr;
    size_t bytes = 0;
    char* p = MapAligned(populate ? MAP_POPULATE : 0, &base, &bytes);
    if (p == nullptr) {
      state.SkipWithError("mmap failed");
      return;
    }
    if (way == Way::kTouchHugePageAdvised) madvise(p, kBytes, MADV_HUGEPAGE);
    if (!populate) {
      state.ResumeTiming();
      for (size_t i = 0; i < kBytes; i += kPage) p[i] = 1;
    }
    benchmark::DoNotOptimize(p);
    state.PauseTiming();
    munmap(base, bytes);
    state.ResumeTiming();
  }
  const size_t pages = populate ? kMappedPages : kPages;
  state.counters["per_page"] =
      benchmark::Counter(static_cast<double>(state.iterations() * pages),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_FirstTouch4KiBPages(benchmark::State& state) { Measure(state, Way::kTouch4KiBPages); }
void BM_FirstTouchHugePageAdvised(benchmark::State& state) {
  Measure(state, Way::kTouchHugePageAdvised);
}
void BM_Populated(benchmark::State& state) { Measure(state, Way::kPopulate); }

BENCHMARK(BM_FirstTouch4KiBPages)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FirstTouchHugePageAdvised)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Populated)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
