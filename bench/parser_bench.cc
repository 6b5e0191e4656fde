// Micro-benchmarks of the per-line hot path: stage-1 head parsing, tail parsing, argument
// decoding and the whole pipeline on the line shapes that dominate real Puppet traces
// (Ruby's failed readlink calls at start-up, opens, stats inside blocks).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "fsmove/analysis/analyzer.h"
#include "fsmove/strace/args.h"
#include "fsmove/strace/strace_line.h"

namespace {

const char* kReadlink =
    "12345 readlink(\"/usr/lib/ruby/vendor_ruby/puppet/util/execution.rb\", 0x7ffd6c1f0a10, 4095) "
    "= -1 EINVAL (Invalid argument)";
const char* kOpenat =
    "12345 openat(AT_FDCWD, \"/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1\", O_RDONLY|O_CLOEXEC) "
    "= 3";
const char* kStat =
    "12345 newfstatat(AT_FDCWD, \"/etc/puppet/code/environments/production\", "
    "{st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0";
const char* kRead =
    "12345 read(3, \"\\177ELF\\2\\1\\1\\0\\0\\0\\0\\0\\0\\0\\0\\0\\3\\0>\\0\\1\\0\\0\\0\"..., 832) "
    "= 832";

void BM_LineHead(benchmark::State& state, const char* line) {
  std::string_view l(line);
  for (auto _ : state) benchmark::DoNotOptimize(fsmove::strace::ParseLineHead(l));
  state.SetBytesProcessed(state.iterations() * l.size());
}
BENCHMARK_CAPTURE(BM_LineHead, readlink, kReadlink);
BENCHMARK_CAPTURE(BM_LineHead, openat, kOpenat);
BENCHMARK_CAPTURE(BM_LineHead, read, kRead);

void BM_CallTailAndArgs(benchmark::State& state, const char* line) {
  fsmove::strace::LineHead head = fsmove::strace::ParseLineHead(line);
  std::string path;
  for (auto _ : state) {
    fsmove::strace::CallTail tail;
    fsmove::strace::ParseCallTail(head.rest, &tail);
    fsmove::strace::ArgList args(tail.args);
    fsmove::strace::DecodeString(args[1], &path);
    benchmark::DoNotOptimize(path.data());
  }
  state.SetBytesProcessed(state.iterations() * std::string_view(line).size());
}
BENCHMARK_CAPTURE(BM_CallTailAndArgs, openat, kOpenat);
BENCHMARK_CAPTURE(BM_CallTailAndArgs, newfstatat, kStat);

// The whole pipeline, inside a resource block, on a repeated line.
void BM_PipelineInBlock(benchmark::State& state, const char* line) {
  fsmove::analysis::Analyzer analyzer;
  analyzer.FeedLine(
      "12345 writev(1, [{iov_base=\"Info: /Stage[main]/Main/Exec[x]: Starting to evaluate the "
      "resource (1 of 2)\", iov_len=80}], 1) = 80",
      1);
  uint64_t n = 1;
  std::string_view l(line);
  for (auto _ : state) analyzer.FeedLine(l, ++n);
  state.SetBytesProcessed(state.iterations() * l.size());
}
BENCHMARK_CAPTURE(BM_PipelineInBlock, readlink, kReadlink);
BENCHMARK_CAPTURE(BM_PipelineInBlock, openat, kOpenat);
BENCHMARK_CAPTURE(BM_PipelineInBlock, newfstatat, kStat);
BENCHMARK_CAPTURE(BM_PipelineInBlock, read, kRead);

// Outside blocks (Puppet start-up): most calls are skipped after the name lookup.
void BM_PipelineOutsideBlocks(benchmark::State& state, const char* line) {
  fsmove::analysis::Analyzer analyzer;
  uint64_t n = 0;
  std::string_view l(line);
  for (auto _ : state) analyzer.FeedLine(l, ++n);
  state.SetBytesProcessed(state.iterations() * l.size());
}
BENCHMARK_CAPTURE(BM_PipelineOutsideBlocks, readlink, kReadlink);
BENCHMARK_CAPTURE(BM_PipelineOutsideBlocks, openat, kOpenat);

}  // namespace

BENCHMARK_MAIN();
