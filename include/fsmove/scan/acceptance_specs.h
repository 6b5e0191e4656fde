// The manifests of a module's acceptance specs (Litmus and Beaker: spec/acceptance/*_spec.rb),
// where they are literal: a Ruby heredoc holding Puppet code that the spec applies
// (apply_manifest, idempotent_apply, ...), with no Ruby interpolation in it. They are how the
// module's own authors use it, so a scan runs them as it runs examples/.
//
// A run of one is named MODULE/spec/acceptance/REL_spec.rb:LINE (LINE: the heredoc's first
// line); the scan reads the manifest again from that place when it runs it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::scan {

struct SpecManifest {
  int line = 0;      // 1-based line of the heredoc's opening (`pp = <<-MANIFEST`)
  std::string text;  // the Puppet code, its common indentation removed
};

// The literal Puppet heredocs of one spec file's text, in order. A heredoc counts when the file
// applies manifests at all, the heredoc's own line runs no shell command, its body has no
// `#{...}` interpolation (unless its delimiter is single-quoted) and it reads as Puppet code.
std::vector<SpecManifest> LiteralSpecManifests(std::string_view ruby);

// The acceptance runs of a module: at most `max_runs`, from its spec/acceptance/ files in
// name order, a manifest that repeats an earlier one (ignoring white space) left out.
std::vector<std::string> AcceptanceRuns(const std::string& module, size_t max_runs);

// Whether `run` names an acceptance spec's manifest (MODULE/spec/acceptance/...:LINE).
bool IsAcceptanceRun(std::string_view run);

// The module directory of an acceptance run ("" when it is none).
std::string AcceptanceRunModule(std::string_view run);

// The manifest of an acceptance run, read again from its spec file. NotFound when the file no
// longer holds a literal manifest at that line.
absl::StatusOr<std::string> AcceptanceManifest(std::string_view run);

}  // namespace fsmove::scan
