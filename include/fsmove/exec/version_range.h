// Puppet's version ranges, as a module's metadata.json writes them ("version_requirement" of
// its `requirements` and `dependencies`) and the Forge and Puppet's module tool read them
// (semantic_puppet's VersionRange):
//
//   1.2.3               exactly that version
//   1.2, 1.x, 1.2.x, *  any version of that prefix
//   >1.2.3 >=1 <2 <=1.2 a comparison; a partial version is its prefix's first or last one
//                       (>1.2 is >=1.3.0, <=1 is <2.0.0)
//   ~1.2.3, ~>1.2       the same minor version from there (the same major with one number)
//   ^1.2.3              the same major version from there
//   1.2.3 - 2.3         from one to the other, both included
//   >=1.0.0 <2.0.0      both (space-separated comparisons)
//   1.x || >=3          either
//
// Versions compare numerically; a pre-release (1.2.3-rc1) is before its release.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::exec {

struct SemVer {
  uint64_t major = 0, minor = 0, patch = 0;
  std::string pre;  // "rc1" of 1.2.3-rc1; empty for a release
  auto operator<=>(const SemVer& o) const {
    if (auto c = major <=> o.major; c != 0) return c;
    if (auto c = minor <=> o.minor; c != 0) return c;
    if (auto c = patch <=> o.patch; c != 0) return c;
    if (pre.empty() || o.pre.empty()) return pre.empty() <=> o.pre.empty();
    return pre <=> o.pre;
  }
  bool operator==(const SemVer& o) const = default;
  std::string Text() const;
};

// "1.2.3", "1.2.3-rc1"; also a Debian package version's upstream part ("8.10.0-5+deb13u1" is
// 8.10.0, "1:7.23.0-1" is 7.23.0: a Debian revision is not a pre-release).
absl::StatusOr<SemVer> ParseSemVer(std::string_view text);
SemVer DebianUpstreamVersion(std::string_view debian_version);

class VersionRange {
 public:
  // The error says what could not be read, quoting the range.
  static absl::StatusOr<VersionRange> Parse(std::string_view text);
  bool Contains(const SemVer& v) const;
  const std::string& text() const { return text_; }

 private:
  enum class Op : uint8_t { kGe, kGt, kLe, kLt, kEq };
  struct Comparison {
    Op op;
    SemVer version;
  };
  using Conjunction = std::vector<Comparison>;  // all of them (an empty one: any version)
  static absl::Status ParseConjunction(std::string_view text, Conjunction* out);
  static absl::Status ParseComparison(std::string_view word, Conjunction* out);
  std::vector<Conjunction> any_of_;
  std::string text_;
};

}  // namespace fsmove::exec
