// The check's run with the analysis attached; see traced_check.h.
#include "traced_check.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "fmt/format.h"
#include "fsmove/base/output_file.h"
#include "fsmove/fstrace/lowering.h"
#include "fsmove/graph/puppet_graph.h"
#include "fsmove/strace/line_reader.h"

namespace fsmove::cli {
namespace {

// The executor's trace stream as the line reader's byte source.
class TraceStreamSource : public strace::ByteSource {
 public:
  explicit TraceStreamSource(exec::TraceStream& stream) : stream_(stream) {}
  absl::StatusOr<size_t> Read(char* buf, size_t n) override { return stream_.Read(buf, n); }

 private:
  exec::TraceStream& stream_;
};

// Puppet's expanded graph from the work directory, which the sandbox could write: the
// directory and the file are opened without following symlinks (the module under test runs
// as root in there), and the file must be regular and of reasonable size. --save-graph gets a
// copy of exactly what was read.
void ReadPuppetGraph(const std::string& work, const std::string& save_graph,
                     exec::RunResult* result) {
  result->puppet_graph_path = work + "/" + exec::kOutDir + "/" + exec::kExpandedGraphFile;
  const int dir =
      open((work + "/" + exec::kOutDir).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) {
    result->puppet_graph_note =
        fmt::format("cannot open {}/{}: {}", work, exec::kOutDir, std::strerror(errno));
    return;
  }
  absl::StatusOr<std::string> text = graph::ReadPuppetGraphFile(dir, exec::kExpandedGraphFile);
  close(dir);
  if (!text.ok()) {
    // "cannot read Puppet's graph expanded_relationships.dot: a symbolic link, never followed"
    result->puppet_graph_note = std::string(text.status().message());
    return;
  }
  result->puppet_graph = std::move(*text);
  if (save_graph.empty()) return;
  if (absl::Status st = base::WriteOutputFile(save_graph, result->puppet_graph); !st.ok()) {
    std::string note =
        fmt::format("cannot write Puppet's graph to {}: {}", save_graph, std::string(st.message()));
    result->notes.push_back(note);
    result->summary.notes.push_back(std::move(note));
  }
}

}  // namespace

absl::StatusOr<exec::RunResult> RunTracedCheck(exec::CheckRequest request, bool full_trace,
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
  ReadPuppetGraph(run->work_dir, request.save_graph, &*run);
  return run;
}

}  // namespace fsmove::cli
