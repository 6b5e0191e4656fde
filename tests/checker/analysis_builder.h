// Test input for the checker without strace text: the resource blocks of a run in trace order
// and what each did to which path, as the analysis leaves them (analysis_result.h). Each verb
// records the accesses the interpreter records for the call it names, the directory a name is
// made or removed in included, so a checker test states what a resource did, not how strace
// printed it. How calls become accesses is the interpreter's tests' job.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fsmove/analysis/analysis_result.h"
#include "fsmove/fstrace/lowering.h"

namespace fsmove::testing {

// What else an access says of the call (see analysis::Access).
struct AccessDetail {
  bool failed = false;
  bool shallow = false;
  bool listing = false;
};

class AnalysisBuilder {
 public:
  // Starts the block of `ref` (Type[title]); the accesses that follow are its own. A reference
  // seen before keeps its block (Puppet evaluates some resources twice).
  AnalysisBuilder& Block(std::string_view ref) {
    block_ = blocks_.Intern(ref, "/Stage[main]/Main/" + std::string(ref));
    analysis::BlockInfo& info = blocks_.info(block_);
    ++info.begins;
    ++info.ends;
    if (info.first_line == 0) info.first_line = ++line_;
    info.last_line = line_;
    return *this;
  }

  // A block whose end marker the trace never reached: Puppet was still applying it.
  AnalysisBuilder& Unfinished(std::string_view ref) {
    Block(ref);
    --blocks_.info(block_).ends;
    return *this;
  }

  // open(O_RDONLY): content read.
  AnalysisBuilder& Reads(std::string_view path) {
    return Record(path, analysis::Effect::kConsumed, "openat");
  }
  // execve: the program read to run it.
  AnalysisBuilder& Runs(std::string_view path) {
    return Record(path, analysis::Effect::kConsumed, "execve");
  }
  // stat or access: looked at, no content read; `failed`: it was not there (ENOENT).
  AnalysisBuilder& LooksUp(std::string_view path, bool failed = false) {
    return Record(path, analysis::Effect::kConsumed, "newfstatat",
                  {.failed = failed, .shallow = true});
  }
  // A call that would have made `path` and failed (mkdir: EEXIST): the path was still needed.
  AnalysisBuilder& FailsToMake(std::string_view path) {
    return Record(path, analysis::Effect::kConsumed, "mkdir", {.failed = true});
  }
  // open(O_WRONLY|O_CREAT...): content written, the name made if it was not there.
  AnalysisBuilder& Writes(std::string_view path) {
    return Name(path, analysis::Effect::kProduced, "openat");
  }
  AnalysisBuilder& MakesDirectory(std::string_view path) {
    return Name(path, analysis::Effect::kProduced, "mkdir");
  }
  AnalysisBuilder& Removes(std::string_view path) {
    return Name(path, analysis::Effect::kExpunged, "unlink");
  }
  // rename(from, to): the name `from` removed, `to` made.
  AnalysisBuilder& Renames(std::string_view from, std::string_view to) {
    Name(from, analysis::Effect::kExpunged, "rename");
    return Name(to, analysis::Effect::kProduced, "rename");
  }
  // chown, chmod: metadata changed, content and name kept.
  AnalysisBuilder& ChangesMetadata(std::string_view path) {
    return Record(path, analysis::Effect::kProduced, "chown", {.shallow = true});
  }
  // opendir: the directory's entries listed.
  AnalysisBuilder& Lists(std::string_view dir) {
    return Record(dir, analysis::Effect::kConsumed, "openat", {.listing = true});
  }
  // dpkg wrote `path` while unpacking `package`.
  AnalysisBuilder& UnpackedFrom(std::string_view path, std::string_view package) {
    unpacked_[accesses_.Intern(path)] = std::string(package);
    return *this;
  }
  // The accesses that follow are made by process `pid` (100 until said otherwise).
  AnalysisBuilder& By(int32_t pid) {
    pid_ = pid;
    return *this;
  }
  // `parent` forks `child`; `pid` execs `program` (analysis/program_history.h), each at the
  // next line: an access recorded before an exec is its caller's.
  AnalysisBuilder& Forks(int32_t parent, int32_t child) {
    programs_.Born(child, parent, ++line_);
    return *this;
  }
  AnalysisBuilder& Execs(int32_t pid, std::string_view program) {
    programs_.Exec(pid, program, ++line_);
    return *this;
  }
  // Puppet said so of a resource (a failure, a skip) or of the apply.
  AnalysisBuilder& Problem(strace::ProblemKind kind, std::string_view ref,
                           std::string_view message) {
    problems_.push_back({kind, std::string(ref), std::string(message)});
    return *this;
  }

  // A view of this builder: keep the builder while the result is used.
  analysis::AnalysisResult Result() const {
    analysis::AnalysisResult r;
    r.blocks = &blocks_;
    r.accesses = &accesses_;
    r.unpacked_from = [this](analysis::PathId p) -> std::string_view {
      auto it = unpacked_.find(p);
      return it == unpacked_.end() ? std::string_view() : std::string_view(it->second);
    };
    r.puppet_problems = &problems_;
    r.programs = &programs_;
    return r;
  }

 private:
  AnalysisBuilder& Record(std::string_view path, analysis::Effect effect, std::string_view call,
                          AccessDetail detail = {}) {
    analysis::Access a{.block = block_,
                       .effect = effect,
                       .failed = detail.failed,
                       .shallow = detail.shallow,
                       .listing = detail.listing,
                       .syscall = fstrace::FindSyscallIndex(call),
                       .pid = pid_,
                       .line = ++line_};
    accesses_.Record(accesses_.Intern(path), a);
    return *this;
  }

  // A name made or removed: the path's access, and its directory's (the call needed it).
  AnalysisBuilder& Name(std::string_view path, analysis::Effect effect, std::string_view call) {
    Record(path, effect, call);
    const size_t cut = path.rfind('/');
    analysis::Access a{.block = block_,
                       .effect = analysis::Effect::kConsumed,
                       .parent = true,
                       .syscall = fstrace::FindSyscallIndex(call),
                       .pid = pid_,
                       .line = line_};
    accesses_.Record(accesses_.Intern(cut == 0 ? "/" : path.substr(0, cut)), a);
    return *this;
  }

  analysis::BlockTable blocks_;
  analysis::AccessMap accesses_;
  absl::flat_hash_map<analysis::PathId, std::string> unpacked_;
  std::vector<strace::PuppetProblem> problems_;
  analysis::ProgramHistory programs_;
  analysis::BlockId block_ = analysis::kNoBlock;
  int32_t pid_ = 100;
  uint64_t line_ = 0;
};

}  // namespace fsmove::testing
