// What fsmove knows of programs and the paths they use (which files every program reads in
// passing, where the package manager keeps its state, where systemd loads units from, ...), as
// reviewed tables: src/checker/knowledge/*.tsv, one row a fact with its source, compiled into the
// binary at build time (cmake/generate_knowledge_tables.cc). A rule that drops or weakens
// evidence because of a row cites it (checker.h: Citation); docs/rules.md says how to add a row.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace fsmove::checker::knowledge {

// How a row's fact matches a path.
enum class Match : uint8_t {
  kPath,             // the path itself
  kTree,             // the directory and everything below it
  kBelow,            // everything below the directory, not the directory itself
  kNameSuffix,       // a path whose last component ends with the fact and is longer than it
  kGlob,             // `*` matches any run of characters within one component
  kAccountDatabase,  // shadow's database files: the file, its backup (-), its lock and
                     // temporary copies (.lock, .edit, .PID, +) and its n-prefixed new copy
  kRubyTempfile,     // below the directory, named as Ruby's Dir::Tmpname names a Tempfile
  kVariable,         // a shell variable's name (an environment file's); `*` any run of characters
  kUnit,             // a service's or systemd unit's name; `*` any run of characters
};
std::string_view MatchName(Match m);  // "path", "tree", "below", ... (the tables' spelling)

struct Row {
  std::string_view id;    // stable, unique across the tables: "ambient.resolv-conf"
  std::string_view kind;  // what the fact is: "resolver", "dpkg-database", ...
  // The program whose accesses the fact is about (an absolute path: "/usr/bin/apt-key"), in a
  // table with a `by` column; empty: any program's.
  std::string_view by;
  Match match = Match::kPath;
  std::string_view fact;    // a path, a directory, a name suffix, a glob, a variable's name
  std::string_view source;  // where it is written: a man page and its words, a program's code
  std::string_view file;    // the table it is in, relative to the source tree
  int line = 0;             // its line there

  bool Matches(std::string_view path) const;
};

struct Table {
  std::string_view name;                      // the file's stem: "ambient_configuration"
  std::string_view file;                      // relative to the source tree
  std::span<const std::string_view> readers;  // the rules (ids) and steps that read it
  std::span<const Row> rows;

  // The first row that matches `path`, or null.
  const Row* Find(std::string_view path) const;
  // The first row about `program` (a table with a `by` column) that matches `path`, or null.
  const Row* FindBy(std::string_view program, std::string_view path) const;
  // The row of that id, for a rule that cites a fact no path of the evidence matched; an id the
  // table lacks is a programming error (it aborts, as TableNamed does).
  const Row& RowWithId(std::string_view id) const;
};

// Every table, as the build compiled them (the generated knowledge_tables.cc).
std::span<const Table> Tables();

// The table of that name; a name no table has is a programming error (it aborts), which
// knowledge_test.cc's walk over every policy catches.
const Table& TableNamed(std::string_view name);

// ---------------------------------------------------------------- the tables' text
// Parsing is shared by the build's generator and the tests, so that a malformed table fails the
// build with the same message (FILE:LINE: what is wrong) that the tests check.
//
// A table is UTF-8 text, one record a line, fields separated by one tab:
//   # comment                         (and blank lines: ignored)
//   read-by<TAB>RULE-ID[ RULE-ID...]  (once, before the rows: who reads the table)
//   id<TAB>kind<TAB>match<TAB>fact<TAB>source   (the header, once, before the rows)
//   ROW-ID<TAB>KIND<TAB>MATCH<TAB>FACT<TAB>SOURCE
// A table of facts about what one program does has a `by` column after kind (the program's
// absolute path), in its header and every row:
//   id<TAB>kind<TAB>by<TAB>match<TAB>fact<TAB>source

struct ParsedRow {
  std::string id, kind, by;
  Match match = Match::kPath;
  std::string fact, source;
  int line = 0;
};

struct ParsedTable {
  std::string file;
  std::vector<std::string> readers;
  std::vector<ParsedRow> rows;
};

// `file` names the table in errors ("src/checker/knowledge/x.tsv:12: ...").
absl::StatusOr<ParsedTable> ParseTable(std::string_view text, std::string_view file);

}  // namespace fsmove::checker::knowledge
