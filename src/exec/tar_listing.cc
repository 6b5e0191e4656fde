// Archives from elsewhere, judged before unpacking; see tar_listing.h.
#include "fsmove/exec/tar_listing.h"

#include <charconv>
#include <set>

#include "fmt/format.h"
#include "fsmove/exec/process.h"

namespace fsmove::exec {
namespace {

// A C-quoted string ("a\"b\\c\303\251") at the start of `s`, consumed; nullopt if it is not
// one.
std::optional<std::string> TakeQuoted(std::string_view& s) {
  if (s.empty() || s[0] != '"') return std::nullopt;
  std::string out;
  size_t i = 1;
  for (; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i == s.size()) return std::nullopt;
    const char c = s[i];
    if (c >= '0' && c <= '7') {
      int v = 0;
      for (int k = 0; k < 3 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++k, ++i) {
        v = v * 8 + (s[i] - '0');
      }
      --i;
      out += static_cast<char>(v);
      continue;
    }
    switch (c) {
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      default:
        out += c;
        break;  // \\ and \" (and anything else, as itself)
    }
  }
  if (i == s.size()) return std::nullopt;
  s.remove_prefix(i + 1);
  return out;
}

// One line of the listing: "MODE OWNER SIZE DATE TIME "NAME"[ -> "TARGET"| link to "NAME"]".
std::optional<TarEntry> ParseLine(std::string_view line) {
  const size_t quote = line.find('"');
  if (line.size() < 10 || quote == std::string_view::npos) return std::nullopt;
  TarEntry e;
  e.type = line[0];
  // The third field is the size (a device's "MAJOR,MINOR" is no size).
  std::string_view head = line.substr(0, quote);
  size_t field = 0, pos = 0;
  while (pos < head.size() && field < 2) {
    pos = head.find(' ', pos);
    if (pos == std::string_view::npos) return std::nullopt;
    while (pos < head.size() && head[pos] == ' ') ++pos;
    ++field;
  }
  const size_t end = head.find(' ', pos);
  if (end == std::string_view::npos) return std::nullopt;
  if (e.type == '-' || e.type == 'h') {
    std::string_view size = head.substr(pos, end - pos);
    if (std::from_chars(size.data(), size.data() + size.size(), e.size).ec != std::errc()) {
      return std::nullopt;
    }
  }
  std::string_view rest = line.substr(quote);
  std::optional<std::string> name = TakeQuoted(rest);
  if (!name) return std::nullopt;
  e.name = *name;
  if (e.name.starts_with("./")) e.name.erase(0, 2);
  if (e.name == ".") e.name.clear();
  if (rest.starts_with(" -> ")) {
    rest.remove_prefix(4);
  } else if (rest.starts_with(" link to ")) {
    rest.remove_prefix(9);
  } else if (rest.empty()) {
    return e;
  } else {
    return std::nullopt;
  }
  std::optional<std::string> link = TakeQuoted(rest);
  if (!link || !rest.empty()) return std::nullopt;
  e.link = *link;
  if (e.type == 'h' && e.link.starts_with("./")) e.link.erase(0, 2);
  return e;
}

// `name`'s components; false if one is "..", or it is absolute.
bool SafeName(std::string_view name, std::vector<std::string>* parts) {
  if (name.starts_with('/')) return false;
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    if (slash == std::string_view::npos) slash = name.size();
    std::string_view part = name.substr(start, slash - start);
    if (part == "..") return false;
    if (!part.empty() && part != ".") parts->emplace_back(part);
    start = slash + 1;
  }
  return true;
}

// Whether a symbolic link at `parts` with the relative target `target` stays in the archive.
bool RelativeTargetStaysIn(const std::vector<std::string>& parts, std::string_view target) {
  int depth = static_cast<int>(parts.size()) - 1;  // the link's directory
  size_t start = 0;
  while (start <= target.size()) {
    size_t slash = target.find('/', start);
    if (slash == std::string_view::npos) slash = target.size();
    std::string_view part = target.substr(start, slash - start);
    if (part == "..") {
      if (--depth < 0) return false;
    } else if (!part.empty() && part != ".") {
      ++depth;
    }
    start = slash + 1;
  }
  return true;
}

std::string Join(const std::vector<std::string>& parts, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += (i == 0 ? "" : "/") + parts[i];
  return s;
}

}  // namespace

absl::StatusOr<std::vector<TarEntry>> ParseTarListing(std::string_view listing) {
  std::vector<TarEntry> entries;
  size_t line_no = 0;
  while (!listing.empty()) {
    const size_t eol = listing.find('\n');
    std::string_view line = listing.substr(0, eol);
    listing.remove_prefix(eol == std::string_view::npos ? listing.size() : eol + 1);
    ++line_no;
    if (line.empty()) continue;
    std::optional<TarEntry> e = ParseLine(line);
    if (!e) {
      return absl::InvalidArgumentError(
          fmt::format("line {} of tar's listing is not one it writes: {}", line_no,
                      std::string(line.substr(0, 200))));
    }
    entries.push_back(*std::move(e));
  }
  return entries;
}

absl::Status CheckTarEntries(const std::vector<TarEntry>& entries, const TarPolicy& policy) {
  if (entries.size() > policy.max_entries) {
    return absl::InvalidArgumentError(
        fmt::format("it holds {} members, over {}", entries.size(), policy.max_entries));
  }
  std::set<std::string> links, files;
  uint64_t bytes = 0;
  for (const TarEntry& e : entries) {
    auto refuse = [&](std::string_view why) {
      return absl::InvalidArgumentError(fmt::format("its member {} {}", e.name, why));
    };
    std::vector<std::string> parts;
    if (!SafeName(e.name, &parts)) return refuse("is absolute or climbs out with '..'");
    for (size_t n = 1; n < parts.size(); ++n) {
      if (links.contains(Join(parts, n))) {
        return refuse(fmt::format("lies beneath the symbolic link {}", Join(parts, n)));
      }
    }
    const std::string name = Join(parts, parts.size());
    switch (e.type) {
      case '-':
        bytes += e.size;
        files.insert(name);
        break;
      case 'd':
        break;
      case 'l':
        if (parts.empty()) return refuse("is a symbolic link in place of the archive's top");
        if (e.link.empty()) return refuse("is a symbolic link to nothing");
        if (e.link.starts_with('/') ? !policy.absolute_link_targets
                                    : !RelativeTargetStaysIn(parts, e.link)) {
          return refuse(fmt::format("is a symbolic link that leads out, to {}", e.link));
        }
        links.insert(name);
        break;
      case 'h': {
        std::vector<std::string> to;
        if (!policy.hard_links) return refuse("is a hard link");
        if (!SafeName(e.link, &to) || !files.contains(Join(to, to.size()))) {
          return refuse(
              fmt::format("is a hard link to {}, no earlier file of the archive", e.link));
        }
        bytes += e.size;
        break;
      }
      default:
        return refuse(fmt::format("is no file, directory or link (type '{}')", e.type));
    }
  }
  if (bytes > policy.max_bytes) {
    return absl::InvalidArgumentError(
        fmt::format("it unpacks to {} bytes, over {}", bytes, policy.max_bytes));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TarEntry>> ListTarball(const std::string& tar,
                                                  const std::string& archive,
                                                  const std::string& decompress,
                                                  const TarPolicy& policy) {
  std::vector<std::string> argv = {tar, "-tv", "--numeric-owner", "--quoting-style=c"};
  if (!decompress.empty()) argv.push_back(decompress);
  argv.insert(argv.end(), {"-f", archive});
  // A listing line is about 80 bytes and the name: room for max_entries of them.
  const size_t room = (policy.max_entries + 1) * 400;
  absl::StatusOr<CapturedRun> list =
      RunCaptured(argv, {"PATH=" + std::string(kSafePath), "LC_ALL=C"}, room);
  if (!list.ok()) return list.status();
  if (list->out.size() >= room) {
    return absl::InvalidArgumentError(fmt::format("its listing is over {} bytes", room));
  }
  if (list->wait_status != 0) {
    std::string why = list->err.substr(0, 300);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return absl::InvalidArgumentError(fmt::format("tar cannot read it: {}", why));
  }
  absl::StatusOr<std::vector<TarEntry>> entries = ParseTarListing(list->out);
  if (!entries.ok()) return entries.status();
  if (absl::Status st = CheckTarEntries(*entries, policy); !st.ok()) return st;
  return entries;
}

}  // namespace fsmove::exec
