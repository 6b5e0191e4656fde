// Lexical path arithmetic the way Puppet's File type sees paths: canonical form,
// parent directory and "strictly under", all without touching the file system.
#include "fsmove/catalog/file_path.h"

#include <vector>

namespace fsmove::catalog {

std::string CanonicalFilePath(std::string_view path) {
  if (!IsAbsolutePath(path)) return std::string(path);
  std::vector<std::string_view> segments;
  std::size_t pos = 0;
  while (pos < path.size()) {
    std::size_t next = path.find('/', pos);
    if (next == std::string_view::npos) next = path.size();
    const std::string_view segment = path.substr(pos, next - pos);
    if (segment.empty() || segment == ".") {
      // "//" and "/./" add nothing.
    } else if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
    } else {
      segments.push_back(segment);
    }
    pos = next + 1;
  }
  if (segments.empty()) return "/";
  std::string result;
  result.reserve(path.size());
  for (const std::string_view segment : segments) {
    result.push_back('/');
    result.append(segment);
  }
  return result;
}

std::string_view ParentDirectory(std::string_view canonical_path) {
  if (canonical_path.size() <= 1) return {};
  const std::size_t slash = canonical_path.rfind('/');
  if (slash == std::string_view::npos) return {};
  if (slash == 0) return canonical_path.substr(0, 1);
  return canonical_path.substr(0, slash);
}

bool IsStrictlyUnder(std::string_view path, std::string_view dir) {
  if (dir.empty() || path.size() <= dir.size()) return false;
  if (path.substr(0, dir.size()) != dir) return false;
  if (dir == "/") return true;
  return path[dir.size()] == '/';
}

}  // namespace fsmove::catalog
