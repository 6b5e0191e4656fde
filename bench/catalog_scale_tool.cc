// Builds a large checker benchmark from a real recorded fixture: the trace's start-up part
// once, then its resource blocks again and again with every occurrence of a path prefix and
// of the resources' titles renamed per copy (so each copy is a new set of resources touching
// new paths), until the trace reaches BYTES; and a matching catalog: every copy's resources,
// half of them with the fixture's missing relationship added (fixed), padded with Notify
// resources to RESOURCES in all.
//
// Usage: catalog_scale_tool TRACE.zst CATALOG.json PATH_PREFIX OUT_TRACE OUT_CATALOG BYTES
//                           RESOURCES
// e.g. traces/faults-configure-use-bad: PATH_PREFIX /etc/app (File[/etc/app], its file, and
// Exec[use config], which reads it without a require).
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fsmove/strace/line_reader.h"
#include "nlohmann/json.hpp"

namespace {

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  size_t at = 0;
  while ((at = s.find(from, at)) != std::string::npos) {
    s.replace(at, from.size(), to);
    at += to.size();
  }
  return s;
}

bool IsMarker(const std::string& line) {
  return line.find("Info: ") != std::string::npos &&
         (line.find(": Starting to evaluate the resource") != std::string::npos ||
          line.find(": Evaluated in ") != std::string::npos);
}

// The trace's lines, and its block region: from the first resource marker to the last
// (start-up before it, the tail after it).
struct SplitTrace {
  std::vector<std::string> lines;
  size_t first_marker = SIZE_MAX, last_marker = 0;
};

bool ReadSplitTrace(const char* path, SplitTrace* split) {
  auto reader = fsmove::strace::LineReader::Open(path);
  if (!reader.ok()) {
    std::cerr << reader.status().message() << "\n";
    return false;
  }
  std::vector<std::string>& lines = split->lines;
  std::string_view l;
  size_t& first_marker = split->first_marker;
  size_t& last_marker = split->last_marker;
  while ((*reader)->Next(&l)) {
    lines.emplace_back(l);
    if (IsMarker(lines.back())) {
      first_marker = std::min(first_marker, lines.size() - 1);
      last_marker = lines.size() - 1;
    }
  }
  if (first_marker == SIZE_MAX) {
    std::cerr << "catalog_scale_tool: no markers in " << path << "\n";
    return false;
  }
  // A marker written on an unfinished line resumes on a later one: keep the pair together.
  while (last_marker + 1 < lines.size() &&
         lines[last_marker + 1].find(" resumed>") != std::string::npos) {
    ++last_marker;
  }
  return true;
}

// A block line of the copy `suffix`: its paths under the prefix and the titles of the
// templates not named after a path renamed.
std::string RenamedLine(const std::string& line, const std::string& prefix,
                        const std::string& suffix, const std::vector<nlohmann::json>& templates) {
  std::string s = ReplaceAll(line, prefix, prefix + suffix);
  for (const auto& t : templates) {
    std::string title = t["title"];
    if (title.find(prefix) == std::string::npos) {
      s = ReplaceAll(s, absl::StrCat("[", title, "]"), absl::StrCat("[", title, suffix, "]"));
    }
  }
  return s;
}

// The copy's resources, renamed as its lines are, each contained in Class[main]; every other
// copy has the fix.
void AddCopyResources(const std::vector<nlohmann::json>& templates, const std::string& prefix,
                      const std::string& suffix, size_t copy, nlohmann::json* resources,
                      nlohmann::json* edges) {
  for (const auto& t : templates) {
    nlohmann::json r = t;
    std::string title = t["title"];
    r["title"] = title.find(prefix) == std::string::npos
                     ? title + suffix
                     : ReplaceAll(title, prefix, prefix + suffix);
    std::string dumped = ReplaceAll(r["parameters"].dump(), prefix, prefix + suffix);
    r["parameters"] = nlohmann::json::parse(dumped);
    if (copy % 2 == 1 && r["type"] == "Exec") {  // every other copy has the fix
      r["parameters"]["require"] =
          "File[" + ReplaceAll(prefix + "/app.conf", prefix, prefix + suffix) + "]";
    }
    resources->push_back(r);
    edges->push_back({{"source", "Class[main]"},
                      {"target", std::string(r["type"]) + "[" + std::string(r["title"]) + "]"}});
  }
}

int Run(int argc, char** argv) {
  if (argc != 8) {
    std::cerr << "usage: catalog_scale_tool TRACE CATALOG PATH_PREFIX OUT_TRACE OUT_CATALOG BYTES "
                 "RESOURCES\n";
    return 2;
  }
  const std::string prefix = argv[3];
  const uint64_t target = std::stoull(argv[6]);
  const size_t resources = std::stoul(argv[7]);

  SplitTrace split;
  if (!ReadSplitTrace(argv[1], &split)) return 2;
  const std::vector<std::string>& lines = split.lines;
  const size_t first_marker = split.first_marker, last_marker = split.last_marker;
  uint64_t block_bytes = 0, startup_bytes = 0;
  for (size_t i = first_marker; i <= last_marker; ++i) block_bytes += lines[i].size() + 1;
  for (size_t i = 0; i < first_marker; ++i) startup_bytes += lines[i].size() + 1;
  std::ifstream cin_catalog(argv[2]);
  nlohmann::json catalog = nlohmann::json::parse(cin_catalog);
  // The fixture's own resources that copies rename: those whose ref mentions the prefix or
  // that are not containers (Class, Stage).
  std::vector<nlohmann::json> templates;
  for (const auto& r : catalog["resources"]) {
    std::string type = r["type"];
    if (type != "Class" && type != "Stage") templates.push_back(r);
  }

  std::ofstream trace(argv[4]);
  uint64_t written = 0;
  auto emit = [&](const std::string& s) {
    trace << s << '\n';
    written += s.size() + 1;
  };
  for (size_t i = 0; i < first_marker; ++i) emit(lines[i]);
  size_t copies = 0;
  nlohmann::json out_resources = nlohmann::json::array();
  nlohmann::json out_edges = nlohmann::json::array();
  for (const auto& r : catalog["resources"]) {
    std::string type = r["type"];
    if (type == "Class" || type == "Stage") out_resources.push_back(r);
  }
  // As many copies as the catalog has room for; the rest of the size is start-up noise
  // replayed between copies (Puppet's own calls between resources, charged to none).
  size_t max_copies = templates.empty() ? 0 : (resources - out_resources.size()) / templates.size();
  uint64_t fill = 0;
  if (max_copies > 0 && target > startup_bytes + max_copies * block_bytes) {
    fill = (target - startup_bytes - max_copies * block_bytes) / max_copies;
  }
  size_t noise_at = 0;
  while (written < target && copies < max_copies) {
    for (uint64_t filled = 0; filled < fill && first_marker > 0;) {
      const std::string& n = lines[noise_at];
      if (n.find("execve(") == std::string::npos) {  // Puppet's own start-up exec happens once
        emit(n);
        filled += n.size() + 1;
      }
      noise_at = (noise_at + 1) % first_marker;
    }
    std::string suffix = "-" + std::to_string(copies);
    for (size_t i = first_marker; i <= last_marker; ++i) {
      emit(RenamedLine(lines[i], prefix, suffix, templates));
    }
    AddCopyResources(templates, prefix, suffix, copies, &out_resources, &out_edges);
    ++copies;
  }
  for (size_t i = last_marker + 1; i < lines.size(); ++i) emit(lines[i]);
  for (size_t n = 0; out_resources.size() < resources; ++n) {
    std::string title = "filler " + std::to_string(n);
    out_resources.push_back({{"type", "Notify"},
                             {"title", title},
                             {"exported", false},
                             {"parameters", nlohmann::json::object()}});
    out_edges.push_back({{"source", "Class[main]"}, {"target", "Notify[" + title + "]"}});
  }
  for (const auto& e : catalog["edges"]) {
    std::string target = e["target"];
    if (target.starts_with("Class[") || target.starts_with("Stage[")) out_edges.push_back(e);
  }
  catalog["resources"] = out_resources;
  catalog["edges"] = out_edges;
  std::ofstream(argv[5]) << catalog.dump();
  std::cerr << "catalog_scale_tool: " << written << " bytes, " << copies
            << " copies of the blocks, " << out_resources.size() << " resources\n";
  return 0;
}

}  // namespace

// A bad input (a catalog that is not JSON) ends the tool with its message, not an abort.
int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "catalog_scale_tool: " << e.what() << "\n";
    return 1;
  }
}
