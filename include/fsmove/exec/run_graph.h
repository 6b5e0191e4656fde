// Puppet's graph of a run (expanded_relationships.dot, `puppet apply --graph`), read back from
// the run's work directory, whose layout (sandbox.h: kOutDir) only this layer knows.
#pragma once

#include <string>

#include "fsmove/exec/executor.h"

namespace fsmove::exec {

// Fills result->puppet_graph from `work_dir`'s out directory, which the sandbox could write:
// the directory and the file are opened without following symlinks (the module under test
// runs as root in there), and the file must be regular and of reasonable size. When it cannot,
// result->puppet_graph_note says why. `save_graph` (--save-graph; may be empty) gets a copy of
// exactly what was read; a copy that cannot be written is a note of the run.
void ReadPuppetGraph(const std::string& work_dir, const std::string& save_graph, RunResult* result);

}  // namespace fsmove::exec
