// A check library Sink for tests: what a check or an analysis says and reports, kept.
#pragma once

#include <sstream>
#include <string>

#include "fsmove/check/check_run.h"

namespace fsmove::check {

class CapturingSink : public Sink {
 public:
  using Sink::Say;
  void Say(const Diagnostic& d) override { said += Format(d) + "\n"; }
  std::ostream& out() override { return out_; }
  std::string report() const { return out_.str(); }
  std::string said;

 private:
  std::ostringstream out_;
};

}  // namespace fsmove::check
