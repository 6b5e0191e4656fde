// Builds a large benchmark trace from a real recorded one: concatenates copies of it until
// the output reaches the requested size, renumbering pids in each copy (pid column, clone
// return values, "in pid N", "<pid changed to N") so every copy's processes are new ones.
// With --rename-blocks, each copy's resource titles get a "#k" suffix (a larger catalog).
//
// Usage: scale_trace_tool INPUT(.zst) OUTPUT BYTES [--rename-blocks]
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "fsmove/strace/line_reader.h"

namespace {

constexpr int64_t kPidSpace = 4000000;  // below Linux's pid_max (4194304)

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string Renumber(int64_t pid, int64_t offset) {
  return std::to_string(1 + (pid + offset) % kPidSpace);
}

// Rewrites the decimal number at line[pos..] (if any) with the renumbered pid.
size_t RewriteNumberAt(std::string_view line, size_t pos, int64_t offset, std::string* out) {
  size_t end = pos;
  while (end < line.size() && IsDigit(line[end])) ++end;
  if (end == pos) return pos;
  int64_t v = 0;
  std::from_chars(line.data() + pos, line.data() + end, v);
  out->append(Renumber(v, offset));
  return end;
}

void RewriteLine(std::string_view line, int64_t offset, int copy, bool rename_blocks,
                 std::string* out) {
  out->clear();
  size_t i = 0;
  if (line.starts_with("[pid ")) {
    out->append("[pid ");
    i = 5;
    while (i < line.size() && line[i] == ' ') ++i;
    i = RewriteNumberAt(line, i, offset, out);
  } else {
    i = RewriteNumberAt(line, 0, offset, out);
  }
  std::string_view rest = line.substr(i);
  // Return value of process creation calls: the child's pid.
  bool creates = false;
  for (std::string_view name :
       {" clone(", " clone3(", " fork(", " vfork(", "<... clone resumed>", "<... clone3 resumed>",
        "<... fork resumed>", "<... vfork resumed>"}) {
    if (rest.find(name) != std::string_view::npos) creates = true;
  }
  size_t cut = std::string_view::npos;
  std::string_view marker;
  for (std::string_view m : {"superseded by execve in pid ", "<pid changed to "}) {
    size_t at = rest.find(m);
    if (at != std::string_view::npos) {
      cut = at + m.size();
      marker = m;
    }
  }
  if (creates && cut == std::string_view::npos) {
    size_t at = rest.rfind(") = ");
    if (at != std::string_view::npos && at + 4 < rest.size() && IsDigit(rest[at + 4])) cut = at + 4;
  }
  std::string body;
  if (cut != std::string_view::npos) {
    body.append(rest.substr(0, cut));
    size_t after = RewriteNumberAt(rest, cut, offset, &body);
    body.append(rest.substr(after));
  } else {
    body.append(rest);
  }
  if (rename_blocks && copy > 0 &&
      (body.find(": Starting to evaluate the resource") != std::string::npos ||
       body.find(": Evaluated in ") != std::string::npos)) {
    size_t colon = body.find("]: ");
    if (colon != std::string::npos) body.insert(colon, "#" + std::to_string(copy));
  }
  out->append(body);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: scale_trace_tool INPUT OUTPUT BYTES [--rename-blocks]\n";
    return 2;
  }
  std::string input = argv[1];
  std::string output = argv[2];
  uint64_t target = std::stoull(argv[3]);
  bool rename_blocks = argc > 4 && std::strcmp(argv[4], "--rename-blocks") == 0;
  FILE* out = std::fopen(output.c_str(), "w");
  if (out == nullptr) {
    std::cerr << "scale_trace_tool: cannot write " << output << "\n";
    return 2;
  }
  std::vector<char> buffer(1 << 22);
  setvbuf(out, buffer.data(), _IOFBF, buffer.size());
  uint64_t written = 0;
  std::string rewritten;
  for (int copy = 0; written < target; ++copy) {
    auto reader = fsmove::strace::LineReader::Open(input);
    if (!reader.ok()) {
      std::cerr << "scale_trace_tool: " << reader.status().message() << "\n";
      return 2;
    }
    int64_t offset = static_cast<int64_t>(copy) * 104729;  // a prime stride
    std::string_view line;
    uint64_t before = written;
    while (written < target && (*reader)->Next(&line)) {
      RewriteLine(line, offset, copy, rename_blocks, &rewritten);
      rewritten.push_back('\n');
      std::fwrite(rewritten.data(), 1, rewritten.size(), out);
      written += rewritten.size();
    }
    if (written == before) break;  // empty input
  }
  std::fclose(out);
  std::cerr << "scale_trace_tool: wrote " << written << " bytes to " << output << "\n";
  return 0;
}
