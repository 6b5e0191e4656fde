// Reading a module's class declarations (names, required parameters, privacy) with the fix
// layer's Puppet tokenizer, for the runs a scan makes of the module.
#include "fsmove/scan/module_classes.h"

#include <algorithm>
#include <filesystem>

#include "fmt/format.h"
#include "fsmove/base/beneath.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/target.h"
#include "fsmove/fix/puppet_source.h"
#include "nlohmann/json.hpp"

namespace fsmove::scan {

namespace fs = std::filesystem;
using fix::TokenKind;

namespace {

// The doc comment right above `line` (its consecutive `#` lines) says `@api private`.
bool DocumentedPrivate(const fix::PuppetSource& src, int line) {
  for (int l = line - 1; l >= 1; --l) {
    const std::string_view text =
        std::string_view(src.text()).substr(src.LineStart(l), src.LineEnd(l) - src.LineStart(l));
    const size_t first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || text[first] != '#') return false;
    if (text.find("@api private") != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::vector<ClassDeclaration>> DeclaredClasses(std::string text) {
  absl::StatusOr<fix::PuppetSource> parsed = fix::PuppetSource::Parse(std::move(text));
  if (!parsed.ok()) return parsed.status();
  const fix::PuppetSource& src = *parsed;
  const std::vector<fix::Token>& t = src.tokens();
  std::vector<ClassDeclaration> out;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    // `class NAME`: a definition (`class { 'x': }` declares a resource instead).
    if (t[i].kind != TokenKind::kName || src.TokenText(i) != "class" ||
        t[i + 1].kind != TokenKind::kName) {
      continue;
    }
    ClassDeclaration c;
    c.name = std::string(src.TokenText(i + 1));
    if (c.name.starts_with("::")) c.name.erase(0, 2);
    c.line = t[i].line;
    size_t j = i + 2;
    if (j < t.size() && t[j].kind == TokenKind::kOpen && src.TokenText(j) == "(") {
      // The parameters: `Type $name = default` between commas at the list's own depth.
      const size_t close = t[j].match;
      std::string variable;
      bool has_default = false;
      for (size_t k = j + 1; k <= close && k < t.size(); ++k) {
        if (k == close || t[k].kind == TokenKind::kComma) {
          if (!variable.empty() && !has_default) c.required.push_back(variable);
          variable.clear();
          has_default = false;
          continue;
        }
        if (t[k].kind == TokenKind::kOpen) {
          k = t[k].match;  // a type's or a default's brackets
          continue;
        }
        if (t[k].kind == TokenKind::kVariable && variable.empty()) {
          variable = std::string(src.TokenText(k));
        } else if (t[k].kind == TokenKind::kOther && src.TokenText(k) == "=" && !variable.empty()) {
          has_default = true;
        }
      }
      j = close + 1;
    }
    // The body: the first `{` after the parameters and `inherits X`.
    while (j < t.size() && !(t[j].kind == TokenKind::kOpen && src.TokenText(j) == "{")) ++j;
    if (j < t.size()) {
      for (size_t k = j + 1; k < t[j].match && k < t.size(); ++k) {
        if (t[k].kind == TokenKind::kName && src.TokenText(k) == "assert_private") {
          c.is_private = true;
          break;
        }
      }
    }
    c.is_private = c.is_private || DocumentedPrivate(src, c.line);
    out.push_back(std::move(c));
  }
  return out;
}

std::string ModuleName(const std::string& module_dir) {
  // As `fsmove check` names it: "author-name" or "author/name" -> "name".
  // Opened beneath the module: a metadata.json that links out is not the module's.
  absl::StatusOr<std::string> text =
      base::ReadFileBeneath(module_dir, "metadata.json", "module metadata");
  if (text.ok()) {
    const nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("name") && j["name"].is_string() &&
        !j["name"].get<std::string>().empty()) {
      return exec::ShortModuleName(j["name"].get<std::string>());
    }
  }
  fs::path dir = fs::path(module_dir).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  return exec::ShortModuleName(dir.filename().string());
}

IncludeClass ModuleIncludeClass(const std::string& module_dir) {
  IncludeClass out;
  const std::string name = ModuleName(module_dir);
  absl::StatusOr<std::string> text =
      base::ReadFileBeneath(module_dir, "manifests/init.pp", "manifest");
  if (absl::IsNotFound(text.status())) {
    out.why_not = fmt::format("module '{}' has no manifests/init.pp", name);
    return out;
  }
  if (absl::IsPermissionDenied(text.status())) {  // a link, or unreadable
    out.why_not = std::string(text.status().message());
    return out;
  }
  absl::StatusOr<std::vector<ClassDeclaration>> classes =
      text.ok() ? DeclaredClasses(std::move(*text))
                : absl::StatusOr<std::vector<ClassDeclaration>>(text.status());
  if (!classes.ok()) {
    // Not Puppet code as far as the tokenizer sees: Puppet's compile says best what is wrong
    // with it, so the include run is made.
    out.found = true;
    out.declaration.name = name;
    return out;
  }
  for (ClassDeclaration& c : *classes) {
    if (c.name == name) {
      out.found = true;
      out.declaration = std::move(c);
      return out;
    }
  }
  out.why_not = fmt::format(
      "module '{}' has no class '{}' to include: its manifests/init.pp declares {}", name, name,
      classes->empty() ? std::string("no class (defined types only)")
                       : fmt::format("class '{}' but not that one", classes->front().name));
  return out;
}

std::vector<std::string> IncludableClasses(const std::string& module_dir, size_t max_classes) {
  const fs::path manifests = fs::path(module_dir) / "manifests";
  const std::string name = ModuleName(module_dir);
  std::vector<std::string> found;
  std::error_code ec;
  size_t files = 0;
  for (fs::recursive_directory_iterator it(manifests, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (++files > 2000) break;  // a module, not a whole tree
    std::error_code e2;
    const fs::path& p = it->path();
    if (p.extension() != ".pp" || !it->is_regular_file(e2) || p == manifests / "init.pp") continue;
    absl::StatusOr<std::string> text =
        base::ReadFileBeneath(module_dir, p.lexically_relative(module_dir).string(), "manifest");
    if (!text.ok()) continue;
    absl::StatusOr<std::vector<ClassDeclaration>> classes = DeclaredClasses(std::move(*text));
    if (!classes.ok()) continue;
    for (const ClassDeclaration& c : *classes) {
      const bool own = c.name.starts_with(name + "::");
      const bool params =
          c.name.ends_with("::params") || c.name.find("::params::") != std::string::npos;
      if (own && !params && !c.is_private && c.required.empty()) found.push_back(c.name);
    }
  }
  auto depth = [](const std::string& n) { return std::count(n.begin(), n.end(), ':'); };
  std::sort(found.begin(), found.end(), [&](const std::string& a, const std::string& b) {
    return depth(a) != depth(b) ? depth(a) < depth(b) : a < b;
  });
  found.erase(std::unique(found.begin(), found.end()), found.end());
  if (found.size() > max_classes) found.resize(max_classes);
  return found;
}

}  // namespace fsmove::scan
