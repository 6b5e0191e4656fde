// Reads what `puppet apply` printed: the resources that failed and the other errors, since a
// failed resource is often the visible symptom of a missing ordering relationship.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fsmove/report/findings_report.h"

namespace fsmove::exec {

struct PuppetLogSummary {
  std::vector<report::FailedResource> failed;  // one per resource, first error kept
  std::vector<std::string> errors;             // "Error:" lines naming no resource
  size_t skipped = 0;  // "Skipping because of failed dependencies" warnings
};

// `max_errors` caps the resource-less error lines kept (the count of failures is exact).
PuppetLogSummary SummarisePuppetLog(std::string_view log, size_t max_errors = 20);

// Removes ANSI colour sequences (ESC [ ... letter).
std::string StripAnsi(std::string_view text);

}  // namespace fsmove::exec
