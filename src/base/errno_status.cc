// errno to absl::Status; see errno_status.h.
#include "fsmove/base/errno_status.h"

namespace fsmove::base {

absl::Status ErrnoStatus(std::string_view what, int error) {
  // absl::ErrnoToStatus writes "what: strerror(error)" and picks the code from the errno.
  return absl::ErrnoToStatus(error, what);
}

}  // namespace fsmove::base
