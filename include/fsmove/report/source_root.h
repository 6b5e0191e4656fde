// Manifest paths the way CI systems want them: relative to the repository root when they are
// inside it (GitHub resolves SARIF locations and GitLab shows JUnit suites that way), as
// absolute paths otherwise. Purely lexical: the root need not exist on this machine (a
// catalog compiled elsewhere still names its files by the paths it had there).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fsmove::report {

class SourceRoot {
 public:
  SourceRoot() = default;  // no root: every path stays as it is
  // `dir` made absolute against the current directory and lexically normalised.
  static SourceRoot FromDirectory(std::string_view dir);

  bool empty() const { return root_.empty(); }
  const std::string& path() const { return root_; }  // absolute, no trailing slash but "/"

  // "manifests/init.pp" for "<root>/manifests/init.pp"; a relative path is taken as relative
  // to the root already; nullopt when outside the root or without a root.
  std::optional<std::string> Relative(std::string_view file) const;
  // Relative(file) when it has one, else the file as given.
  std::string Display(std::string_view file) const;

 private:
  std::string root_;
};

// Percent-encodes everything but RFC 3986 unreserved characters, '/' and the sub-delimiters
// (so ':' in a first segment cannot read as a scheme, and '%', '#', '?', spaces and non-ASCII
// bytes survive).
std::string PercentEncodePath(std::string_view path);
// "file:///abs/path" for an absolute path.
std::string FileUri(std::string_view absolute_path);

}  // namespace fsmove::report
