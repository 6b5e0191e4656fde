// The run summary's own wording; see run_summary.h.
#include "fsmove/base/run_summary.h"

#include "fmt/format.h"

namespace fsmove::base {

std::string RunSummary::WhyUnfinished() const {
  if (timed_out) {
    return timed_out_phase == "compile" ? "timed out (--timeout) while compiling the catalog"
           : timed_out_phase == "apply"
               ? "timed out (--timeout) while applying the catalog"
               : fmt::format("timed out (--timeout) in phase {}",
                             timed_out_phase.empty() ? "?" : timed_out_phase);
  }
  if (puppet_exit_code > 128)
    return fmt::format("Puppet was killed by signal {}", puppet_exit_code - 128);
  if (!trace_complete)
    return fmt::format("the trace ended before Puppet did (strace {})", strace_end);
  return "";
}

}  // namespace fsmove::base
