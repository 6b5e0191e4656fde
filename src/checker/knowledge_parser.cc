// Parsing the knowledge tables' text; see knowledge.h. Compiled into the checker and into the
// build's generator (cmake/generate_knowledge_tables.cc), which must not link the checker.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "fsmove/base/split.h"
#include "fsmove/checker/knowledge.h"

namespace fsmove::checker::knowledge {
namespace {

constexpr Match kMatches[] = {Match::kPath,         Match::kTree,     Match::kBelow,
                              Match::kNameSuffix,   Match::kGlob,     Match::kAccountDatabase,
                              Match::kRubyTempfile, Match::kVariable, Match::kUnit};

// Lower-case letters, digits and the separators `-`, `.`, `_`; no leading separator.
bool IsName(std::string_view s) {
  if (s.empty() || !std::isalnum(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
  });
}

using base::Split;

// absl::StrCat does not take std::string_view in Debian 12's Abseil, which has its own.
template <typename... Parts>
std::string Cat(const Parts&... parts) {
  std::string out;
  ((out += parts), ...);
  return out;
}

// A service's or systemd unit's name, where `*` stands for any run of its characters: *.timer.
bool IsUnitPattern(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '*' || c == '-' ||
           c == '.' || c == '@' || c == ':';
  });
}

// A shell variable's name, where `*` stands for any run of its characters: START_*.
bool IsVariablePattern(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '*';
  });
}

bool HasControl(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; });
}

}  // namespace

std::string_view MatchName(Match m) {
  switch (m) {
    case Match::kPath:
      return "path";
    case Match::kTree:
      return "tree";
    case Match::kBelow:
      return "below";
    case Match::kNameSuffix:
      return "name-suffix";
    case Match::kGlob:
      return "glob";
    case Match::kAccountDatabase:
      return "account-database";
    case Match::kRubyTempfile:
      return "ruby-tempfile";
    case Match::kVariable:
      return "variable";
    case Match::kUnit:
      return "unit";
  }
  return "path";
}

absl::StatusOr<ParsedTable> ParseTable(std::string_view text, std::string_view file) {
  ParsedTable table;
  table.file = std::string(file);
  bool header = false;
  bool by_column = false;
  absl::flat_hash_set<std::string> ids;
  int line = 0;
  for (std::string_view record : Split(text, '\n')) {
    ++line;
    auto fail = [&](std::string_view what) {
      return absl::InvalidArgumentError(Cat(file, ":", std::to_string(line), ": ", what));
    };
    if (!record.empty() && record.back() == '\r') return fail("a carriage return (CRLF line)");
    if (record.empty() || record.front() == '#') continue;
    std::vector<std::string_view> fields = Split(record, '\t');
    for (std::string_view f : fields) {
      if (f.empty()) return fail("an empty field (two tabs in a row, or a tab at the end)");
      if (f.front() == ' ' || f.back() == ' ') return fail("a field with spaces around it");
      if (HasControl(f)) return fail("a control character in a field");
    }
    if (fields.front() == "read-by") {
      if (!table.readers.empty()) return fail("a second read-by line");
      if (fields.size() != 2) return fail("read-by takes one field: rule ids separated by spaces");
      for (std::string_view r : Split(fields[1], ' ')) {
        if (r.empty()) continue;
        if (!IsName(r)) return fail(Cat("'", r, "' is no rule id"));
        table.readers.emplace_back(r);
      }
      continue;
    }
    if (!header) {
      // The header says whether the table has a `by` column.
      by_column = fields.size() == 6 && fields[2] == "by";
      if (by_column) fields.erase(fields.begin() + 2);
      if (fields.size() != 5 || fields[0] != "id" || fields[1] != "kind" || fields[2] != "match" ||
          fields[3] != "fact" || fields[4] != "source") {
        return fail(
            "the header (id, kind, match, fact, source; or id, kind, by, match, fact, "
            "source) must come before the rows");
      }
      if (table.readers.empty()) return fail("no read-by line before the header");
      header = true;
      continue;
    }
    const size_t expected = by_column ? 6 : 5;
    if (fields.size() != expected) {
      return fail(Cat("a row has ", std::to_string(expected), " tab-separated fields (id, kind, ",
                      by_column ? "by, " : "", "match, fact, source), not ",
                      std::to_string(fields.size())));
    }
    ParsedRow row;
    if (by_column) {
      row.by = std::string(fields[2]);
      fields.erase(fields.begin() + 2);
      if (row.by.front() != '/' || row.by.back() == '/') {
        return fail(Cat("by '", row.by, "': a program's absolute path"));
      }
    }
    row.line = line;
    row.id = std::string(fields[0]);
    row.kind = std::string(fields[1]);
    row.fact = std::string(fields[3]);
    row.source = std::string(fields[4]);
    if (!IsName(row.id)) return fail(Cat("id '", row.id, "': lower case, digits, -._"));
    if (!ids.insert(row.id).second) return fail(Cat("id '", row.id, "' again"));
    if (!IsName(row.kind)) return fail(Cat("kind '", row.kind, "': lower case, -._"));
    auto m = std::find_if(std::begin(kMatches), std::end(kMatches),
                          [&](Match x) { return MatchName(x) == fields[2]; });
    if (m == std::end(kMatches)) {
      return fail(Cat("match '", fields[2],
                      "' is none of path, tree, below, name-suffix, glob, "
                      "account-database, ruby-tempfile, variable, unit"));
    }
    row.match = *m;
    if (row.match == Match::kNameSuffix) {
      if (row.fact.find('/') != std::string::npos) return fail("a name suffix holds no '/'");
    } else if (row.match == Match::kVariable) {
      if (!IsVariablePattern(row.fact)) {
        return fail(Cat("fact '", row.fact, "': a shell variable's name (letters, digits, _, *)"));
      }
    } else if (row.match == Match::kUnit) {
      if (!IsUnitPattern(row.fact)) {
        return fail(
            Cat("fact '", row.fact, "': a service's or unit's name (letters, digits, _-.@:, *)"));
      }
    } else if (row.fact.front() != '/' || (row.fact.size() > 1 && row.fact.back() == '/')) {
      return fail(Cat("fact '", row.fact, "': an absolute path without a final '/'"));
    }
    if (row.match != Match::kGlob && row.match != Match::kVariable && row.match != Match::kUnit &&
        row.fact.find('*') != std::string::npos) {
      return fail("a '*' in a fact whose match is not glob");
    }
    // A source says where: a man page's section and words, a program's file, a URL.
    if (row.source.size() < 12) return fail("a source too short to say where the fact is written");
    table.rows.push_back(std::move(row));
  }
  if (!header) {
    return absl::InvalidArgumentError(Cat(file, ": no header line (id, kind, ...)"));
  }
  if (table.rows.empty()) return absl::InvalidArgumentError(Cat(file, ": no rows"));
  return table;
}

}  // namespace fsmove::checker::knowledge
