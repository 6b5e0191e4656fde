// Adding references to (and moving them between) the relationship metaparameters of one
// resource body, the way a maintainer (and puppet-lint --fix) would write it: a new attribute
// line with the body's indentation, `=>` aligned within the body, a trailing comma after the
// last attribute, an existing `require => A` grown into `require => [A, B]`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fsmove/fix/puppet_source.h"

namespace fsmove::fix {

// One reference added to, or removed from, an attribute of the body.
struct ReferenceChange {
  std::string attribute;  // "require", "before", "subscribe", "notify"
  std::string reference;  // Puppet text: File['/etc/x'], File[$config]
  bool remove = false;    // remove it from `attribute` (when there), instead of adding it
};

// Replace [begin, end) of the source text with `text`.
struct TextReplacement {
  size_t begin = 0;
  size_t end = 0;
  std::string text;
};

// Lines longer than this are written as multi-line arrays (puppet-lint's 140chars).
inline constexpr size_t kMaxLineLength = 140;

// The replacements that make `changes` in `body` of `source`, sorted and not overlapping.
// Adding a reference the attribute already holds does nothing. FailedPrecondition when an
// attribute to extend is not a plain reference or list of references (a variable, a
// function call, a comment inside it).
absl::StatusOr<std::vector<TextReplacement>> EditDeclaration(
    const PuppetSource& source, const ResourceBody& body,
    const std::vector<ReferenceChange>& changes);

// `text` with `replacements` (sorted, not overlapping) made.
std::string ApplyReplacements(std::string_view text,
                              const std::vector<TextReplacement>& replacements);

// A reference's text in a form that compares equal for the same reference however it is
// quoted or spaced: File[ "/etc/x" ] and file['/etc/x'] give the same key.
std::string ReferenceKey(std::string_view reference);

}  // namespace fsmove::fix
