// The offline/online analysis pipeline for one trace: lines -> whole calls -> Puppet markers
// and FStrace constructs -> interpreter state and access map. Streaming: lines may come from
// a file, a pipe fed by a running strace, or a zstd file; nothing of the trace is kept.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "fsmove/analysis/analysis_result.h"
#include "fsmove/analysis/interpreter.h"
#include "fsmove/analysis/relations.h"
#include "fsmove/fstrace/lowering.h"
#include "fsmove/strace/call_assembler.h"
#include "fsmove/strace/line_batch.h"
#include "fsmove/strace/line_reader.h"
#include "fsmove/strace/puppet_markers.h"
#include "fsmove/strace/strace_line.h"

namespace fsmove::analysis {

struct UnparsedLine {
  uint64_t line = 0;
  std::string text;  // cut to a readable length
  std::string reason;
};

struct DaemonExit {
  BlockId block = kNoBlock;  // the Service whose start left it running
  int32_t pid = 0;
  uint64_t line = 0;  // the trace line of its "+++ exited with N +++"
  int status = 0;
  std::string program;  // what it ran (its last execve), if the trace shows it
};
inline constexpr size_t kMaxDaemonExits = 20;

struct TraceStats {
  uint64_t lines = 0;
  uint64_t bytes = 0;
  uint64_t calls = 0;  // whole system calls (split ones counted once)
  uint64_t split_calls = 0;
  uint64_t modelled_calls = 0;          // calls found in the syscall table
  uint64_t lowered_calls = 0;           // calls whose arguments were decoded and interpreted
  uint64_t skipped_outside_blocks = 0;  // consume-only calls charged to no resource
  uint64_t failed_calls = 0;            // lowered calls that returned an error
  uint64_t undecodable_paths = 0;
  uint64_t unparsed_lines = 0;
  std::vector<UnparsedLine> unparsed_examples;
  uint64_t cut_lines = 0;  // longer than the line limit
  bool unterminated_last_line = false;
  uint64_t signals = 0;
  uint64_t exits = 0;
  uint64_t pending_at_end = 0;
  uint64_t abandoned_unfinished = 0;
  uint64_t truncated_markers = 0;  // Info: writes cut by strace's -s limit
  // The traced command (the first process in the trace) and whether the trace shows it end:
  // a trace that stops before that is incomplete (strace killed, trace cut).
  int32_t first_pid = 0;
  bool first_pid_exited = false;
  std::map<std::string, uint64_t> unmodelled_syscalls;
  // Processes a Service's start left running that then exited with a failure, while Puppet
  // was applying other resources (a daemon an init script reported started, then dead): the
  // first of each Service, at most kMaxDaemonExits.
  std::vector<DaemonExit> daemon_exits;
};

// The threaded reading of Analyzer::RunThreaded: batches of lines go from stage 1 (the
// reader's thread) to stage 2 (the caller's) through a ring of this many slots.
struct PipelineOptions {
  strace::BatchOptions batch;
  size_t ring_slots = 4;
};

struct AnalyzerOptions {
  InterpreterOptions interpreter;
  size_t max_unparsed_examples = 10;
};

// Called for every construct applied, for `fsmove trace dump --fstrace`.
using ConstructObserver = std::function<void(const fstrace::Construct&, const CallContext&)>;
// Called for every evaltrace marker found (the executor's progress display).
using MarkerObserver = std::function<void(const strace::Marker&, uint64_t line)>;

class Analyzer : private strace::CallSink {
 public:
  explicit Analyzer(AnalyzerOptions options = {});

  // Reads the whole trace. Returns an error only when the input cannot be read; bad lines
  // are counted in stats() instead.
  absl::Status Run(strace::LineReader& reader);
  // The same with a second thread: it reads the lines and parses their heads (stage 1) while
  // this one assembles, lowers and interprets them (stage 2). Same results as Run(); the
  // observers are called on this thread. Memory: the ring's slots (threaded_run.cc).
  absl::Status RunThreaded(strace::LineReader& reader, const PipelineOptions& options = {});
  // Streaming interface (the executor feeds lines as strace writes them).
  void FeedLine(std::string_view line, uint64_t number);
  // Ends the stream (Run and RunThreaded end it themselves) and returns result().
  AnalysisResult Finish();
  // What the checker reads (see analysis_result.h): a view into this analyzer.
  AnalysisResult result() const;

  void set_construct_observer(ConstructObserver observer) { observer_ = std::move(observer); }
  void set_marker_observer(MarkerObserver observer) { marker_observer_ = std::move(observer); }

  const Interpreter& interpreter() const { return interp_; }
  Interpreter& mutable_interpreter() { return interp_; }
  const TraceStats& stats() const { return stats_; }
  // The relationships Puppet logged adding itself (--debug), each once, in trace order.
  const std::vector<strace::AutoRelationMessage>& puppet_autorelations() const {
    return auto_relations_;
  }
  // What Puppet said went wrong (failed and skipped resources, an apply that stopped), each
  // resource once with its first message, in trace order.
  const std::vector<strace::PuppetProblem>& puppet_problems() const { return problems_; }
  // Relations over everything analysed so far (paths canonicalised through pre-existing
  // symlinks).
  Relations ComputeRelations(size_t max_evidence = 64) const;

 private:
  void OnCallStarted(int32_t pid, std::string_view name, std::string_view partial,
                     uint64_t line) override;
  void OnCall(const strace::SyscallEvent& call) override;
  void OnProcessExit(int32_t pid, uint64_t line, int exit_status) override;
  void OnPidRenamed(int32_t from, int32_t to, uint64_t line) override;
  void OnUnparsed(uint64_t line, std::string_view text, std::string_view reason) override;

  // FeedLine's work, always inline in Run's loop: a line only counted then costs no call and
  // frame of its own (about 25 instructions a line).
  [[gnu::always_inline]] inline void ReadLine(std::string_view line, uint64_t number);
  // FeedLine's lines that it does not only count: a common call (ReadCommonCall) for the
  // assembler, or a line of another shape, read with ParseLineHead. Out of line
  // ([[gnu::noinline]]): FeedLine then keeps a small frame for the lines it only counts.
  [[gnu::noinline]] void FeedCommonCall(const strace::CommonCall& call, std::string_view line,
                                        uint64_t number);
  [[gnu::noinline]] void FeedOtherLine(std::string_view line, uint64_t number);
  // A line over the reader's limit, of which only `start` was kept: reported, not analysed.
  void FeedCutLine(std::string_view start, uint64_t number, size_t max_line_bytes);
  // Stage 2 of RunThreaded for one batch.
  void FeedBatch(const strace::LineBatch& batch, size_t max_line_bytes);
  // Most lines of an unfiltered trace: a whole call (see CallAssembler::TakesWholeCall) that
  // the model only counts, a no-effect call or a lookup outside every block (a readlink only
  // when it failed), as FateOf decides. Counts it as Feed() and OnCall() would and returns
  // true; false (nothing done) for any other.
  // Always inline (defined below the class): it runs on most lines, and its call, frame and
  // the assembler's NoteLive call cost about 15 instructions a line.
  [[gnu::always_inline]] bool CountedOnly(int32_t pid, int32_t syscall, int8_t returned_negative);
  // Whether stage 1 hands this line to CountedOnly: a whole call with a pid, a name the table
  // knows and a return value found, not ending in a spliced strace notice.
  static bool MayBeCountedOnly(strace::LineKind kind, bool has_pid, int32_t syscall,
                               bool no_spliced_notice, bool return_found) {
    return kind == strace::LineKind::kCall && has_pid && syscall > 0 && no_spliced_notice &&
           return_found;
  }
  // Applies a Puppet evaltrace marker, if the write carried one, to the interpreter.
  void DetectMarker(int32_t pid, const fstrace::SyscallSpec& spec, std::string_view args_text,
                    uint64_t line);
  void CountUnmodelled(std::string_view name);
  // A name's index in the syscall table, as LineHead::syscall holds it.
  static int32_t TableIndexOf(std::string_view name);
  // Whether OnCall reads the arguments and return of every whole call of this index, whether
  // its process is in a block or not: a modelled call that may change the model (not a
  // lookup, a write that may carry a marker, a process's creation). The threaded reader's
  // first stage splits those (BatchOptions::args_read), off the modelling's thread.
  static bool ArgsAlwaysRead(int32_t syscall);
  // What a modelled call's table flags say of whether its arguments need reading (by syscall
  // index, from the table, once).
  enum class CountRule : uint8_t {
    kNever,               // always: it may carry a marker, create a process or change the model
    kAlways,              // never: it has no effect
    kOutsideBlocks,       // inside a block only: a pure lookup
    kFailedOutsideBlocks  // inside a block, or outside one when it succeeded: a readlink
  };
  static std::vector<CountRule> CountRules();
  CountRule CountRuleOf(int32_t syscall) const {
    return static_cast<size_t>(syscall) < count_rules_.size()
               ? count_rules_[static_cast<size_t>(syscall)]
               : CountRule::kNever;
  }
  // The one skip decision, made before any argument is read, from the call's rule, whether it
  // failed and whether its process is in a block (both asked only when the rule needs them).
  // Stage 1's whole lines ask it in CountedOnly; the calls that reach OnCall ask it there.
  enum class Fate : uint8_t {
    kModel,       // read its arguments and model it
    kNoEffect,    // counted: it changes nothing the model holds
    kSkip,        // counted as skipped outside every block
    kReadReturn,  // outside every block, a lookup that did not fail as far as its line's end
                  // shows: skipped unless its return, read, is a success
  };
  template <typename Failed, typename InBlock>
  [[gnu::always_inline]] static Fate FateOf(CountRule rule, Failed failed, InBlock in_block) {
    switch (rule) {
      case CountRule::kNever:
        return Fate::kModel;
      case CountRule::kAlways:
        return Fate::kNoEffect;
      case CountRule::kOutsideBlocks:
        return in_block() ? Fate::kModel : Fate::kSkip;
      case CountRule::kFailedOutsideBlocks:
        if (!failed()) return in_block() ? Fate::kModel : Fate::kReadReturn;
        return in_block() ? Fate::kModel : Fate::kSkip;
    }
    return Fate::kModel;
  }
  // Called before any line goes to the assembler: what CountedOnly remembered may change.
  void ForgetOutsidePid() { outside_pid_ = -1; }

  AnalyzerOptions options_;
  Interpreter interp_;
  strace::CallAssembler assembler_;
  fstrace::Lowerer lowerer_;
  TraceStats stats_;
  ConstructObserver observer_;
  MarkerObserver marker_observer_;
  absl::flat_hash_map<std::string, uint64_t> unmodelled_;
  absl::flat_hash_set<int32_t> marker_at_start_;  // pids whose pending write held a marker
  std::string bytes_;
  strace::NameIndex syscall_names_{&TableIndexOf};  // FeedLine's (stage 1 keeps its own)
  strace::line_scan::PidColumnMemo pid_column_;     // FeedLine's
  std::vector<CountRule> count_rules_ = CountRules();
  // The process whose last call CountedOnly found outside every block, while no line has gone
  // to the assembler since (only those change what BlockOf answers); -1 when none.
  int32_t outside_pid_ = -1;
  strace::Marker marker_;
  std::vector<strace::AutoRelationMessage> auto_relations_;
  absl::flat_hash_set<std::string> auto_relation_keys_;
  std::vector<strace::PuppetProblem> problems_;
  absl::flat_hash_set<std::string> problem_keys_;
};

inline bool Analyzer::CountedOnly(int32_t pid, int32_t syscall, int8_t returned_negative) {
  const CountRule rule = CountRuleOf(syscall);
  if (rule == CountRule::kNever || !assembler_.TakesWholeCall()) return false;
  const Fate fate = FateOf(
      rule, [&] { return returned_negative == 1; },
      [&] {
        if (pid == outside_pid_) return false;
        if (interp_.BlockOf(pid) != kNoBlock) return true;
        outside_pid_ = pid;
        return false;
      });
  if (fate == Fate::kSkip) {
    ++stats_.skipped_outside_blocks;
  } else if (fate != Fate::kNoEffect) {
    return false;
  }
  assembler_.CountWholeCall(pid);
  if (stats_.first_pid == 0) stats_.first_pid = pid;
  ++stats_.modelled_calls;
  return true;
}

}  // namespace fsmove::analysis
