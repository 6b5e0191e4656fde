// Matching paths against the knowledge tables' rows; see knowledge.h.
#include "fsmove/checker/knowledge.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"

namespace fsmove::checker::knowledge {
namespace {

bool Below(std::string_view path, std::string_view dir) {
  return path.size() > dir.size() + 1 && path.starts_with(dir) && path[dir.size()] == '/';
}

// `*` matches any run of characters but '/'; every other character itself.
bool GlobMatches(std::string_view glob, std::string_view path) {
  size_t g = 0, p = 0;
  size_t star = std::string_view::npos, resume = 0;
  while (p < path.size()) {
    if (g < glob.size() && glob[g] == '*') {
      star = g++;
      resume = p;
    } else if (g < glob.size() && glob[g] == path[p]) {
      ++g;
      ++p;
    } else if (star != std::string_view::npos && path[resume] != '/') {
      g = star + 1;  // the star takes one more character
      p = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

// shadow's tools (lib/commonio.c) and adduser write beside each database its backup (passwd-),
// lock (passwd.lock), temporary copies (passwd+, passwd.edit, passwd.PID) and new copy (npasswd).
bool AccountDatabaseMatches(std::string_view database, std::string_view path) {
  const size_t slash = database.rfind('/');
  std::string_view dir = database.substr(0, slash), base = database.substr(slash + 1);
  if (!Below(path, dir)) return false;
  std::string_view name = path.substr(dir.size() + 1);
  if (name.find('/') != std::string_view::npos) return false;
  if (name.size() == base.size() + 1 && name[0] == 'n' && name.substr(1) == base) return true;
  if (!name.starts_with(base)) return false;
  std::string_view rest = name.substr(base.size());
  return rest.empty() || rest == "-" || rest == "+" || rest.starts_with(".");
}

// Dir::Tmpname (Ruby's lib/tmpdir.rb): PREFIX + YYYYMMDD + "-" + pid + "-" + rand(2**32) in
// base 36 + SUFFIX, as in openldap_dbindex20261124-76-93q0su.
bool IsTmpname(std::string_view name) {
  auto digits = [&](size_t at) {
    size_t end = at;
    while (end < name.size() && absl::ascii_isdigit(static_cast<unsigned char>(name[end]))) ++end;
    return end - at;
  };
  for (size_t at = 0; at + 12 <= name.size(); ++at) {
    if (digits(at) < 8 || name[at + 8] != '-') continue;
    size_t pid = digits(at + 9);
    size_t after = at + 9 + pid;
    if (pid == 0 || after >= name.size() || name[after] != '-') continue;
    size_t end = after + 1;
    while (end < name.size() && (absl::ascii_isdigit(static_cast<unsigned char>(name[end])) ||
                                 absl::ascii_islower(static_cast<unsigned char>(name[end])))) {
      ++end;
    }
    if (end > after + 1 && (end == name.size() || name[end] == '.')) return true;
  }
  return false;
}

}  // namespace

bool Row::Matches(std::string_view path) const {
  switch (match) {
    case Match::kPath:
      return path == fact;
    case Match::kTree:
      return path == fact ||
             (path.starts_with(fact) && path.size() > fact.size() && path[fact.size()] == '/');
    case Match::kBelow:
      return Below(path, fact);
    case Match::kNameSuffix: {
      std::string_view name = path.substr(path.rfind('/') + 1);  // npos + 1 == 0
      return name.size() > fact.size() && name.ends_with(fact);
    }
    case Match::kGlob:
    case Match::kVariable:  // a name holds no '/': the glob's star spans it
    case Match::kUnit:
      return GlobMatches(fact, path);
    case Match::kAccountDatabase:
      return AccountDatabaseMatches(fact, path);
    case Match::kRubyTempfile:
      return path.starts_with(fact) && path.size() > fact.size() && path[fact.size()] == '/' &&
             IsTmpname(path.substr(path.rfind('/') + 1));
  }
  return false;
}

const Row* Table::Find(std::string_view path) const {
  for (const Row& row : rows) {
    if (row.Matches(path)) return &row;
  }
  return nullptr;
}

const Row* Table::FindBy(std::string_view program, std::string_view path) const {
  for (const Row& row : rows) {
    if (row.by == program && row.Matches(path)) return &row;
  }
  return nullptr;
}

const Row& Table::RowWithId(std::string_view id) const {
  for (const Row& row : rows) {
    if (row.id == id) return row;
  }
  std::fprintf(stderr, "fsmove: knowledge table %.*s has no row %.*s\n",
               static_cast<int>(name.size()), name.data(), static_cast<int>(id.size()), id.data());
  std::abort();
}

const Table& TableNamed(std::string_view name) {
  for (const Table& t : Tables()) {
    if (t.name == name) return t;
  }
  std::fprintf(stderr, "fsmove: no knowledge table named %.*s\n", static_cast<int>(name.size()),
               name.data());
  std::abort();
}

}  // namespace fsmove::checker::knowledge
