// Pairs unfinished/resumed strace lines into whole calls and follows pid changes;
// see call_assembler.h.
#include "fsmove/strace/call_assembler.h"

#include "fsmove/base/blanks.h"

namespace fsmove::strace {
namespace {

constexpr std::string_view kUnfinishedMarker = "<unfinished ...>";
constexpr std::string_view kProcessNotice = "strace: Process ";
constexpr std::string_view kAttached = " attached";

// Where an "strace: Process N attached" notice that ends `text` starts, or npos. Only the
// last byte is looked at unless the text ends like a notice: this runs on every call line.
size_t SplicedNoticeStart(std::string_view text) {
  if (text.empty() || text.back() != 'd' || !text.ends_with(kAttached)) {
    return std::string_view::npos;
  }
  size_t at = text.rfind(kProcessNotice);
  if (at == std::string_view::npos) return at;
  size_t digits = at + kProcessNotice.size();
  size_t j = digits;
  while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
  if (j == digits || text.size() - j != kAttached.size()) return std::string_view::npos;
  return at;
}

}  // namespace

void CallAssembler::NoteNewLive(int32_t pid) {
  live_.insert(pid);
  last_live_pid_ = pid;
}

void CallAssembler::ForgetLive(int32_t pid) {
  live_.erase(pid);
  if (pid == last_live_pid_) last_live_pid_ = -1;
}

void CallAssembler::NoteCreatedChild(std::string_view rest) {
  CallTail tail;
  if (ParseCallTail(rest, &tail) && tail.has_return && tail.ret > 0) {
    created_children_.insert(static_cast<int32_t>(tail.ret));
  }
}

void CallAssembler::Unparsed(uint64_t line, std::string_view text, std::string_view reason) {
  ++stats_.unparsed;
  sink_->OnUnparsed(line, text, reason);
}

int32_t CallAssembler::ResolvePid(const LineHead& head, uint64_t line_number) {
  if (!head.has_pid) {
    if (!implicit_bound_) {
      implicit_seen_ = true;
      NoteLive(kImplicitPid);
      return kImplicitPid;
    }
    // strace drops the prefix again when a single traced process is left.
    if (live_.size() == 1) return *live_.begin();
    return bound_pid_;
  }
  int32_t pid = head.pid;
  if (implicit_seen_ && !implicit_bound_ && !created_children_.contains(pid) &&
      !live_.contains(pid)) {
    auto it = pending_.find(kImplicitPid);
    bool root_is_cloning = it != pending_.end() && creates_process_(it->second.name);
    bool root_resumes =
        head.kind == LineKind::kResumed && it != pending_.end() && it->second.name == head.name;
    if (root_resumes || !root_is_cloning) {
      implicit_bound_ = true;
      bound_pid_ = pid;
      ForgetLive(kImplicitPid);
      if (it != pending_.end()) {
        Pending moved = std::move(it->second);  // insertion below may rehash: `it` dies
        pending_.erase(it);
        pending_[pid] = std::move(moved);
      }
      sink_->OnPidRenamed(kImplicitPid, pid, line_number);
    }
  }
  NoteLive(pid);
  return pid;
}

void CallAssembler::Feed(std::string_view line, uint64_t line_number) {
  Feed(ParseLineHead(line), line, line_number);
}

void CallAssembler::StartPending(int32_t pid, std::string_view name, std::string_view args,
                                 uint64_t line, int32_t syscall) {
  Pending& slot = pending_[pid];
  if (!slot.name.empty()) {
    Unparsed(slot.line,
             slot.name + "(" + (slot.args_dropped ? "..." : slot.args) + " <unfinished ...>",
             "unfinished call never resumed (the same process started another call)");
  }
  slot.name.assign(name);
  slot.args_dropped = args_unused_ != nullptr && args_unused_(syscall);
  if (slot.args_dropped) {
    slot.args.clear();
  } else {
    slot.args.assign(args);
  }
  slot.line = line;
  sink_->OnCallStarted(pid, name, args, line);
}

bool CallAssembler::ContinueSpliced(const LineHead& head, std::string_view line,
                                    uint64_t line_number) {
  if (head.kind == LineKind::kNotice) {  // another process attached first
    ++stats_.notices;
    return true;
  }
  Spliced s = std::move(spliced_);
  spliced_ = Spliced{};
  if (base::TrimBlanks(line) == kUnfinishedMarker) {
    StartPending(s.pid, s.name, base::TrimBlanks(s.args), s.line);
    return true;
  }
  if (head.has_pid) {  // not a continuation: strace never finished the interrupted line
    Unparsed(s.line, s.name + "(" + s.args,
             "call interrupted by an strace notice, never continued");
    return false;
  }
  std::string text = std::move(s.args);
  text.append(line);
  std::string_view rest = text;
  if (rest.ends_with(kUnfinishedMarker)) {
    rest.remove_suffix(kUnfinishedMarker.size());
    StartPending(s.pid, s.name, base::TrimBlanks(rest), s.line);
    return true;
  }
  ++stats_.calls;
  ++stats_.split_calls;
  if (AwaitingBinding() && creates_process_(s.name)) NoteCreatedChild(rest);
  sink_->OnCall(SyscallEvent{s.pid, s.name, rest, line_number, s.line});
  return true;
}

void CallAssembler::TakeOver(int32_t leader, int32_t thread, uint64_t line_number) {
  if (pending_.erase(leader) > 0) ++stats_.abandoned_unfinished;
  auto it = pending_.find(thread);
  if (it != pending_.end()) {
    Pending moved = std::move(it->second);  // insertion below may rehash: `it` dies
    pending_.erase(it);
    pending_[leader] = std::move(moved);
  }
  ForgetLive(thread);
  NoteLive(leader);
  sink_->OnPidRenamed(thread, leader, line_number);
}

namespace {

// The N of "+++ exited with N +++"; -1 for a process killed by a signal (or a status that does
// not read as one).
int ExitStatus(LineKind kind, std::string_view line) {
  static constexpr std::string_view kExitedWith = "+++ exited with ";
  const size_t at = line.find(kExitedWith);
  if (kind != LineKind::kExited || at == std::string_view::npos) return -1;
  int status = 0;
  size_t i = at + kExitedWith.size();
  if (i >= line.size() || line[i] < '0' || line[i] > '9') return -1;
  for (; i < line.size() && line[i] >= '0' && line[i] <= '9' && status < 1000; ++i) {
    status = status * 10 + (line[i] - '0');
  }
  return status;
}

}  // namespace

void CallAssembler::Feed(const LineHead& head, std::string_view line, uint64_t line_number) {
  if (spliced_.active && ContinueSpliced(head, line, line_number)) return;
  switch (head.kind) {
    case LineKind::kBlank:
      Unparsed(line_number, line, "empty line");
      return;
    case LineKind::kGarbage:
      Unparsed(line_number, line, head.garbage_reason ? head.garbage_reason : "unrecognised line");
      return;
    case LineKind::kSignal:
      ++stats_.signals;
      return;
    case LineKind::kNotice:
      ++stats_.notices;
      return;
    case LineKind::kExited:
    case LineKind::kKilled: {
      int32_t pid = ResolvePid(head, line_number);
      ++stats_.exits;
      if (pending_.erase(pid) > 0) ++stats_.abandoned_unfinished;
      ForgetLive(pid);
      sink_->OnProcessExit(pid, line_number, ExitStatus(head.kind, line));
      return;
    }
    case LineKind::kSuperseded: {
      // "N +++ superseded by execve in pid T +++": thread T's execve now runs as N.
      int32_t leader = ResolvePid(head, line_number);
      int32_t thread = head.other_pid;
      if (!pid_changes_.empty()) {  // the leader may be known under another pid (unprefixed)
        absl::erase_if(pid_changes_, [&](const auto& kv) { return kv.second == thread; });
      }
      TakeOver(leader, thread, line_number);
      return;
    }
    case LineKind::kUnfinished: {
      int32_t pid = ResolvePid(head, line_number);
      StartPending(pid, head.name, head.rest, line_number, head.syscall);
      if (head.other_pid >= 0 && head.other_pid != pid) pid_changes_[head.other_pid] = pid;
      return;
    }
    case LineKind::kResumed: {
      int32_t pid = ResolvePid(head, line_number);
      auto it = pending_.find(pid);
      if ((it == pending_.end() || it->second.name != head.name) && !pid_changes_.empty()) {
        // A thread's execve resuming under the leader's pid without a superseded notice.
        auto change = pid_changes_.find(pid);
        if (change != pid_changes_.end()) {
          int32_t thread = change->second;
          pid_changes_.erase(change);
          auto started = pending_.find(thread);
          if (started != pending_.end() && started->second.name == head.name) {
            TakeOver(pid, thread, line_number);
            it = pending_.find(pid);
          }
        }
      }
      if (it == pending_.end() || it->second.name != head.name) {
        Unparsed(line_number, line, "resumed call without its start");
        return;
      }
      Pending pending = std::move(it->second);
      pending_.erase(it);
      if (head.rest.ends_with("<detached ...>")) {  // strace let go before the call returned
        ++stats_.pending_at_end;
        return;
      }
      const size_t return_at = ReturnValueStart(head.rest);
      if (return_at == std::string_view::npos) {
        Unparsed(line_number, line, "resumed call cut short (no return value)");
        return;
      }
      ++stats_.calls;
      ++stats_.split_calls;
      if (pending.args_dropped) {  // the sink reads no argument of it: the resumed half alone
        sink_->OnCall(SyscallEvent{pid, head.name, head.rest, line_number, pending.line, return_at,
                                   head.syscall});
        return;
      }
      joined_ = std::move(pending.args);
      joined_.push_back(' ');
      joined_.append(head.rest);
      const size_t joined_return_at = joined_.size() - head.rest.size() + return_at;
      SyscallEvent event{pid,          head.name,        joined_,     line_number,
                         pending.line, joined_return_at, head.syscall};
      if (AwaitingBinding() && creates_process_(head.name)) NoteCreatedChild(joined_);
      sink_->OnCall(event);
      return;
    }
    case LineKind::kCall: {
      int32_t pid = ResolvePid(head, line_number);
      if (size_t at =
              head.no_spliced_notice ? std::string_view::npos : SplicedNoticeStart(head.rest);
          at != std::string_view::npos) {
        ++stats_.notices;
        spliced_.active = true;
        spliced_.pid = pid;
        spliced_.name.assign(head.name);
        spliced_.args.assign(head.rest.substr(0, at));
        spliced_.line = line_number;
        return;
      }
      const size_t return_at =
          head.return_at != kReturnNotSearched ? head.return_at : ReturnValueStart(head.rest);
      if (return_at == std::string_view::npos) {
        Unparsed(line_number, line, "system call line cut short (no return value)");
        return;
      }
      ++stats_.calls;
      if (AwaitingBinding() && creates_process_(head.name)) NoteCreatedChild(head.rest);
      SyscallEvent event{pid,         head.name, head.rest,    line_number,
                         line_number, return_at, head.syscall, head.returned_negative,
                         head.split};
      sink_->OnCall(event);
      return;
    }
  }
}

void CallAssembler::Finish() {
  stats_.pending_at_end += pending_.size() + (spliced_.active ? 1 : 0);
}

}  // namespace fsmove::strace
