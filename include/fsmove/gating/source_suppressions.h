// Suppressions written in the checked code, as puppet-lint's control comments are:
//
//   file { '/etc/app/app.conf':   # fsmove:ignore:missing-notifier the daemon rereads it
//
//   # fsmove:ignore:missing-ordering apt's own hook orders these
//   exec { 'use config': ... }
//
//   # fsmove:ignore:missing-ordering fsmove:ignore:missing-notifier generated together
//   ...
//   # fsmove:endignore
//
// A comment after code covers its own line. A comment alone on its line covers the lines up
// to the `# fsmove:endignore` that closes it (the innermost open one is closed first) or,
// when none does, the next line of code: the declaration below it (Puppet's line of a
// resource is its type keyword's). The rules are named by their ids (checker::FaultRuleId);
// the reason is the text after the last one. A finding is suppressed when the declaration of
// either of its resources (or the user's declaration it was lifted to) is on a line a comment
// covers, for the finding's rule.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fsmove::gating {

// One `#` comment of a manifest: its line, whether code precedes it on that line, and its
// text after the `#`.
struct SourceComment {
  int line = 0;
  bool after_code = false;
  std::string text;
};

struct SourceSuppression {
  std::string file;  // as the catalog names the manifest
  std::string path;  // where it was read on this machine (a recorded run's checkout moves)
  int line = 0;      // the comment's line
  int first_line = 0;
  int last_line = 0;  // the lines it covers
  std::vector<std::string> rules;
  std::string reason;
  bool block = false;  // closed by an endignore

  bool Covers(std::string_view f, int l, std::string_view rule) const;
  // "# fsmove:ignore:RULE ..." as written, for messages.
  std::string Directive() const;
};

struct SourceSuppressions {
  std::vector<SourceSuppression> comments;
  // Directives that name no rule, or close none: "PATH:LINE: ...".
  std::vector<std::string> warnings;
  // The manifests read (for the report's summary).
  size_t files = 0;
};

// Adds the suppressions of one manifest, `file` as the catalog names it and `path` where it
// was read, from its comments (in order) and the lines on which its code's tokens start
// (ascending).
void ReadSourceSuppressions(std::string_view file, std::string_view path,
                            const std::vector<SourceComment>& comments,
                            const std::vector<int>& code_lines, SourceSuppressions* out);

}  // namespace fsmove::gating
