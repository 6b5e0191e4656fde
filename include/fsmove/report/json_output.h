// The reports' JSON text: base::DumpJson (base/json_output.h).
#pragma once

#include "fsmove/base/json_output.h"

namespace fsmove::report {

using base::DumpJson;

}  // namespace fsmove::report
