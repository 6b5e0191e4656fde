// The checked code's suppression comments read from its manifests; see source_comments.h.
#include "fsmove/pipeline/source_comments.h"

#include <filesystem>
#include <set>

#include "fmt/format.h"
#include "fsmove/base/beneath.h"
#include "fsmove/fix/puppet_source.h"

namespace fsmove::pipeline {
namespace {

constexpr std::string_view kDirective = "fsmove:";

bool Blank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

}  // namespace

void AddSourceSuppressions(std::string_view file, std::string_view path, std::string text,
                           gating::SourceSuppressions* out) {
  if (text.find(kDirective) == std::string::npos) return;
  absl::StatusOr<fix::PuppetSource> source = fix::PuppetSource::Parse(std::move(text));
  if (!source.ok()) {
    out->warnings.push_back(fmt::format("{}: its fsmove comments are not read: {}", path,
                                        std::string(source.status().message())));
    return;
  }
  const std::string& t = source->text();
  std::vector<gating::SourceComment> comments;
  for (const fix::Comment& c : source->comments()) {
    const size_t start = source->LineStart(c.line);
    gating::SourceComment sc;
    sc.line = c.line;
    sc.after_code = !Blank(std::string_view(t).substr(start, c.begin - start));
    sc.text = t.substr(c.begin + 1, c.end - c.begin - 1);
    comments.push_back(std::move(sc));
  }
  std::vector<int> code_lines;
  for (const fix::Token& tok : source->tokens()) {
    if (code_lines.empty() || code_lines.back() != tok.line) code_lines.push_back(tok.line);
  }
  gating::ReadSourceSuppressions(file, path, comments, code_lines, out);
}

gating::SourceSuppressions ReadSourceSuppressions(const catalog::Catalog& cat,
                                                  const fix::FixScope& scope) {
  namespace fs = std::filesystem;
  gating::SourceSuppressions out;
  if (scope.root.empty()) return out;
  const fs::path root = fs::path(scope.root).lexically_normal();
  absl::StatusOr<base::UniqueFd> root_fd = base::OpenRoot(root.string(), "the checked code");
  if (!root_fd.ok()) return out;
  std::set<std::string> files;
  for (const catalog::Resource& r : cat.resources()) {
    if (!r.file.empty() && r.file.front() == '/') files.insert(r.file);
  }
  for (const std::string& file : files) {
    const fs::path here = fs::path(scope.locate ? scope.locate(file) : file).lexically_normal();
    if (!scope.only_file.empty() && here != fs::path(scope.only_file).lexically_normal()) continue;
    const std::string rel = here.lexically_relative(root).string();
    if (rel.empty() || rel == "." || rel.starts_with("..")) continue;
    absl::StatusOr<std::string> text =
        base::ReadFileBeneath(root_fd->get(), root.string(), rel, "manifest");
    if (!text.ok()) {
      // A manifest beside the checked code's (through a link) holds nothing of the user's.
      continue;
    }
    AddSourceSuppressions(file, here.string(), std::move(*text), &out);
  }
  return out;
}

}  // namespace fsmove::pipeline
