// The analysis pipeline for one trace; see analyzer.h.
// The cheap path (name lookup, block ownership) runs on every call; arguments are decoded
// only for calls that can change the model or be charged to a resource.
#include "fsmove/analysis/analyzer.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "fsmove/strace/args.h"
#include "fsmove/strace/puppet_markers.h"
#include "fsmove/strace/strace_line.h"

namespace fsmove::analysis {

using fstrace::SyscallSpec;

namespace {
constexpr size_t kExampleTextLimit = 240;

// Once a call is resumed, OnCall reads no argument of an unmodelled call (it is only counted
// by name) nor of one with no effect. A write's marker is looked for when the write starts
// (OnCallStarted), in the fd and the start of the text, which strace prints then: the
// resumed half, ") = N", adds nothing to them.
bool ArgsUnused(int32_t syscall) {
  if (syscall < 0) return false;  // not looked up
  const fstrace::SyscallSpec* spec = fstrace::SyscallSpecAt(static_cast<uint16_t>(syscall));
  return spec == nullptr || (spec->flags & fstrace::kNoEffect);
}
}  // namespace

Analyzer::Analyzer(AnalyzerOptions options)
    : options_(std::move(options)),
      interp_(options_.interpreter),
      assembler_(this, &fstrace::CreatesProcess) {
  assembler_.set_args_unused(&ArgsUnused);
}

void Analyzer::ReadLine(std::string_view line, uint64_t number) {
  stats_.lines = number;
  // Most lines: a whole call of a known name, read in one pass, and only counted. The rest is
  // out of line, so that this path keeps a small frame.
  strace::CommonCall call;
  if (!strace::ReadCommonCall(line, &syscall_names_, &pid_column_, &call)) {
    FeedOtherLine(line, number);
  } else if (call.syscall <= 0 ||
             !CountedOnly(call.pid, call.syscall, call.returned_negative ? 1 : 0)) {
    FeedCommonCall(call, line, number);
  }
}

absl::Status Analyzer::Run(strace::LineReader& reader) {
  // Runs of whole lines are taken from the reader's buffer at once and split here, with no
  // per-line call into the reader; Next() reads what NextChunk cannot give (a line longer than
  // the buffer, the last one without a newline). The reader counts only Next()'s lines.
  uint64_t chunk_lines = 0;
  std::string_view chunk;
  std::string_view line;
  for (;;) {
    if (reader.NextChunk(&chunk)) {
      const char* p = chunk.data();
      const char* const end = p + chunk.size();
      while (p < end) {
        const char* nl = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
        const size_t length = static_cast<size_t>(nl - p);  // a chunk ends with a newline
        ++chunk_lines;
        if (length > reader.max_line_bytes()) {
          FeedCutLine(std::string_view(p, reader.max_line_bytes()),
                      chunk_lines + reader.line_number(), reader.max_line_bytes());
        } else {
          ReadLine(std::string_view(p, length), chunk_lines + reader.line_number());
        }
        p = nl + 1;
      }
      continue;
    }
    if (!reader.Next(&line)) break;
    if (reader.last_line_unterminated()) stats_.unterminated_last_line = true;
    if (reader.last_line_cut()) {
      FeedCutLine(line, chunk_lines + reader.line_number(), reader.max_line_bytes());
    } else {
      FeedLine(line, chunk_lines + reader.line_number());
    }
  }
  stats_.bytes = reader.bytes_consumed();
  Finish();
  return reader.status();
}

void Analyzer::FeedCutLine(std::string_view start, uint64_t number, size_t max_line_bytes) {
  // Only its start is left: whatever call it was cannot be read. Counted, not guessed.
  ForgetOutsidePid();
  ++stats_.cut_lines;
  stats_.lines = number;
  OnUnparsed(number, start,
             absl::StrCat("line longer than ", max_line_bytes, " bytes: cut, not analysed"));
}

void Analyzer::FeedLine(std::string_view line, uint64_t number) {
  stats_.bytes += line.size() + 1;  // Run counts the reader's bytes once, at the end
  ReadLine(line, number);
}

void Analyzer::FeedCommonCall(const strace::CommonCall& call, std::string_view line,
                              uint64_t number) {
  strace::LineHead head;
  head.kind = strace::LineKind::kCall;
  head.has_pid = true;
  head.pid = call.pid;
  head.name = call.name;
  head.rest = call.rest;
  head.syscall = call.syscall;
  head.return_at = call.return_at;
  head.no_spliced_notice = true;
  head.returned_negative = call.returned_negative ? 1 : 0;
  ForgetOutsidePid();
  assembler_.Feed(head, line, number);
}

void Analyzer::FeedOtherLine(std::string_view line, uint64_t number) {
  strace::LineHead head = strace::ParseLineHead(line, &syscall_names_);
  if (head.kind == strace::LineKind::kCall && !head.rest.empty() &&
      head.rest.back() != 'd') {  // 'd': maybe a spliced notice
    // Found once here, for CountedOnly or for the assembler (as the threaded reader's stage 1
    // finds them: line_batch.cc).
    head.no_spliced_notice = true;
    head.return_at = strace::ReturnValueStart(head.rest);
    if (head.return_at != std::string_view::npos) {
      head.returned_negative =
          head.return_at < head.rest.size() && head.rest[head.return_at] == '-' ? 1 : 0;
    }
  }
  if (MayBeCountedOnly(head.kind, head.has_pid, head.syscall, head.no_spliced_notice,
                       head.return_at != std::string_view::npos &&
                           head.return_at != strace::kReturnNotSearched) &&
      CountedOnly(head.pid, head.syscall, head.returned_negative)) {
    return;
  }
  ForgetOutsidePid();
  assembler_.Feed(head, line, number);
}

std::vector<Analyzer::CountRule> Analyzer::CountRules() {
  std::vector<CountRule> rules(1, CountRule::kNever);  // index 0: not modelled
  for (uint16_t i = 1; const SyscallSpec* spec = fstrace::SyscallSpecAt(i); ++i) {
    CountRule rule = CountRule::kNever;
    if (spec->flags & (fstrace::kMayCarryMarker | fstrace::kCreatesProcess)) {
      rule = CountRule::kNever;
    } else if (spec->flags & fstrace::kNoEffect) {
      rule = CountRule::kAlways;
    } else if (spec->flags & fstrace::kConsumeOnly) {
      rule = (spec->flags & fstrace::kTeachesSymlink) ? CountRule::kFailedOutsideBlocks
                                                      : CountRule::kOutsideBlocks;
    }
    rules.push_back(rule);
  }
  return rules;
}

bool Analyzer::ArgsAlwaysRead(int32_t syscall) {
  if (syscall <= 0) return false;
  const SyscallSpec* spec = fstrace::SyscallSpecAt(static_cast<uint16_t>(syscall));
  return spec != nullptr && (spec->flags & (fstrace::kMayCarryMarker | fstrace::kCreatesProcess |
                                            fstrace::kNoEffect | fstrace::kConsumeOnly)) == 0;
}

int32_t Analyzer::TableIndexOf(std::string_view name) {
  return static_cast<int32_t>(fstrace::FindSyscallIndex(name));
}

AnalysisResult Analyzer::result() const {
  AnalysisResult r;
  r.blocks = &interp_.blocks();
  r.accesses = &interp_.accesses();
  r.canonical_path = [this](std::string_view path) { return interp_.CanonicalPath(path); };
  r.unpacked_from = [this](PathId path) { return interp_.UnpackedFrom(path); };
  r.programs = &interp_.programs();
  r.puppet_problems = &problems_;
  r.trace = &stats_;
  if (interp_.budget_hit()) r.limits_hit.push_back(*interp_.budget_hit());
  return r;
}

AnalysisResult Analyzer::Finish() {
  assembler_.Finish();
  const strace::AssemblerStats& a = assembler_.stats();
  stats_.calls = a.calls;
  stats_.split_calls = a.split_calls;
  stats_.signals = a.signals;
  stats_.exits = a.exits;
  stats_.pending_at_end = a.pending_at_end;
  stats_.abandoned_unfinished = a.abandoned_unfinished;
  stats_.unmodelled_syscalls.clear();
  for (const auto& [name, count] : unmodelled_) stats_.unmodelled_syscalls[name] = count;
  return result();
}

void Analyzer::CountUnmodelled(std::string_view name) {
  auto it = unmodelled_.find(absl::string_view(name.data(), name.size()));
  if (it == unmodelled_.end()) {
    unmodelled_.emplace(std::string(name), 1);
  } else {
    ++it->second;
  }
}

void Analyzer::DetectMarker(int32_t pid, const SyscallSpec& spec, std::string_view args_text,
                            uint64_t line) {
  int fd = -1;
  bool truncated = false;
  const strace::WrittenForm form = (spec.flags & fstrace::kMarkerInIovecs)
                                       ? strace::WrittenForm::kIovecs
                                       : strace::WrittenForm::kBuffer;
  if (!strace::WrittenBytes(form, args_text, &fd, &bytes_, &truncated)) return;
  if (fd != 1 && fd != 2) return;
  if (strace::ParseMarker(bytes_, &marker_) != strace::MarkerKind::kNone) {
    interp_.OnMarker(pid, marker_, line);
    if (marker_observer_) marker_observer_(marker_, line);
    return;
  }
  strace::AutoRelationMessage relation;
  if (strace::ParseAutoRelation(bytes_, &relation)) {
    std::string key = absl::StrCat(relation.ref, "\n", relation.other, "\n", relation.other_first,
                                   relation.refresh);
    if (auto_relation_keys_.insert(std::move(key)).second) {
      auto_relations_.push_back(std::move(relation));
    }
    return;
  }
  strace::PuppetProblem problem;
  if (strace::ParseProblem(bytes_, &problem) != strace::ProblemKind::kNone &&
      interp_.MayBePuppet(pid)) {
    std::string key = absl::StrCat(static_cast<int>(problem.kind), "\n", problem.ref);
    if (problem.kind == strace::ProblemKind::kApplyFailed) key += problem.message;
    if (problem_keys_.insert(std::move(key)).second) problems_.push_back(std::move(problem));
    return;
  }
  if (truncated && bytes_.find("Info: ") != std::string::npos) ++stats_.truncated_markers;
}

void Analyzer::OnCallStarted(int32_t pid, std::string_view name, std::string_view partial,
                             uint64_t line) {
  if (stats_.first_pid == 0) stats_.first_pid = pid;
  const SyscallSpec* spec = fstrace::FindSyscall(name);
  if (spec == nullptr) return;
  if ((spec->flags & fstrace::kMayCarryMarker) && strace::MayHoldMarker(partial)) {
    // The message is complete before the write returns; the block starts (or ends) now.
    marker_at_start_.insert(pid);
    DetectMarker(pid, *spec, partial, line);
  } else if (spec->flags & fstrace::kCreatesProcess) {
    interp_.NoteCloneStarted(pid, fstrace::CloneFlags(name, strace::ArgList(partial)), line);
  }
}

void Analyzer::OnCall(const strace::SyscallEvent& call) {
  if (stats_.first_pid == 0) stats_.first_pid = call.pid;
  const SyscallSpec* spec = call.syscall >= 0
                                ? fstrace::SyscallSpecAt(static_cast<uint16_t>(call.syscall))
                                : fstrace::FindSyscall(call.name);
  if (spec == nullptr) {
    CountUnmodelled(call.name);
    return;
  }
  ++stats_.modelled_calls;
  if (spec->flags & fstrace::kMayCarryMarker) {
    bool handled_at_start = call.start_line != call.line && marker_at_start_.erase(call.pid) > 0;
    if (!handled_at_start && strace::MayHoldMarker(call.rest)) {
      strace::CallTail tail;
      if (strace::ParseCallTail(call.rest, &tail)) {
        DetectMarker(call.pid, *spec, tail.args, call.line);
      }
    }
    return;
  }
  if (spec->flags & fstrace::kCreatesProcess) interp_.NoteCloneFinished(call.pid);

  BlockId block = kNoBlock;
  const Fate fate = FateOf(
      CountRuleOf(static_cast<int32_t>(fstrace::SyscallIndex(spec))),
      [&] {
        // From the line's end, unparsed (or from what stage 1 saw there): most are Ruby's
        // failed probes at start-up.
        if (call.returned_negative >= 0) return call.returned_negative == 1;
        const size_t at = call.return_at != std::string_view::npos
                              ? call.return_at
                              : strace::ReturnValueStart(call.rest);
        return at < call.rest.size() && call.rest[at] == '-';
      },
      [&] {
        block = interp_.BlockOf(call.pid);
        return block != kNoBlock;
      });
  if (fate == Fate::kNoEffect) return;
  if (fate == Fate::kSkip) {
    ++stats_.skipped_outside_blocks;
    return;
  }
  if (fate == Fate::kModel && block == kNoBlock) block = interp_.BlockOf(call.pid);
  strace::CallTail tail;
  strace::ArgList args;
  // Split in the pass that finds the arguments' end, or by the threaded reader's first stage.
  const size_t close = call.split != nullptr ? args.RestoreFrom(call.rest, call.split)
                                             : args.SplitUntilClose(call.rest);
  const bool closed = strace::ParseCallTailAt(call.rest, close, &tail);
  // A readlink that succeeds outside every block shows a symlink that existed before the
  // trace.
  if (fate == Fate::kReadReturn && (!closed || !tail.has_return || tail.ret < 0)) {
    ++stats_.skipped_outside_blocks;
    return;
  }
  if (!closed) {
    OnUnparsed(call.line, std::string(call.name) + "(" + std::string(call.rest),
               "system call without a closing parenthesis");
    return;
  }
  size_t n = lowerer_.Lower(*spec, args, tail);
  ++stats_.lowered_calls;
  if (lowerer_.failed()) ++stats_.failed_calls;
  stats_.undecodable_paths += lowerer_.undecodable_paths();
  CallContext ctx{call.pid, block, fstrace::SyscallIndex(spec), call.line, lowerer_.failed()};
  for (size_t i = 0; i < n; ++i) {
    const fstrace::Construct& c = lowerer_.construct(i);
    if (observer_) observer_(c, ctx);
    interp_.Apply(c, ctx);
  }
}

void Analyzer::OnProcessExit(int32_t pid, uint64_t line, int exit_status) {
  if (pid == stats_.first_pid) stats_.first_pid_exited = true;
  if (exit_status > 0 && stats_.daemon_exits.size() < kMaxDaemonExits) {
    const BlockId block = interp_.OutlivedBlock(pid, line);
    if (block != kNoBlock && interp_.blocks().info(block).type() == "Service" &&
        std::none_of(stats_.daemon_exits.begin(), stats_.daemon_exits.end(),
                     [&](const DaemonExit& d) { return d.block == block; })) {
      std::vector<std::string_view> ran = interp_.programs().ProgramsAbove(pid, line, 1);
      stats_.daemon_exits.push_back(DaemonExit{block, pid, line, exit_status,
                                               ran.empty() ? std::string() : std::string(ran[0])});
    }
  }
  marker_at_start_.erase(pid);
  interp_.ProcessExit(pid);
}

void Analyzer::OnPidRenamed(int32_t from, int32_t to, uint64_t) { interp_.RenamePid(from, to); }

void Analyzer::OnUnparsed(uint64_t line, std::string_view text, std::string_view reason) {
  ++stats_.unparsed_lines;
  if (stats_.unparsed_examples.size() < options_.max_unparsed_examples) {
    UnparsedLine u;
    u.line = line;
    u.text.assign(text.substr(0, kExampleTextLimit));
    if (text.size() > kExampleTextLimit) u.text += "...";
    u.reason.assign(reason);
    stats_.unparsed_examples.push_back(std::move(u));
  }
}

Relations Analyzer::ComputeRelations(size_t max_evidence) const {
  RelationOptions options;
  options.max_evidence = max_evidence;
  options.canonical_path = [this](std::string_view p) { return interp_.CanonicalPath(p); };
  return InferRelations(interp_.accesses(), interp_.blocks(), options);
}

}  // namespace fsmove::analysis
