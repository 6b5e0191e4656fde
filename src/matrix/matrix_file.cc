// The matrix file; see matrix_file.h.
#include "fsmove/matrix/matrix_file.h"

#include <filesystem>

#include "absl/strings/str_split.h"
#include "fmt/format.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/target.h"

namespace fsmove::matrix {
namespace {

constexpr size_t kMaxMatrixBytes = size_t{1} << 20;

// Puppet's certnames: lower-case letters, digits, '.', '-' and '_' (Puppet refuses upper case
// and anything that could name a path).
bool IsCertName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name.front() == '.' || name.front() == '-') {
    return false;
  }
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    if (!ok) return false;
  }
  return name.find("..") == std::string_view::npos;
}

}  // namespace

absl::StatusOr<std::vector<MatrixRow>> ParseMatrix(std::string_view text, const std::string& file) {
  const std::filesystem::path dir = std::filesystem::path(file).parent_path();
  std::vector<MatrixRow> rows;
  int number = 0;
  for (absl::string_view raw : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++number;
    const std::string_view line(
        raw.data(), raw.find('#') == absl::string_view::npos ? raw.size() : raw.find('#'));
    std::vector<std::string> cols = absl::StrSplit(absl::string_view(line.data(), line.size()),
                                                   absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (cols.empty()) continue;
    auto bad = [&](const std::string& why) {
      return absl::InvalidArgumentError(fmt::format("{}:{}: {}", file, number, why));
    };
    if (cols.size() > 3) {
      return bad(
          fmt::format("{} columns; a row is NODE [CLASS [FACTS]] (\"-\" for none)", cols.size()));
    }
    MatrixRow row;
    row.line = number;
    row.node = cols[0];
    if (!IsCertName(row.node)) {
      return bad(fmt::format(
          "{}: not a node name Puppet takes (lower-case letters, digits, '.', '-' and '_')",
          row.node));
    }
    for (const MatrixRow& r : rows) {
      if (r.node == row.node) {
        return bad(fmt::format("node {} is on line {} already", row.node, r.line));
      }
    }
    if (cols.size() > 1 && cols[1] != "-") {
      std::string_view klass = cols[1];
      if (klass.starts_with("::")) klass.remove_prefix(2);
      if (!exec::IsValidClassName(klass)) {
        return bad(fmt::format("{}: not a Puppet class name (role::web)", cols[1]));
      }
      row.klass = cols[1];
    }
    if (cols.size() > 2 && cols[2] != "-") {
      const std::filesystem::path facts(cols[2]);
      row.facts = facts.is_absolute() || dir.empty() ? facts.string() : (dir / facts).string();
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: no row; each line is NODE [CLASS [FACTS]]", file));
  }
  return rows;
}

absl::StatusOr<std::vector<MatrixRow>> ReadMatrix(const std::string& path) {
  absl::StatusOr<std::string> text = base::ReadFile(path, "--matrix", kMaxMatrixBytes);
  if (!text.ok()) return text.status();
  return ParseMatrix(*text, path);
}

std::string RowName(const MatrixRow& row) {
  return row.klass.empty() ? row.node : fmt::format("{} ({})", row.node, row.klass);
}

}  // namespace fsmove::matrix
