// Literal manifests of acceptance specs; see acceptance_specs.h.
#include "fsmove/scan/acceptance_specs.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "fsmove/base/beneath.h"
#include "fsmove/base/read_file.h"
#include "re2/re2.h"

namespace fsmove::scan {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kAcceptanceDir = "/spec/acceptance/";
// A spec file larger than this is not read (specs are a few KiB).
constexpr size_t kMaxSpecBytes = size_t{1} << 20;
// Spec files read per module, at most (a module with a thousand is not read to the end).
constexpr size_t kMaxSpecFiles = 200;

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

std::string_view Trim(std::string_view s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string_view::npos) return {};
  const size_t b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

// The body without its common leading white space, as Ruby's <<~ gives it (Puppet does not
// mind indentation, but a manifest file reads better without).
std::string Dedent(const std::vector<std::string_view>& body) {
  size_t common = std::string_view::npos;
  for (std::string_view l : body) {
    const size_t a = l.find_first_not_of(" \t");
    if (a != std::string_view::npos) common = std::min(common, a);
  }
  if (common == std::string_view::npos) common = 0;
  std::string out;
  for (std::string_view l : body) {
    out.append(l.size() > common ? l.substr(common) : std::string_view());
    out += '\n';
  }
  return out;
}

// Whether the file applies Puppet code at all: Beaker's and Litmus's calls, or voxpupuli's
// shared example that applies `manifest` twice.
bool AppliesManifests(std::string_view ruby) {
  for (std::string_view call : {"apply_manifest", "idempotent_apply", "execute_manifest",
                                "an idempotent resource", "apply_puppet"}) {
    if (ruby.find(call) != std::string_view::npos) return true;
  }
  return false;
}

// Text that reads as Puppet code: an include, a class declaration, or a resource.
bool LooksLikePuppet(const std::string& text) {
  static const RE2 kPuppet(
      R"((?m)^\s*(include\s+['"]?[a-z:]|contain\s+['"]?[a-z:]|class\s*\{\s*['"]|[a-z][a-z0-9_]*(::[a-z0-9_]+)*\s*\{\s*['"$]))");
  return RE2::PartialMatch(text, kPuppet);
}

// A heredoc opened on a line that runs a command (shell('...'), on(host, <<-EOS)) holds
// shell, not Puppet.
bool RunsACommand(std::string_view line) {
  static const RE2 kCommand(
      R"(\b(shell|run_shell|on|run_script|create_remote_file|bolt_upload_file)\s*\(?)");
  return RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), kCommand) &&
         line.find("manifest") == std::string_view::npos;
}

std::string Squeezed(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') out += c;
  }
  return out;
}

}  // namespace

std::vector<SpecManifest> LiteralSpecManifests(std::string_view ruby) {
  std::vector<SpecManifest> out;
  if (!AppliesManifests(ruby)) return out;
  // <<~ID, <<-ID, <<ID (upper-case only, so that `a << b` is not one), each maybe quoted.
  static const RE2 kOpen(R"(<<([~-]?)(['"]?)([A-Z_][A-Za-z0-9_]*)(['"]?))");
  const std::vector<std::string_view> lines = Lines(ruby);
  for (size_t i = 0; i < lines.size(); ++i) {
    const re2::StringPiece line(lines[i].data(), lines[i].size());
    std::string flag, quote, id, close;
    if (!RE2::PartialMatch(line, kOpen, &flag, &quote, &id, &close) || quote != close) continue;
    if (flag.empty() && (id.empty() || id[0] < 'A' || id[0] > 'Z')) continue;
    size_t end = i + 1;
    while (end < lines.size() && Trim(lines[end]) != id) ++end;
    if (end == lines.size()) break;  // never closed: nothing after it is a heredoc body either
    const std::vector<std::string_view> body(lines.begin() + static_cast<long>(i) + 1,
                                             lines.begin() + static_cast<long>(end));
    const std::string text = Dedent(body);
    const bool interpolates = quote != "'" && text.find("#{") != std::string::npos;
    if (!interpolates && !RunsACommand(lines[i]) && LooksLikePuppet(text)) {
      out.push_back({static_cast<int>(i) + 1, text});
    }
    i = end;
  }
  return out;
}

std::vector<std::string> AcceptanceRuns(const std::string& module, size_t max_runs) {
  std::vector<std::string> specs;
  std::error_code ec;
  const fs::path dir = fs::path(module) / "spec" / "acceptance";
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    const std::string name = it->path().filename().string();
    if (name.ends_with("_spec.rb") && it->is_regular_file(e2)) specs.push_back(it->path().string());
    if (specs.size() == kMaxSpecFiles) break;
  }
  std::sort(specs.begin(), specs.end());
  std::vector<std::string> runs;
  std::set<std::string> seen;
  for (const std::string& spec : specs) {
    // Beneath the module: a spec that links out is none of the module's.
    absl::StatusOr<std::string> ruby = base::ReadFileBeneath(
        module, fs::path(spec).lexically_relative(module).string(), "spec", kMaxSpecBytes);
    if (!ruby.ok()) continue;
    for (const SpecManifest& m : LiteralSpecManifests(*ruby)) {
      if (runs.size() == max_runs) return runs;
      if (!seen.insert(Squeezed(m.text)).second) continue;
      runs.push_back(fmt::format("{}:{}", spec, m.line));
    }
  }
  return runs;
}

bool IsAcceptanceRun(std::string_view run) { return !AcceptanceRunModule(run).empty(); }

std::string AcceptanceRunModule(std::string_view run) {
  const size_t colon = run.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == run.size()) return {};
  for (char c : run.substr(colon + 1)) {
    if (c < '0' || c > '9') return {};
  }
  const std::string_view file = run.substr(0, colon);
  const size_t at = file.rfind(kAcceptanceDir);
  if (at == std::string_view::npos || at == 0 || !file.ends_with("_spec.rb")) return {};
  return std::string(file.substr(0, at));
}

absl::StatusOr<std::string> AcceptanceManifest(std::string_view run) {
  if (!IsAcceptanceRun(run)) {
    return absl::InvalidArgumentError(fmt::format("{}: not an acceptance spec run", run));
  }
  const size_t colon = run.rfind(':');
  int line = 0;
  const std::string_view digits = run.substr(colon + 1);
  std::from_chars(digits.data(), digits.data() + digits.size(), line);
  const std::string file(run.substr(0, colon));
  const std::string module = AcceptanceRunModule(run);
  absl::StatusOr<std::string> ruby = base::ReadFileBeneath(
      module, fs::path(file).lexically_relative(module).string(), "spec", kMaxSpecBytes);
  if (!ruby.ok()) return ruby.status();
  for (SpecManifest& m : LiteralSpecManifests(*ruby)) {
    if (m.line == line) return std::move(m.text);
  }
  return absl::NotFoundError(
      fmt::format("{}: no literal manifest at line {} any more", file, line));
}

}  // namespace fsmove::scan
