// Paths relative to a repository root, and file URIs; see source_root.h.
#include "fsmove/report/source_root.h"

#include <filesystem>

namespace fsmove::report {
namespace {

std::string Normal(std::string_view path) {
  std::string s = std::filesystem::path(path).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

SourceRoot SourceRoot::FromDirectory(std::string_view dir) {
  SourceRoot r;
  if (dir.empty()) return r;
  std::error_code error;
  std::filesystem::path p = std::filesystem::absolute(std::filesystem::path(dir), error);
  r.root_ = Normal(error ? std::string(dir) : p.string());
  return r;
}

std::optional<std::string> SourceRoot::Relative(std::string_view file) const {
  if (root_.empty() || file.empty()) return std::nullopt;
  std::string f = Normal(file);
  if (f.front() != '/') {
    if (f == ".." || f.starts_with("../")) return std::nullopt;
    return f;
  }
  if (root_ == "/") return f.substr(1);
  if (f.size() > root_.size() && f.compare(0, root_.size(), root_) == 0 && f[root_.size()] == '/') {
    return f.substr(root_.size() + 1);
  }
  return std::nullopt;
}

std::string SourceRoot::Display(std::string_view file) const {
  auto rel = Relative(file);
  return rel ? *rel : std::string(file);
}

std::string PercentEncodePath(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                std::string_view("-._~/!$&'()*+,;=@").find(ch) != std::string_view::npos;
    if (keep) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string FileUri(std::string_view absolute_path) {
  return "file://" + PercentEncodePath(absolute_path);
}

}  // namespace fsmove::report
