// Recognises Puppet's --evaltrace messages in what a process writes to stdout:
// `Info: <source>: Starting to evaluate the resource (N of M)` opens a resource block and
// `Info: <source>: Evaluated in X seconds` closes it, coloured or not, for any title.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fsmove::strace {

enum class MarkerKind { kNone, kBegin, kEnd };

struct Marker {
  MarkerKind kind = MarkerKind::kNone;
  std::string source;  // Puppet's resource path, e.g. /Stage[main]/Main/File[/tmp/x]
  std::string ref;     // its trailing reference, e.g. File[/tmp/x]
  // Begin markers since Puppet 5 say "(N of M)": the resource's place in the apply order and
  // the number of resources; 0 when absent.
  uint64_t index = 0;
  uint64_t total = 0;
};

// Cheap test on the undecoded argument text of write/writev: could it hold a marker?
bool MayHoldMarker(std::string_view raw_args);

// Where a call that may carry a marker has the bytes it wrote (the caller's syscall table
// says which calls, and in which form).
enum class WrittenForm : uint8_t {
  kBuffer,  // write(fd, "...", n)
  kIovecs,  // writev(fd, [{iov_base="...", ...}, ...], n)
};

// Collects the bytes a call of that form wrote. Returns false if the call's arguments do not
// have that shape.
bool WrittenBytes(WrittenForm form, std::string_view args, int* fd, std::string* bytes,
                  bool* truncated);

// Parses one message. Returns kNone if the text is not an evaltrace marker.
MarkerKind ParseMarker(std::string_view text, Marker* out);

// A relationship Puppet added itself while building its graph, from --debug's
// `Debug: <source>: Adding autorequire relationship with File[/etc/x]` (also autobefore,
// autonotify, autosubscribe). These include the autorequires of types defined in modules
// and of generated resources, which no reading of the catalog can know.
struct AutoRelationMessage {
  std::string ref;    // the resource that declared it (trailing reference of the source)
  std::string other;  // the resource it names
  // Normalised so that `before` is applied first: for autorequire/autosubscribe, `other`.
  bool other_first = true;
  bool refresh = false;  // autonotify / autosubscribe
};

// Parses one message. Returns false if the text is not such a debug message.
bool ParseAutoRelation(std::string_view text, AutoRelationMessage* out);

// What Puppet said went wrong while applying, from its log lines on stdout/stderr:
//   `Error: <source>[/property]: ...`                          a resource failed;
//   `Warning: <source>: Skipping because of failed dependencies` a resource was skipped;
//   `Error: Found N dependency cycles...`, `Error: Failed to apply catalog: ...`
//                                                              the apply itself stopped.
// Errors that name no resource (a provider's prefetch) are not problems of their own.
enum class ProblemKind : uint8_t { kNone, kResourceFailed, kResourceSkipped, kApplyFailed };

struct PuppetProblem {
  ProblemKind kind = ProblemKind::kNone;
  std::string ref;      // the resource's trailing reference; empty for kApplyFailed
  std::string message;  // the first line of what Puppet said after the source
};

// Parses one message. Returns kNone if the text is none of the above.
ProblemKind ParseProblem(std::string_view text, PuppetProblem* out);

// "/Stage[main]/Main/Exec[x]/returns: change from ... failed: ..." -> ("Exec[x]", the text
// after ": ", "returns"). Titles may hold ": " and "/", so each ": " is tried in turn until
// the text before it is a resource path, optionally followed by "/property". False when the
// line starts with no such path.
bool SplitResourceMessage(std::string_view line, std::string* ref, std::string* message,
                          std::string* property = nullptr);

// The trailing `Type[title]` of a Puppet resource path. Titles may contain '/', '[' and ']',
// so the rightmost reference whose title has balanced brackets wins. A path with no
// reference (a recursive file's generated-children sentinel) is returned unchanged.
std::string RefFromSource(std::string_view source);

}  // namespace fsmove::strace
