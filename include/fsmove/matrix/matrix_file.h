// `fsmove check --matrix FILE`: the nodes a check is made for, one row each, as onceover's
// factsets and roles are: a node name (its certname: site.pp's node definitions, Hiera's
// trusted.certname), the class to check (a control repo's role; "-": its site.pp, or the
// module's class) and the node's facts file ("-": the sandbox's own facts).
//
//   # node               class       facts
//   web01.example.com    role::web   facts/web01.example.com.json
//   lab01.example.com    -           facts/lab01.example.com.yaml
//
// Columns are separated by blanks; `#` starts a comment; a facts path is relative to the
// matrix file's directory. Every row is checked before any Puppet runs: a bad one is said
// with FILE:LINE.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::matrix {

struct MatrixRow {
  int line = 0;       // in the matrix file, for messages
  std::string node;   // the certname compiled for
  std::string klass;  // empty: the target's own manifest
  std::string facts;  // a path as the user gave it, made relative to the file's directory
  bool operator==(const MatrixRow&) const = default;
};

// The rows of `text` (the file `file`, whose directory facts paths are relative to). Errors
// name FILE:LINE: a row of more than three columns, a node that is no certname Puppet takes,
// a node named twice, a class that is no class name; and a file with no row.
absl::StatusOr<std::vector<MatrixRow>> ParseMatrix(std::string_view text, const std::string& file);

// ParseMatrix of the file at `path` (a regular file of at most 1 MiB).
absl::StatusOr<std::vector<MatrixRow>> ReadMatrix(const std::string& path);

// The row as a person names it: "web01.example.com" or "web01.example.com (role::web)".
std::string RowName(const MatrixRow& row);

}  // namespace fsmove::matrix
