// The bad-input catalogue: every bad input tried on the real `fsmove` binary, with the exit
// code and the exact message it gets. The table in tests/bad_input/CATALOGUE.md is the
// expectation (and is copied verbatim in docs/troubleshooting.md): each row
// names a case that this file builds from the recorded traces, runs `fsmove` on it in a fresh
// directory with a timeout, and checks the exit code, the whole of stderr, a line of the
// report where one is named, and the counts the JSON report gives (no line dropped silently).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fsmove/strace/line_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace fsmove::testing {
namespace {

namespace fs = std::filesystem;

constexpr auto kTimeout = std::chrono::seconds(120);  // generous for the ASan build
const fs::path kSource = FSMOVE_SOURCE_DIR;
const fs::path kTraceDir = kSource / "traces" / "faults-configure-use-bad";

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const fs::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// ------------------------------------------------------------------ the real inputs

// The recorded trace of a manifest with one missing ordering relationship, as text lines.
const std::vector<std::string>& RealTraceLines() {
  static const auto* lines = [] {
    auto* out = new std::vector<std::string>();
    auto reader = strace::LineReader::Open((kTraceDir / "trace.zst").string());
    EXPECT_TRUE(reader.ok());
    std::string_view line;
    while ((*reader)->Next(&line)) out->emplace_back(line);
    return out;
  }();
  return *lines;
}

std::string Join(const std::vector<std::string>& lines, std::string_view eol = "\n") {
  std::string text;
  for (const std::string& l : lines) {
    text += l;
    text += eol;
  }
  return text;
}

bool IsMarker(const std::string& line) {
  return line.find("writev(1, ") != std::string::npos &&
         (line.find(": Starting to evaluate the resource (") != std::string::npos ||
          line.find(": Evaluated in ") != std::string::npos);
}

size_t FirstMarker() {
  const auto& lines = RealTraceLines();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsMarker(lines[i])) return i;
  }
  ADD_FAILURE() << "no marker in the real trace";
  return 0;
}

// The last `<unfinished ...>` line before the first marker (in Ruby's start-up).
size_t LastUnfinishedBeforeBlocks() {
  const auto& lines = RealTraceLines();
  for (size_t i = FirstMarker(); i-- > 0;) {
    if (lines[i].ends_with("<unfinished ...>")) return i;
  }
  ADD_FAILURE() << "no unfinished call before the first marker";
  return 0;
}

// The first `<unfinished ...>` line after the first marker.
size_t FirstUnfinishedInBlocks() {
  const auto& lines = RealTraceLines();
  for (size_t i = FirstMarker(); i < lines.size(); ++i) {
    if (lines[i].ends_with("<unfinished ...>")) return i;
  }
  ADD_FAILURE() << "no unfinished call after the first marker";
  return 0;
}

// The pid column of a trace line ("190   writev(..." -> "190").
std::string PidOf(const std::string& line) { return line.substr(0, line.find(' ')); }

std::vector<std::string> WithLinesAfterFirstMarker(std::vector<std::string> extra) {
  std::vector<std::string> lines = RealTraceLines();
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(FirstMarker()) + 1, extra.begin(),
               extra.end());
  return lines;
}

// Deterministic bytes with every value, newlines and NULs included.
std::string Garbage(size_t n, uint64_t seed) {
  std::string out(n, '\0');
  for (char& c : out) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    c = static_cast<char>(seed >> 56);
  }
  return out;
}

std::string Zstd(std::string_view text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

nlohmann::json RealCatalog() { return nlohmann::json::parse(ReadFile(kTraceDir / "catalog.json")); }

nlohmann::json& ResourceOf(nlohmann::json& catalog, std::string_view type, std::string_view title) {
  for (nlohmann::json& r : catalog["resources"]) {
    if (r["type"] == type && r["title"] == title) return r;
  }
  ADD_FAILURE() << type << "[" << title << "] is not in the real catalog";
  return catalog;
}

void WriteRealTrace(const fs::path& dir) {
  fs::copy_file(kTraceDir / "trace.zst", dir / "trace.zst");
}

// ------------------------------------------------------------------ the cases

void GarbageLinesInARealTrace(const fs::path& d) {
  std::string g = Garbage(300, 7);
  std::erase(g, '\n');
  WriteFile(d / "trace", Join(WithLinesAfterFirstMarker({g, "", "not strace at all"})));
  fs::copy_file(kTraceDir / "catalog.json", d / "catalog.json");
}

// Each case writes its inputs into an empty directory; the command in the table runs there.
using CaseTable = std::map<std::string, std::function<void(const fs::path&)>>;

// Traces: empty, missing, damaged, cut short, garbage, huge lines, pathological processes.
void AddTraceCases(CaseTable* cases) {
  cases->insert({
      {"empty-trace", [](const fs::path& d) { WriteFile(d / "empty.trace", ""); }},
      {"missing-trace", [](const fs::path&) {}},
      {"directory-as-trace", [](const fs::path& d) { fs::create_directory(d / "traces"); }},
      {"corrupt-zst",
       [](const fs::path& d) {
         std::string z = Zstd(Join(RealTraceLines()));
         // Keep the magic number (so it is read as zstd) and damage the frame header.
         for (size_t i = 4; i < 12; ++i) z[i] = static_cast<char>(~z[i]);
         WriteFile(d / "corrupt.zst", z);
       }},
      {"truncated-zst",
       [](const fs::path& d) {  // the first 100 lines fit one zstd block: none can be read
         std::vector<std::string> head(RealTraceLines().begin(), RealTraceLines().begin() + 100);
         std::string z = Zstd(Join(head));
         WriteFile(d / "cut.zst", z.substr(0, z.size() / 2));
       }},
      {"cut-mid-line",
       [](const fs::path& d) {  // inside the call after the first resource's begin marker
         const auto& lines = RealTraceLines();
         std::vector<std::string> head(lines.begin(), lines.begin() + FirstMarker() + 2);
         std::string text = Join(head);
         text.resize(text.size() - 1 - head.back().size() / 2);
         WriteFile(d / "cut.trace", text);
       }},
      {"cut-mid-call",
       [](const fs::path& d) {  // right after an `<unfinished ...>` line
         const auto& lines = RealTraceLines();
         std::vector<std::string> head(lines.begin(),
                                       lines.begin() + FirstUnfinishedInBlocks() + 1);
         WriteFile(d / "cut.trace", Join(head));
       }},
      {"starts-mid-call",
       [](const fs::path& d) {  // the lines up to an `<unfinished ...>` one are missing
         const auto& lines = RealTraceLines();
         std::vector<std::string> tail(lines.begin() + LastUnfinishedBeforeBlocks() + 1,
                                       lines.end());
         WriteFile(d / "tail.trace", Join(tail));
         fs::copy_file(kTraceDir / "catalog.json", d / "catalog.json");
       }},
      {"binary-garbage",
       [](const fs::path& d) { WriteFile(d / "garbage.trace", Garbage(64 << 10, 42)); }},
      {"garbage-lines-in-a-real-trace", GarbageLinesInARealTrace},
      {"garbage-lines-with-strict", GarbageLinesInARealTrace},
      {"marker-without-a-duration",
       [](const fs::path& d) {  // crashed fsmove (found by strace_line_fuzzer)
         std::string pid = PidOf(RealTraceLines()[FirstMarker()]);
         WriteFile(
             d / "trace",
             Join(WithLinesAfterFirstMarker(
                 {pid + " write(1, \"Info: /Stage[main]/Main/Exec[x]: Evaluated in seconds\\n\", "
                        "53) = 53"})));
         fs::copy_file(kTraceDir / "catalog.json", d / "catalog.json");
       }},
      {"ten-megabyte-line",
       [](const fs::path& d) {
         std::string pid = PidOf(RealTraceLines()[FirstMarker()]);
         WriteFile(
             d / "trace",
             Join(WithLinesAfterFirstMarker({pid + " write(5, \"" + std::string(10 << 20, 'x') +
                                             "\", 10485760) = 10485760"})));
         fs::copy_file(kTraceDir / "catalog.json", d / "catalog.json");
       }},
      {"twenty-megabyte-line",
       [](const fs::path& d) {
         std::string pid = PidOf(RealTraceLines()[FirstMarker()]);
         WriteFile(
             d / "trace",
             Join(WithLinesAfterFirstMarker({pid + " write(5, \"" + std::string(20 << 20, 'x') +
                                             "\", 20971520) = 20971520"})));
         fs::copy_file(kTraceDir / "catalog.json", d / "catalog.json");
       }},
      {"hundred-interleaved-unfinished-calls",
       [](const fs::path& d) {  // 100 processes, each call resumed in reverse order
         std::vector<std::string> lines;
         for (int pid = 1000; pid < 1100; ++pid) {
           lines.push_back(std::to_string(pid) + "   openat(AT_FDCWD, \"/etc/f" +
                           std::to_string(pid) + "\", O_RDONLY|O_CLOEXEC <unfinished ...>");
         }
         for (int pid = 1099; pid >= 1000; --pid) {
           lines.push_back(std::to_string(pid) + "   <... openat resumed>) = 3");
         }
         WriteFile(d / "interleaved.trace", Join(lines));
       }},
      {"thousands-of-clones-that-never-return",
       [](const fs::path& d) {  // was quadratic: every new pid scanned every clone in flight
         std::string text;
         for (int i = 0; i < 20000; ++i) {
           text +=
               std::to_string(1000 + i) +
               "   clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD <unfinished ...>\n";
         }
         for (int i = 0; i < 20000; ++i) text += std::to_string(100000 + i) + "   close(3) = 0\n";
         WriteFile(d / "clones.trace", text);
       }},
      {"no-markers",
       [](const fs::path& d) {
         std::vector<std::string> lines;
         for (const std::string& l : RealTraceLines()) {
           if (!IsMarker(l)) lines.push_back(l);
         }
         WriteFile(d / "nomarkers.trace", Join(lines));
         fs::copy_file(kTraceDir / "catalog.json", d / "catalog.json");
       }},
      {"crlf-line-ends",
       [](const fs::path& d) {
         WriteFile(d / "crlf.trace", Join(RealTraceLines(), "\r\n"));
         fs::copy_file(kTraceDir / "catalog.json", d / "catalog.json");
       }},
  });
}

// Catalogs (with the real trace) and outputs that are missing, or not the regular files they
// should be.
void AddCatalogFileCases(CaseTable* cases) {
  cases->insert({
      {"catalog-missing", [](const fs::path& d) { WriteRealTrace(d); }},
      {"catalog-directory",
       [](const fs::path& d) {
         WriteRealTrace(d);
         fs::create_directory(d / "catalogs");
       }},
      {"catalog-endless-device", [](const fs::path& d) { WriteRealTrace(d); }},
      {"trace-endless-device", [](const fs::path& d) { WriteRealTrace(d); }},
      {"output-is-the-catalog",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json", RealCatalog().dump());
       }},
      {"output-through-symlink",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json", RealCatalog().dump());
         WriteFile(d / "victim", "keep me\n");
         fs::create_symlink("victim", d / "report.txt");
       }},
      {"output-directory-missing",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json", RealCatalog().dump());
       }},
      {"output-is-a-directory",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json", RealCatalog().dump());
         fs::create_directory(d / "out");
       }},
      {"catalog-fifo",
       [](const fs::path& d) {
         WriteRealTrace(d);
         ASSERT_EQ(mkfifo((d / "catalog.fifo").c_str(), 0600), 0);
       }},
  });
}

// Catalogs (with the real trace) whose contents are not a catalog fsmove can check.
void AddCatalogContentCases(CaseTable* cases) {
  cases->insert({
      {"markers-but-no-catalog-resources",
       [](const fs::path& d) {
         WriteRealTrace(d);
         nlohmann::json c = RealCatalog();
         c["resources"] = nlohmann::json::array();
         c["edges"] = nlohmann::json::array();
         WriteFile(d / "empty.json", c.dump());
       }},
      {"catalog-empty-file",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json", "");
       }},
      {"catalog-not-json",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json", "Error: Could not find class ::app for vm\n");
       }},
      {"catalog-truncated",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json",
                   "Notice: Compiled catalog\n{\"resources\": [{\"type\": \"Fi");
       }},
      {"catalog-json-array",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json", "[{\"type\": \"File\", \"title\": \"/etc/app\"}]");
       }},
      {"catalog-wrong-format",
       [](const fs::path& d) {
         WriteRealTrace(d);
         nlohmann::json c = RealCatalog();
         c["catalog_format"] = 3;
         WriteFile(d / "catalog.json", c.dump());
       }},
      {"catalog-resources-not-an-array",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json", R"({"catalog_format": 2, "resources": {"File[/a]": {}}})");
       }},
      {"catalog-resource-without-type",
       [](const fs::path& d) {
         WriteRealTrace(d);
         nlohmann::json c = RealCatalog();
         c["resources"][3].erase("type");
         WriteFile(d / "catalog.json", c.dump());
       }},
      {"catalog-resource-without-title",
       [](const fs::path& d) {
         WriteRealTrace(d);
         nlohmann::json c = RealCatalog();
         c["resources"][3].erase("title");
         WriteFile(d / "catalog.json", c.dump());
       }},
      {"catalog-duplicate-resource",
       [](const fs::path& d) {
         WriteRealTrace(d);
         nlohmann::json c = RealCatalog();
         c["resources"].push_back(c["resources"][3]);
         WriteFile(d / "catalog.json", c.dump());
       }},
      {"catalog-number-overflow",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json",
                   "{\"catalog_format\": 2,\n \"version\": 1e400,\n \"resources\": []}");
       }},
      {"catalog-line-out-of-range",
       [](const fs::path& d) {
         WriteRealTrace(d);
         nlohmann::json c = RealCatalog();
         c["resources"][3]["line"] = 4294967311ULL;  // 2^32 + 15: wrapped, it read as line 15
         WriteFile(d / "catalog.json", c.dump());
       }},
      {"catalog-nested-too-deep",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json",
                   "{\"resources\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
       }},
      {"catalog-duplicate-key",
       [](const fs::path& d) {
         WriteRealTrace(d);
         // A trailing "resources": [] would erase the catalog if the last value won.
         std::string text = RealCatalog().dump();
         text.insert(text.size() - 1, ", \"resources\": []");
         WriteFile(d / "catalog.json", text);
       }},
      {"catalog-one-huge-parameter",
       [](const fs::path& d) {
         WriteRealTrace(d);
         // A parameter of 100,000 integers (a 40 MB array of them took 1 GB as a DOM): over a
         // limit of 10,000 values held at once, the catalog is not read.
         nlohmann::json c = RealCatalog();
         ResourceOf(c, "Exec", "use config")["parameters"]["data"] = std::vector<int>(100000, 1);
         WriteFile(d / "catalog.json", c.dump());
       }},
      {"catalog-over-the-byte-limit",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json", RealCatalog().dump());
       }},
      {"trace-over-the-path-limit",
       [](const fs::path& d) {
         WriteRealTrace(d);
         WriteFile(d / "catalog.json", RealCatalog().dump());
       }},
      {"catalog-unknown-reference",
       [](const fs::path& d) {
         WriteRealTrace(d);
         nlohmann::json c = RealCatalog();
         ResourceOf(c, "Exec", "use config")["parameters"]["require"] = "File[/etc/nope]";
         WriteFile(d / "catalog.json", c.dump());
       }},
      {"catalog-dependency-cycle",
       [](const fs::path& d) {
         WriteRealTrace(d);
         nlohmann::json c = RealCatalog();
         ResourceOf(c, "Exec", "use config")["parameters"]["before"] = "File[/etc/app]";
         ResourceOf(c, "File", "/etc/app")["parameters"]["before"] = "Exec[use config]";
         WriteFile(d / "catalog.json", c.dump());
       }},
  });
}

// The inputs of `fsmove scan` (its module list) and `fsmove merge` (a shard's status.json).
void AddScanAndMergeCases(CaseTable* cases) {
  cases->insert({
      {"scan-list-endless-device", [](const fs::path&) {}},
      {"scan-list-fifo",
       [](const fs::path& d) { ASSERT_EQ(mkfifo((d / "modules.fifo").c_str(), 0600), 0); }},
      {"merge-status-fifo",
       [](const fs::path& d) {
         fs::create_directories(d / "shard" / "app-0123456789");
         ASSERT_EQ(mkfifo((d / "shard" / "app-0123456789" / "status.json").c_str(), 0600), 0);
       }},
      {"merge-status-symlink",
       [](const fs::path& d) {
         fs::create_directories(d / "shard" / "app-0123456789");
         WriteFile(d / "victim.json", "{}\n");
         fs::create_symlink("../../victim.json", d / "shard" / "app-0123456789" / "status.json");
       }},
  });
}

const CaseTable& Cases() {
  static const CaseTable* cases = [] {
    auto* all = new CaseTable;
    AddTraceCases(all);
    AddCatalogFileCases(all);
    AddCatalogContentCases(all);
    AddScanAndMergeCases(all);
    return all;
  }();
  return *cases;
}

// ------------------------------------------------------------------ the table

struct Row {
  std::string id;
  std::string command;
  int exit_code = 0;
  std::vector<std::string> stderr_lines;
  std::string report_line;  // a line stdout must contain; empty: not checked
  std::map<std::string, uint64_t> counts;
};

std::vector<std::string> SplitCells(std::string_view line) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {  // line[0] == '|'
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      while (!cell.empty() && cell.back() == ' ') cell.pop_back();
      size_t b = cell.find_first_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

std::string StripCode(std::string s) {  // `text` -> text
  if (s.size() >= 2 && s.front() == '`' && s.back() == '`') return s.substr(1, s.size() - 2);
  return s;
}

std::vector<std::string> SplitOn(std::string s, std::string_view sep) {
  std::vector<std::string> out;
  size_t at;
  while ((at = s.find(sep)) != std::string::npos) {
    out.push_back(s.substr(0, at));
    s.erase(0, at + sep.size());
  }
  out.push_back(s);
  return out;
}

constexpr std::string_view kBegin = "<!-- bad-input-catalogue:begin -->";
constexpr std::string_view kEnd = "<!-- bad-input-catalogue:end -->";

// The text between the markers, or empty.
std::string TableText(const std::string& document) {
  size_t b = document.find(kBegin);
  size_t e = document.find(kEnd);
  if (b == std::string::npos || e == std::string::npos || e < b) return "";
  return document.substr(b + kBegin.size(), e - b - kBegin.size());
}

// Columns: case | bad input | command | exit | stderr | report says | counts.
std::vector<Row> ParseTable(const std::string& table) {
  std::vector<Row> rows;
  std::istringstream in(table);
  std::string line;
  int seen = 0;
  while (std::getline(in, line)) {
    if (!line.starts_with("|")) continue;
    if (seen++ < 2) continue;  // header and separator
    std::vector<std::string> cells = SplitCells(line);
    if (cells.size() != 7) {
      ADD_FAILURE() << "a catalogue row needs 7 cells: " << line;
      continue;
    }
    Row r;
    r.id = StripCode(cells[0]);
    r.command = StripCode(cells[2]);
    r.exit_code = std::atoi(cells[3].c_str());
    if (cells[4] != "—") {
      for (std::string& l : SplitOn(cells[4], "<br>")) r.stderr_lines.push_back(StripCode(l));
    }
    if (cells[5] != "—") r.report_line = StripCode(cells[5]);
    if (cells[6] != "—") {
      for (const std::string& kv : SplitOn(cells[6], " ")) {
        size_t eq = kv.find('=');
        if (eq == std::string::npos) {
          ADD_FAILURE() << r.id << ": count without '=': " << kv;
          continue;
        }
        r.counts[kv.substr(0, eq)] = std::stoull(kv.substr(eq + 1));
      }
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

const std::vector<Row>& Rows() {
  static const auto* rows = new std::vector<Row>(
      ParseTable(TableText(ReadFile(kSource / "tests" / "bad_input" / "CATALOGUE.md"))));
  return *rows;
}

// ------------------------------------------------------------------ running fsmove

struct Outcome {
  int exit_code = -1;  // -N: killed by signal N
  bool timed_out = false;
  std::string out;
  std::string err;
};

Outcome RunFsmove(const fs::path& dir, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  std::string binary = FSMOVE_BINARY;
  argv.push_back(binary.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  Outcome o;
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    int out = open("stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) _exit(126);
    dup2(out, 1);
    dup2(err, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + kTimeout;
  int status = 0;
  for (;;) {
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      o.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  o.out = ReadFile(dir / "stdout.txt");
  o.err = ReadFile(dir / "stderr.txt");
  fs::remove(dir / "stdout.txt");
  fs::remove(dir / "stderr.txt");
  return o;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

fs::path FreshDirectory(const std::string& id) {
  fs::path dir =
      fs::temp_directory_path() / ("fsmove-bad-input-" + std::to_string(getpid()) + "-" + id);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Where each count of the table is in the JSON report.
uint64_t CountIn(const nlohmann::json& report, const std::string& name) {
  static const std::map<std::string, std::string> kPointers = {
      {"lines", "/stats/lines"},
      {"calls", "/stats/calls"},
      {"split_calls", "/stats/split_calls"},
      {"unparsed", "/stats/unparsed_lines"},
      {"cut", "/stats/cut_lines"},
      {"unfinished", "/stats/pending_at_end"},
      {"blocks", "/stats/blocks"},
      {"MOR", "/summary/MOR"},
      {"MN", "/summary/MN"},
  };
  auto it = kPointers.find(name);
  if (it == kPointers.end()) {
    ADD_FAILURE() << "unknown count " << name;
    return 0;
  }
  nlohmann::json::json_pointer p(it->second);
  if (!report.contains(p)) {
    ADD_FAILURE() << "the report has no " << it->second;
    return 0;
  }
  return report.at(p).get<uint64_t>();
}

void PrintTo(const Row& row, std::ostream* os) { *os << row.id; }

class BadInputCatalogueTest : public ::testing::TestWithParam<Row> {};

TEST_P(BadInputCatalogueTest, ExitCodeMessageAndCounts) {
  const Row& row = GetParam();
  auto gen = Cases().find(row.id);
  ASSERT_NE(gen, Cases().end()) << "no case builds the inputs of row " << row.id;
  fs::path dir = FreshDirectory(row.id);
  gen->second(dir);

  std::vector<std::string> args = SplitOn(row.command, " ");
  ASSERT_EQ(args.front(), "fsmove") << row.command;
  args.erase(args.begin());
  Outcome o = RunFsmove(dir, args);
  if (std::getenv("FSMOVE_CATALOGUE_PRINT") != nullptr) {  // to draft a row; review it by hand
    std::string err;
    for (const std::string& l : Lines(o.err)) err += (err.empty() ? "" : "<br>") + l;
    std::cout << "ROW | `" << row.id << "` | exit " << o.exit_code << " | " << err << "\n";
    std::vector<std::string> json_args = args;
    json_args.insert(json_args.end(), {"--format", "json", "-o", "report.json"});
    if (RunFsmove(dir, json_args).exit_code <= 1) {
      nlohmann::json report = nlohmann::json::parse(ReadFile(dir / "report.json"));
      std::cout << "COUNTS " << row.id;
      for (const char* name : {"lines", "unparsed", "cut", "calls", "split_calls", "unfinished",
                               "blocks", "MOR", "MN"}) {
        if (report.contains(nlohmann::json::json_pointer(std::string("/summary"))) ||
            (std::string_view(name) != "MOR" && std::string_view(name) != "MN")) {
          std::cout << " " << name << "=" << CountIn(report, name);
        }
      }
      std::cout << "\n";
    }
    for (const std::string& l : Lines(o.out)) {
      if (l.find("calls unfinished") != std::string::npos || l.find("cycle") != std::string::npos)
        std::cout << "REPORT " << row.id << ": " << l << "\n";
    }
  }
  ASSERT_FALSE(o.timed_out) << row.command << " hangs (killed after " << kTimeout.count() << " s)";
  EXPECT_EQ(o.exit_code, row.exit_code) << row.command << "\nstderr:\n" << o.err;
  EXPECT_EQ(Lines(o.err), row.stderr_lines) << row.command;
  if (!row.report_line.empty()) {
    EXPECT_THAT(Lines(o.out), ::testing::Contains(row.report_line)) << o.out.substr(0, 4000);
  }
  if (!row.counts.empty()) {  // the same run, as JSON: what was read, dropped and found
    args.insert(args.end(), {"--format", "json", "-o", "report.json"});
    Outcome j = RunFsmove(dir, args);
    ASSERT_FALSE(j.timed_out);
    ASSERT_EQ(j.exit_code, row.exit_code) << j.err;
    nlohmann::json report = nlohmann::json::parse(ReadFile(dir / "report.json"));
    for (const auto& [name, expected] : row.counts) {
      EXPECT_EQ(CountIn(report, name), expected) << row.id << ": " << name;
    }
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInputCatalogueTest, ::testing::ValuesIn(Rows()),
                         [](const ::testing::TestParamInfo<Row>& info) {
                           std::string name = info.param.id;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(BadInputCatalogueTableTest, EveryCaseHasARowAndEveryRowACase) {
  std::set<std::string> rows;
  for (const Row& r : Rows()) {
    EXPECT_TRUE(rows.insert(r.id).second) << "row " << r.id << " appears twice";
  }
  EXPECT_GE(rows.size(), 30u);
  for (const auto& [id, gen] : Cases()) EXPECT_TRUE(rows.contains(id)) << id << " has no row";
}

TEST(BadInputCatalogueTableTest, TroubleshootingDocShowsTheSameTable) {
  std::string catalogue = TableText(ReadFile(kSource / "tests" / "bad_input" / "CATALOGUE.md"));
  std::string manual = TableText(ReadFile(kSource / "docs" / "troubleshooting.md"));
  ASSERT_FALSE(catalogue.empty());
  EXPECT_EQ(manual, catalogue)
      << "copy the table of tests/bad_input/CATALOGUE.md into docs/troubleshooting.md";
}

}  // namespace
}  // namespace fsmove::testing
