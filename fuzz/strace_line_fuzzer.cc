// Fuzzes the strace line parser: stage 1 (ParseLineHead, ParseCallTail, FindArgsEnd), stage 2
// (ArgList, DecodeString, ParseInt, ParseFlags, StructField, ArrayItems), Puppet marker
// recognition, and the CallAssembler pairing unfinished and resumed calls across processes.
// Besides "no crash, no sanitizer report", it checks that every view the parser returns lies
// inside the text it was given, that every line number reported exists, and that strings and
// integers strace prints decode back to the values they were printed from.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "fsmove/fstrace/lowering.h"
#include "fsmove/strace/args.h"
#include "fsmove/strace/call_assembler.h"
#include "fsmove/strace/puppet_markers.h"
#include "fsmove/strace/strace_line.h"
#include "fuzz_support.h"

namespace fsmove::fuzz {
namespace {

void DecodeArgs(std::string_view args) {
  strace::ArgList list(args);
  std::string decoded;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string_view a = list[i];
    FSMOVE_FUZZ_CHECK(Within(a, args));
    bool truncated = false;
    if (strace::DecodeString(a, &decoded, &truncated)) {
      FSMOVE_FUZZ_CHECK(decoded.size() + 2 <= a.size());  // escapes only ever shrink
    }
    int64_t value = 0;
    strace::ParseInt(a, &value);
    strace::ParseFlags(a, fstrace::kOpenFlagNames, fstrace::kOpenFlagNameCount);
    FSMOVE_FUZZ_CHECK(Within(strace::StructField(a, "flags"), a));
    for (std::string_view item : strace::ArrayItems(a)) FSMOVE_FUZZ_CHECK(Within(item, a));
  }
  FSMOVE_FUZZ_CHECK(Within(list.Named("flags"), args));
  fstrace::CloneFlags("clone", list);
  fstrace::CloneFlags("clone3", list);
}

// What the analyzer does with a whole call's text, minus the model.
void DecodeCall(std::string_view name, std::string_view rest) {
  strace::MayHoldMarker(rest);
  strace::CallTail tail;
  if (!strace::ParseCallTail(rest, &tail)) return;
  FSMOVE_FUZZ_CHECK(tail.args.data() == rest.data() && tail.args.size() < rest.size());
  FSMOVE_FUZZ_CHECK(rest[tail.args.size()] == ')');
  FSMOVE_FUZZ_CHECK(Within(tail.ret_text, rest));
  FSMOVE_FUZZ_CHECK(Within(tail.errno_name, rest));
  DecodeArgs(tail.args);
  int fd = -1;
  std::string bytes;
  bool truncated = false;
  // The form the syscall table gives a marker-carrying call (as the analyzer reads it), and
  // the plain one for any other call: the decoder must cope with any call's arguments.
  const fstrace::SyscallSpec* spec = fstrace::FindSyscall(name);
  const bool iovecs = spec != nullptr && (spec->flags & fstrace::kMarkerInIovecs);
  for (strace::WrittenForm form : {strace::WrittenForm::kBuffer, strace::WrittenForm::kIovecs}) {
    if (form == strace::WrittenForm::kIovecs && !iovecs) continue;
    fd = -1;
    bytes.clear();
    truncated = false;
    if (!strace::WrittenBytes(form, tail.args, &fd, &bytes, &truncated)) continue;
    strace::Marker marker;
    if (strace::ParseMarker(bytes, &marker) != strace::MarkerKind::kNone) {
      FSMOVE_FUZZ_CHECK(!marker.ref.empty() || !marker.source.empty());
    }
  }
}

class CheckingSink : public strace::CallSink {
 public:
  uint64_t fed = 0;  // lines given to the assembler so far
  uint64_t calls = 0;
  uint64_t unparsed = 0;

  void OnCallStarted(int32_t, std::string_view, std::string_view, uint64_t line) override {
    FSMOVE_FUZZ_CHECK(line >= 1 && line <= fed);
  }
  void OnCall(const strace::SyscallEvent& call) override {
    FSMOVE_FUZZ_CHECK(call.start_line >= 1 && call.start_line <= call.line && call.line <= fed);
    FSMOVE_FUZZ_CHECK(!call.name.empty());
    if (call.return_at != std::string_view::npos) {
      FSMOVE_FUZZ_CHECK(call.return_at == strace::ReturnValueStart(call.rest));
    }
    ++calls;
    DecodeCall(call.name, call.rest);
  }
  void OnProcessExit(int32_t, uint64_t line, int) override {
    FSMOVE_FUZZ_CHECK(line >= 1 && line <= fed);
  }
  void OnPidRenamed(int32_t, int32_t, uint64_t line) override {
    FSMOVE_FUZZ_CHECK(line >= 1 && line <= fed);
  }
  void OnUnparsed(uint64_t line, std::string_view, std::string_view reason) override {
    FSMOVE_FUZZ_CHECK(line >= 1 && line <= fed);
    FSMOVE_FUZZ_CHECK(!reason.empty());
    ++unparsed;
  }
};

void CheckHead(std::string_view line) {
  strace::LineHead head = strace::ParseLineHead(line);
  FSMOVE_FUZZ_CHECK(Within(head.name, line));
  FSMOVE_FUZZ_CHECK(Within(head.rest, line));
  if (head.kind == strace::LineKind::kGarbage) FSMOVE_FUZZ_CHECK(head.garbage_reason != nullptr);
  if (head.kind == strace::LineKind::kCall || head.kind == strace::LineKind::kUnfinished ||
      head.kind == strace::LineKind::kResumed) {
    FSMOVE_FUZZ_CHECK(!head.name.empty());
  }
  size_t end = strace::FindArgsEnd(head.rest);
  if (end != std::string_view::npos) {
    FSMOVE_FUZZ_CHECK(end < head.rest.size() && head.rest[end] == ')');
  }
  // With the names the analyzer remembers (kept from input to input), a line reads the same
  // and its name has the table's index.
  static strace::NameIndex names(
      [](std::string_view name) { return static_cast<int32_t>(fstrace::FindSyscallIndex(name)); });
  const strace::LineHead named = strace::ParseLineHead(line, &names);
  FSMOVE_FUZZ_CHECK(named.kind == head.kind && named.pid == head.pid && named.name == head.name &&
                    named.name.data() == head.name.data() && named.rest == head.rest &&
                    named.rest.data() == head.rest.data());
  FSMOVE_FUZZ_CHECK(named.syscall ==
                    (strace::NamesSyscall(head.kind)
                         ? static_cast<int32_t>(fstrace::FindSyscallIndex(head.name))
                         : -1));
}

// strace prints a non-printable byte as \n, \t, ... or as an octal escape, short when the
// next character is not an octal digit (`\33[0m`), else three digits (`\0331`); with -xx
// every byte is \xHH. The decoder must give back exactly the bytes.
std::string PrintLikeStrace(std::string_view bytes, bool hex) {
  std::string out = "\"";
  for (size_t i = 0; i < bytes.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    char buf[8];
    if (hex) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      bool next_is_octal_digit = i + 1 < bytes.size() && bytes[i + 1] >= '0' && bytes[i + 1] <= '7';
      std::snprintf(buf, sizeof buf, next_is_octal_digit ? "\\%03o" : "\\%o", c);
      out += buf;
    }
  }
  out += "\"";
  return out;
}

void CheckRoundTrips(const uint8_t* data, size_t size) {
  if (size == 0) return;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  bytes = bytes.substr(0, 256);
  std::string printed = PrintLikeStrace(bytes, data[0] & 1);
  std::string decoded;
  bool truncated = true;
  FSMOVE_FUZZ_CHECK(strace::DecodeString(printed, &decoded, &truncated));
  FSMOVE_FUZZ_CHECK(decoded == bytes && !truncated);
  FSMOVE_FUZZ_CHECK(strace::DecodeString(printed + "...", &decoded, &truncated));
  FSMOVE_FUZZ_CHECK(decoded == bytes && truncated);

  if (size >= 9) {  // an integer printed in decimal, hex or octal reads back the same
    uint64_t bits = 0;
    for (int i = 1; i <= 8; ++i) bits = (bits << 8) | data[i];
    int64_t value = static_cast<int64_t>(bits);
    char text[32];
    switch (data[0] % 3) {
      case 0:
        std::snprintf(text, sizeof text, "%" PRId64, value);
        break;
      case 1:
        std::snprintf(text, sizeof text, "0x%" PRIx64, bits);
        break;
      default:
        std::snprintf(text, sizeof text, "0%" PRIo64, bits);
        break;
    }
    int64_t parsed = 0;
    FSMOVE_FUZZ_CHECK(strace::ParseInt(text, &parsed));
    FSMOVE_FUZZ_CHECK(parsed == value);
  }
}

}  // namespace
}  // namespace fsmove::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fsmove;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::CheckingSink sink;
  strace::CallAssembler assembler(&sink, &fstrace::CreatesProcess);
  fuzz::ForEachLine(text, [&](std::string_view line) {
    fuzz::CheckHead(line);
    ++sink.fed;
    assembler.Feed(line, sink.fed);
  });
  assembler.Finish();
  const strace::AssemblerStats& stats = assembler.stats();
  FSMOVE_FUZZ_CHECK(stats.calls == sink.calls);
  FSMOVE_FUZZ_CHECK(stats.unparsed == sink.unparsed);
  FSMOVE_FUZZ_CHECK(stats.split_calls <= stats.calls);
  fuzz::CheckRoundTrips(data, size);
  return 0;
}
