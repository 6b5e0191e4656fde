// The status pipe's lines; see status_message.h.
#include "fsmove/exec/status_message.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace fsmove::exec {
namespace {

nlohmann::json PathStateToJson(const PathState& p) {
  return {{"path", p.path},     {"exists", p.exists}, {"type", p.type},     {"mode", p.mode},
          {"uid", p.uid},       {"gid", p.gid},       {"sha256", p.sha256}, {"size", p.size},
          {"target", p.target}, {"error", p.error},   {"mtime", p.mtime}};
}

// Fields absent from the object keep their defaults (an absent path has no mode).
absl::StatusOr<PathState> PathStateFromJson(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("path") || !j["path"].is_string()) {
    return absl::InvalidArgumentError("a probe that is not a JSON object with a path");
  }
  PathState p;
  try {
    p.path = j.value("path", std::string());
    p.exists = j.value("exists", false);
    p.type = j.value("type", std::string());
    p.mode = j.value("mode", 0u);
    p.uid = j.value("uid", 0u);
    p.gid = j.value("gid", 0u);
    p.sha256 = j.value("sha256", std::string());
    p.size = j.value("size", uint64_t{0});
    p.target = j.value("target", std::string());
    p.error = j.value("error", std::string());
    p.mtime = j.value("mtime", 0.0);
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(
        fmt::format("a probe with a field of the wrong type: {}", e.what()));
  }
  return p;
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

struct Encoder {
  std::string operator()(const status::Phase& m) const { return "phase " + m.name; }
  std::string operator()(const status::Compiled& m) const {
    return fmt::format("compiled {} {:.3f}", m.exit_code, m.seconds);
  }
  std::string operator()(const status::Applied& m) const {
    return fmt::format("applied {} {:.3f} {}", m.exit_code, m.seconds, m.strace_end);
  }
  std::string operator()(const status::Reapplied& m) const {
    return fmt::format("reapplied {} {} {:.3f}", m.index, m.exit_code, m.seconds);
  }
  std::string operator()(const status::Probe& m) const {
    return "probe " + PathStateToJson(m.state).dump(-1, ' ', /*ensure_ascii=*/true);
  }
  std::string operator()(const status::LeftRunning& m) const {
    return fmt::format("daemon {} {:.2f} {}", m.daemon.pid, m.daemon.start, m.daemon.comm);
  }
  std::string operator()(const status::Observed& m) const {
    const Observation& o = m.observation;
    return fmt::format("observed {} {} {} {:.2f} {}", o.stage, o.kind, o.pid, o.start, o.text);
  }
  std::string operator()(const status::Skipped& m) const {
    return fmt::format("skipped {} {}", m.unit, m.condition);
  }
  std::string operator()(const status::Note& m) const { return "note " + m.text; }
  std::string operator()(const status::Warning& m) const { return "warning " + m.text; }
  std::string operator()(const status::Limit& m) const { return "limit " + m.text; }
  std::string operator()(const status::Error& m) const { return "error " + m.text; }
};

// Whole-field numbers: "12", "-1", "3.250"; nothing before or after.
bool ParseInt(std::string_view text, int* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}
bool ParseDouble(std::string_view text, double* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

// `text` split at single spaces into exactly `n` fields (the last one taking the rest, spaces
// included, when `rest_last`); empty when there are more or fewer.
std::vector<std::string_view> Fields(std::string_view text, size_t n, bool rest_last) {
  std::vector<std::string_view> f;
  size_t start = 0;
  for (;;) {
    const size_t space =
        f.size() + 1 == n && rest_last ? std::string_view::npos : text.find(' ', start);
    f.push_back(text.substr(
        start, space == std::string_view::npos ? std::string_view::npos : space - start));
    if (space == std::string_view::npos) break;
    start = space + 1;
  }
  if (f.size() != n) f.clear();
  return f;
}

absl::Status Malformed(std::string_view line, std::string_view why) {
  return absl::InvalidArgumentError(
      fmt::format("malformed status line ({}): {}", why, line.substr(0, 200)));
}

}  // namespace

std::string status::ReapplyPhase(int k) { return fmt::format("reapply{}", k); }

std::string EncodeStatusMessage(const StatusMessage& message) {
  return OneLine(std::visit(Encoder{}, message));
}

absl::StatusOr<StatusMessage> DecodeStatusMessage(std::string_view line) {
  const size_t space = line.find(' ');
  const std::string_view kind = line.substr(0, space);
  const std::string_view rest = space == std::string_view::npos ? "" : line.substr(space + 1);
  auto fields = [&](size_t n, bool rest_last) { return Fields(rest, n, rest_last); };
  if (kind == "phase") {
    if (rest.empty() || rest.find(' ') != std::string_view::npos)
      return Malformed(line, "a phase is one word");
    return status::Phase{std::string(rest)};
  }
  if (kind == "compiled") {
    status::Compiled m;
    auto f = fields(2, false);
    if (f.empty() || !ParseInt(f[0], &m.exit_code) || !ParseDouble(f[1], &m.seconds)) {
      return Malformed(line, "compiled EXIT_CODE SECONDS");
    }
    return m;
  }
  if (kind == "applied") {
    status::Applied m;
    auto f = fields(3, false);
    if (f.empty() || !ParseInt(f[0], &m.exit_code) || !ParseDouble(f[1], &m.seconds) ||
        f[2].empty()) {
      return Malformed(line, "applied EXIT_CODE SECONDS STRACE_END");
    }
    m.strace_end = std::string(f[2]);
    return m;
  }
  if (kind == "reapplied") {
    status::Reapplied m;
    auto f = fields(3, false);
    if (f.empty() || !ParseInt(f[0], &m.index) || !ParseInt(f[1], &m.exit_code) ||
        !ParseDouble(f[2], &m.seconds)) {
      return Malformed(line, "reapplied K EXIT_CODE SECONDS");
    }
    return m;
  }
  if (kind == "probe") {
    absl::StatusOr<PathState> state = PathStateFromJson(rest);
    if (!state.ok()) return Malformed(line, std::string(state.status().message()));
    return status::Probe{std::move(*state)};
  }
  if (kind == "daemon") {
    status::LeftRunning m;
    auto f = fields(3, true);
    if (f.empty() || !ParseInt(f[0], &m.daemon.pid) || !ParseDouble(f[1], &m.daemon.start)) {
      return Malformed(line, "daemon PID START COMM");
    }
    m.daemon.comm = std::string(f[2]);
    return m;
  }
  if (kind == "observed") {
    status::Observed m;
    Observation& o = m.observation;
    auto f = fields(5, true);
    if (f.empty() || !ParseInt(f[0], &o.stage) || f[1].empty() || !ParseInt(f[2], &o.pid) ||
        !ParseDouble(f[3], &o.start)) {
      return Malformed(line, "observed STAGE KIND PID START TEXT");
    }
    o.kind = std::string(f[1]);
    o.text = std::string(f[4]);
    return m;
  }
  if (kind == "skipped") {
    auto f = fields(2, true);
    if (f.empty() || f[0].empty()) return Malformed(line, "skipped UNIT CONDITION");
    return status::Skipped{std::string(f[0]), std::string(f[1])};
  }
  if (kind == "note") return status::Note{std::string(rest)};
  if (kind == "warning") return status::Warning{std::string(rest)};
  if (kind == "limit") return status::Limit{std::string(rest)};
  if (kind == "error") return status::Error{std::string(rest)};
  return Malformed(line, "unknown kind");
}

void StatusWriter::Send(const StatusMessage& message) const {
  const std::string line = EncodeStatusMessage(message) + '\n';
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the executor is gone; carry on, it will kill us
    done += static_cast<size_t>(n);
  }
}

bool StatusReader::Next(absl::StatusOr<StatusMessage>* message) {
  const size_t nl = buffer_.find('\n', start_);
  if (nl == std::string::npos) {
    buffer_.erase(0, start_);
    start_ = 0;
    return false;
  }
  *message = DecodeStatusMessage(std::string_view(buffer_).substr(start_, nl - start_));
  start_ = nl + 1;
  return true;
}

}  // namespace fsmove::exec
