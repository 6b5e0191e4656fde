// Processes and listening sockets of the sandbox, before and after a refresh; see
// service_observation.h.
#include "fsmove/exec/service_observation.h"

#include <arpa/inet.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <set>
#include <sstream>
#include <tuple>

#include "fmt/format.h"
#include "fsmove/base/read_file.h"
#include "fsmove/exec/process_tree.h"

namespace fsmove::exec {
namespace {

constexpr size_t kMaxCommandLine = 4096;
// Bounds on what one process's held files cost to observe.
constexpr size_t kMaxFdsObserved = 4096;
constexpr size_t kMaxReplacedPerProcess = 64;
constexpr size_t kMaxMapsBytes = 4 << 20;

bool HexValue(std::string_view hex, uint32_t* out) {
  auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), *out, 16);
  return ec == std::errc() && end == hex.data() + hex.size() && !hex.empty();
}

// "0100007F:2BCB" (IPv4) or 32 hex digits and a port (IPv6): the kernel prints each 32-bit
// word of the address in host order.
std::string Endpoint(std::string_view field, bool v6) {
  const size_t colon = field.find(':');
  if (colon == std::string_view::npos) return "";
  const std::string_view addr = field.substr(0, colon);
  uint32_t port = 0;
  if (!HexValue(field.substr(colon + 1), &port) || port == 0) return "";
  const size_t words = v6 ? 4 : 1;
  if (addr.size() != words * 8) return "";
  std::array<uint32_t, 4> raw{};
  for (size_t w = 0; w < words; ++w) {
    if (!HexValue(addr.substr(w * 8, 8), &raw[w])) return "";
  }
  char text[INET6_ADDRSTRLEN] = {};
  if (inet_ntop(v6 ? AF_INET6 : AF_INET, raw.data(), text, sizeof text) == nullptr) return "";
  return v6 ? fmt::format("[{}]:{}", text, port) : fmt::format("{}:{}", text, port);
}

// The rows of one of /proc/net/{tcp,tcp6,udp,udp6}: the local endpoint of each socket in
// state `state` (hex, as printed: "0A" listening TCP, "07" an unconnected UDP socket).
void InetRows(std::string_view table, std::string_view name, std::string_view state, bool v6,
              std::set<std::string>* out) {
  std::istringstream lines{std::string(table)};
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, st;
    if (!(fields >> slot >> local >> remote >> st) || st != state) continue;
    if (std::string e = Endpoint(local, v6); !e.empty()) out->insert(fmt::format("{} {}", name, e));
  }
}

}  // namespace

std::vector<std::string> ListeningSockets(std::string_view tcp, std::string_view tcp6,
                                          std::string_view udp, std::string_view udp6,
                                          std::string_view unix_sockets) {
  std::set<std::string> out;
  InetRows(tcp, "tcp", "0A", false, &out);
  InetRows(tcp6, "tcp6", "0A", true, &out);
  InetRows(udp, "udp", "07", false, &out);
  InetRows(udp6, "udp6", "07", true, &out);
  // "Num RefCount Protocol Flags Type St Inode Path": __SO_ACCEPTCON (0x10000) in Flags.
  std::istringstream lines{std::string(unix_sockets)};
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string num, refs, protocol, flags, type, state, inode, path;
    if (!(fields >> num >> refs >> protocol >> flags >> type >> state >> inode >> path)) continue;
    uint32_t f = 0;
    if (HexValue(flags, &f) && (f & 0x10000) != 0) out.insert("unix " + path);
  }
  return {out.begin(), out.end()};
}

std::string CommandLine(std::string_view cmdline) {
  std::string line(cmdline.substr(0, kMaxCommandLine));
  for (char& c : line) {
    if (c == '\0' || c == '\n') c = ' ';
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

namespace {

// The path an fd's link shows (itself), or a maps line's ("ADDRESS PERMS OFFSET DEV INODE
// PATH": from its first " /"); nullopt when the line names no path.
std::optional<std::string_view> ShownPath(std::string_view shown) {
  if (shown.starts_with('/')) return shown;
  const size_t path = shown.find(" /");
  if (path == std::string_view::npos) return std::nullopt;
  return shown.substr(path + 1);
}

}  // namespace

std::optional<std::string> ReplacedFile(std::string_view link) {
  constexpr std::string_view kDeleted = " (deleted)";
  if (!link.ends_with(kDeleted)) return std::nullopt;
  link.remove_suffix(kDeleted.size());
  const std::optional<std::string_view> shown = ShownPath(link);
  if (!shown) return std::nullopt;
  if (shown->starts_with("/memfd:") || shown->starts_with("/dev/") ||
      shown->starts_with("/proc/") || shown->starts_with("/SYSV")) {
    return std::nullopt;
  }
  std::string path(shown->substr(0, kMaxCommandLine));
  for (char& c : path) {
    if (c == '\n') c = ' ';
  }
  return path;
}

bool IsTemporaryFile(std::string_view path) {
  for (std::string_view dir : {"/tmp/", "/var/tmp/", "/run/", "/dev/shm/"}) {
    if (path.starts_with(dir)) return true;
  }
  return false;
}

std::optional<std::string> WrittenFile(std::string_view link, std::string_view fdinfo) {
  if (!link.starts_with('/') || link.ends_with(" (deleted)") || IsTemporaryFile(link)) {
    return std::nullopt;
  }
  for (std::string_view dir : {"/dev/", "/proc/", "/sys/"}) {
    if (link.starts_with(dir)) return std::nullopt;
  }
  // "flags:\t0102001": the open flags in octal; O_WRONLY (1) or O_RDWR (2) in the access mode.
  const size_t at = fdinfo.find("flags:");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view flags = fdinfo.substr(at + 6);
  while (!flags.empty() && (flags.front() == '\t' || flags.front() == ' ')) flags.remove_prefix(1);
  flags = flags.substr(0, flags.find('\n'));
  uint32_t value = 0;
  auto [end, ec] = std::from_chars(flags.data(), flags.data() + flags.size(), value, 8);
  if (ec != std::errc() || end != flags.data() + flags.size() || (value & 3) == 0) {
    return std::nullopt;
  }
  std::string path(link.substr(0, kMaxCommandLine));
  for (char& c : path) {
    if (c == '\n') c = ' ';
  }
  return path;
}

namespace {

// Whether the name a link or a maps line shows, " (deleted)" and all, is a file's: module code
// can name a live file so, and a replaced file's name is only shown so. (No inode is compared:
// under an overlay a held lower file and the name's stat differ, and maps shows the real inode.)
bool ShownNameExists(std::string_view shown) {
  const std::optional<std::string_view> path = ShownPath(shown);
  if (!path) return false;
  const std::string name(*path);
  struct stat st;
  return lstat(name.c_str(), &st) == 0;
}

}  // namespace

HeldFiles ObserveHeldFiles(const std::string& proc_dir, pid_t pid) {
  HeldFiles held;
  std::set<std::string> replaced, written;
  const std::string fd_dir = fmt::format("{}/{}/fd", proc_dir, pid);
  std::error_code ec;
  size_t seen = 0;
  for (auto it = std::filesystem::directory_iterator(fd_dir, ec);
       !ec && it != std::filesystem::directory_iterator() && seen < kMaxFdsObserved;
       it.increment(ec), ++seen) {
    std::error_code lec;
    const std::string link = std::filesystem::read_symlink(it->path(), lec).string();
    if (lec) continue;
    if (link == "anon_inode:inotify") held.watches = true;
    if (written.size() < kMaxReplacedPerProcess && link.starts_with('/')) {
      const std::string fdinfo = base::ReadFile(fmt::format("{}/{}/fdinfo/{}", proc_dir, pid,
                                                            it->path().filename().string()),
                                                {}, 4096)
                                     .value_or("");
      // A regular file: module code can name a directory or a FIFO "log".
      struct stat st;
      if (auto path = WrittenFile(link, fdinfo);
          path && lstat(path->c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        written.insert(*std::move(path));
      }
    }
    if (auto path = ReplacedFile(link);
        path && !ShownNameExists(link) && replaced.size() < kMaxReplacedPerProcess) {
      replaced.insert(*std::move(path));
    }
  }
  const std::string maps =
      base::ReadFile(fmt::format("{}/{}/maps", proc_dir, pid), {}, kMaxMapsBytes).value_or("");
  for (size_t at = 0; at < maps.size() && replaced.size() < kMaxReplacedPerProcess;) {
    const size_t end = std::min(maps.find('\n', at), maps.size());
    const std::string_view line = std::string_view(maps).substr(at, end - at);
    if (auto path = ReplacedFile(line); path && !ShownNameExists(line)) {
      replaced.insert(*std::move(path));
    }
    at = end + 1;
  }
  held.replaced.assign(replaced.begin(), replaced.end());
  held.written.assign(written.begin(), written.end());
  return held;
}

std::vector<Observation> ObserveSandbox(const std::string& proc_dir, int stage,
                                        const std::vector<pid_t>& skip) {
  std::vector<Observation> out;
  const ProcessClock clock(proc_dir);
  for (const ProcEntry& p : ListProcesses(proc_dir)) {
    if (std::find(skip.begin(), skip.end(), p.pid) != skip.end()) continue;
    std::string cmd =
        CommandLine(base::ReadFile(fmt::format("{}/{}/cmdline", proc_dir, p.pid)).value_or(""));
    if (cmd.empty()) cmd = "[" + p.comm + "]";
    const double start = clock.Start(p);
    out.push_back(Observation{stage, "process", p.pid, start, std::move(cmd)});
    HeldFiles held = ObserveHeldFiles(proc_dir, p.pid);
    for (std::string& path : held.replaced) {
      out.push_back(Observation{stage, "replaced", p.pid, start, std::move(path)});
    }
    if (held.watches) out.push_back(Observation{stage, "watches", p.pid, start, "inotify"});
    for (std::string& path : held.written) {
      out.push_back(Observation{stage, "writes", p.pid, start, std::move(path)});
    }
  }
  auto table = [&](const char* name) {
    return base::ReadFile(fmt::format("{}/net/{}", proc_dir, name)).value_or("");
  };
  for (std::string& s :
       ListeningSockets(table("tcp"), table("tcp6"), table("udp"), table("udp6"), table("unix"))) {
    out.push_back(Observation{stage, "listen", 0, 0, std::move(s)});
  }
  return out;
}

bool SameObservations(std::vector<Observation> a, std::vector<Observation> b) {
  auto key = [](const Observation& o) { return std::tie(o.stage, o.kind, o.pid, o.text); };
  auto less = [&](const Observation& x, const Observation& y) { return key(x) < key(y); };
  std::sort(a.begin(), a.end(), less);
  std::sort(b.begin(), b.end(), less);
  return a == b;
}

RestartComparison CompareRestart(const std::vector<Observation>& observed) {
  RestartComparison r;
  std::set<int> pids[3];
  std::set<std::string> sockets[3];
  for (const Observation& o : observed) {
    if (o.stage != 1 && o.stage != 2) continue;
    if (o.kind == "process") pids[o.stage].insert(o.pid);
    if (o.kind == "listen") sockets[o.stage].insert(o.text);
  }
  // The files the stopped processes wrote, against those the started ones write: only a file
  // that came counts. A daemon that has run longer opens more (a log it writes to once it has
  // something to say), so one that went proves nothing.
  std::set<std::string> old_written;
  for (const Observation& o : observed) {
    if (o.stage == 1 && o.kind == "writes" && !pids[2].contains(o.pid)) old_written.insert(o.text);
  }
  std::set<std::string> old_lines, new_lines;
  for (const Observation& o : observed) {
    if (o.kind != "process") continue;
    if (o.stage == 1 && !pids[2].contains(o.pid)) {
      r.stopped.push_back(o);
      old_lines.insert(o.text);
    } else if (o.stage == 2 && !pids[1].contains(o.pid)) {
      r.started.push_back(o);
      new_lines.insert(o.text);
    }
  }
  // Command lines, as sets: how many workers a daemon forks by the time it is seen is timing.
  std::vector<std::string> gone, came;
  std::set_difference(old_lines.begin(), old_lines.end(), new_lines.begin(), new_lines.end(),
                      std::back_inserter(gone));
  std::set_difference(new_lines.begin(), new_lines.end(), old_lines.begin(), old_lines.end(),
                      std::back_inserter(came));
  if (gone.size() == 1 && came.size() == 1) {
    r.differences.push_back(
        fmt::format("restarted, its command line `{}` became `{}`", gone[0], came[0]));
  } else if (!r.stopped.empty() && !r.started.empty()) {
    for (const std::string& c : gone) {
      r.differences.push_back(fmt::format("restarted, `{}` runs no more", c));
    }
    for (const std::string& c : came) {
      r.differences.push_back(fmt::format("restarted, `{}` runs where it did not", c));
    }
  }
  for (const std::string& s : sockets[1]) {
    if (!sockets[2].contains(s)) {
      r.differences.push_back(fmt::format("restarted, nothing listens on {} any more", s));
    }
  }
  for (const std::string& s : sockets[2]) {
    if (!sockets[1].contains(s)) {
      r.differences.push_back(fmt::format("restarted, something listens on {} that did not", s));
    }
  }
  if (r.stopped.empty()) return r;
  std::set<std::string> came_written;
  for (const Observation& o : observed) {
    if (o.stage == 2 && o.kind == "writes" && !pids[1].contains(o.pid) &&
        !old_written.contains(o.text) && came_written.insert(o.text).second) {
      r.differences.push_back(fmt::format(
          "restarted, pid {} writes {}, which no process it stopped had open", o.pid, o.text));
    }
  }
  return r;
}

}  // namespace fsmove::exec
