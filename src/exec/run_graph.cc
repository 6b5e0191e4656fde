// Puppet's graph read back from a run's work directory; see run_graph.h.
#include "fsmove/exec/run_graph.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fmt/format.h"
#include "fsmove/base/output_file.h"
#include "fsmove/exec/sandbox.h"
#include "fsmove/graph/puppet_graph.h"

namespace fsmove::exec {

void ReadPuppetGraph(const std::string& work_dir, const std::string& save_graph,
                     RunResult* result) {
  result->puppet_graph_path = work_dir + "/" + kOutDir + "/" + kExpandedGraphFile;
  const int dir =
      open((work_dir + "/" + kOutDir).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) {
    result->puppet_graph_note =
        fmt::format("cannot open {}/{}: {}", work_dir, kOutDir, std::strerror(errno));
    return;
  }
  absl::StatusOr<std::string> text = graph::ReadPuppetGraphFile(dir, kExpandedGraphFile);
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

}  // namespace fsmove::exec
