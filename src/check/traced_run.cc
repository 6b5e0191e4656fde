// The check's run with the analysis attached; see traced_run.h.
#include "fsmove/check/traced_run.h"

#include <memory>

#include "fmt/format.h"
#include "fsmove/exec/os_root.h"
#include "fsmove/exec/run_graph.h"
#include "fsmove/fstrace/lowering.h"
#include "fsmove/strace/line_reader.h"

namespace fsmove::check {
namespace {

// The executor's trace stream as the line reader's byte source.
class TraceStreamSource : public strace::ByteSource {
 public:
  explicit TraceStreamSource(exec::TraceStream& stream) : stream_(stream) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override { return stream_.Read(buf, n); }

 private:
  exec::TraceStream& stream_;
};

}  // namespace

absl::StatusOr<exec::RunResult> RunTraced(exec::CheckRequest request, bool full_trace,
                                          analysis::Analyzer& analyzer) {
  if (!full_trace) {
    for (std::string_view name : fstrace::ModelledSyscalls()) {
      request.traced_syscalls.emplace_back(name);
    }
  }
  auto run = exec::RunCheck(request, [&](exec::TraceStream& stream, base::ProgressLine& progress) {
    strace::LineReader reader(std::make_unique<TraceStreamSource>(stream),
                              "strace output of puppet apply", {});
    analyzer.set_marker_observer([&](const strace::Marker& m, uint64_t) {
      if (m.kind != strace::MarkerKind::kBegin) return;
      progress.Show(m.total ? fmt::format("resource {} of {}: {}", m.index, m.total, m.ref)
                            : fmt::format("resource: {}", m.ref));
    });
    absl::Status status = analyzer.Run(reader);
    analyzer.set_marker_observer(nullptr);
    return status;
  });
  if (!run.ok()) return run;
  // The trace is complete when strace lived to the end and Puppet's first process was seen
  // exiting in it.
  run->summary.trace_complete = run->summary.trace_complete && analyzer.stats().first_pid_exited;
  exec::ReadPuppetGraph(run->work_dir, request.save_graph, &*run);
  return run;
}

analysis::AnalyzerOptions AnalyzerOptionsFor(const exec::CheckRequest& request) {
  analysis::AnalyzerOptions options;
  options.interpreter.root_symlinks = exec::TopLevelSymlinks(request.root.dir);
  options.interpreter.max_paths = request.budget.paths;
  options.interpreter.max_inodes = request.budget.inodes;
  return options;
}

}  // namespace fsmove::check
