// Pairs unfinished/resumed strace lines into whole calls and follows pid changes;
// see call_assembler.h.
#include "fsmove/trace/call_assembler.h"

namespace fsmove::trace {

bool CallAssembler::IsProcessCreation(std::string_view name) {
  return name == "clone" || name == "clone3" || name == "fork" || name == "vfork";
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
      live_.insert(kImplicitPid);
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
    bool root_is_cloning = it != pending_.end() && IsProcessCreation(it->second.name);
    bool root_resumes = head.kind == LineKind::kResumed && it != pending_.end() &&
                        it->second.name == head.name;
    if (root_resumes || !root_is_cloning) {
      implicit_bound_ = true;
      bound_pid_ = pid;
      live_.erase(kImplicitPid);
      if (it != pending_.end()) {
        pending_[pid] = std::move(it->second);
        pending_.erase(kImplicitPid);
      }
      sink_->OnPidRenamed(kImplicitPid, pid, line_number);
    }
  }
  live_.insert(pid);
  return pid;
}

void CallAssembler::Feed(std::string_view line, uint64_t line_number) {
  Feed(ParseLineHead(line), line, line_number);
}

void CallAssembler::Feed(const LineHead& head, std::string_view line, uint64_t line_number) {
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
      live_.erase(pid);
      sink_->OnProcessExit(pid, line_number);
      return;
    }
    case LineKind::kSuperseded: {
      // "N +++ superseded by execve in pid T +++": thread T's execve now runs as N.
      int32_t leader = ResolvePid(head, line_number);
      int32_t thread = head.other_pid;
      if (pending_.erase(leader) > 0) ++stats_.abandoned_unfinished;
      auto it = pending_.find(thread);
      if (it != pending_.end()) {
        pending_[leader] = std::move(it->second);
        pending_.erase(thread);
      }
      live_.erase(thread);
      live_.insert(leader);
      sink_->OnPidRenamed(thread, leader, line_number);
      return;
    }
    case LineKind::kUnfinished: {
      int32_t pid = ResolvePid(head, line_number);
      Pending& slot = pending_[pid];
      if (!slot.name.empty()) {
        Unparsed(slot.line, slot.name + "(" + slot.args + " <unfinished ...>",
                 "unfinished call never resumed (the same process started another call)");
      }
      slot.name.assign(head.name);
      slot.args.assign(head.rest);
      slot.line = line_number;
      sink_->OnCallStarted(pid, head.name, head.rest, line_number);
      return;
    }
    case LineKind::kResumed: {
      int32_t pid = ResolvePid(head, line_number);
      auto it = pending_.find(pid);
      if (it == pending_.end() || it->second.name != head.name) {
        Unparsed(line_number, line, "resumed call without its start");
        return;
      }
      Pending pending = std::move(it->second);
      pending_.erase(it);
      joined_ = std::move(pending.args);
      joined_.push_back(' ');
      joined_.append(head.rest);
      ++stats_.calls;
      ++stats_.split_calls;
      SyscallEvent event{pid, head.name, joined_, line_number, pending.line};
      if (IsProcessCreation(head.name)) NoteCreatedChild(joined_);
      sink_->OnCall(event);
      return;
    }
    case LineKind::kCall: {
      int32_t pid = ResolvePid(head, line_number);
      ++stats_.calls;
      if (IsProcessCreation(head.name)) NoteCreatedChild(head.rest);
      SyscallEvent event{pid, head.name, head.rest, line_number, line_number};
      sink_->OnCall(event);
      return;
    }
  }
}

void CallAssembler::Finish() { stats_.pending_at_end += pending_.size(); }

}  // namespace fsmove::trace
