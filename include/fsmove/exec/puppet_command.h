// The command lines the sandbox runs: strace's, with its kernel-side filter of the traced
// calls, and the node name Puppet compiles for.
#pragma once

#include <string>
#include <vector>

namespace fsmove::exec {

// The string limit (strace's -s) fsmove traces with: long enough for any marker's title.
inline constexpr int kStraceStringLimit = 65535;

// The strace command line (without the traced command): -f, the kernel-side filter of
// `traced_syscalls` (--seccomp-bpf; readlink is always left out; empty: every call), the
// string limit (-s; the paper's protocol recorded with 300, which can cut a marker's title)
// and, with `timestamps`, -ttt -T -yy: each line's time and its call's duration, and each
// descriptor's path (the parser reads all three; a trace for a person to read, or a test).
std::vector<std::string> StraceArguments(const std::string& strace, const std::string& output,
                                         const std::vector<std::string>& traced_syscalls,
                                         int string_limit = kStraceStringLimit,
                                         bool timestamps = false);

// Puppet's node name for compiling, and the sandbox's fully qualified host name: the machine's
// name as the resolver gives it, qualified by QualifiedHostName when it has no domain, lower-cased.
std::string CertName();

// --facts FILE. The script the compile runs instead (src/exec/merge_facts.rb, embedded at build
// time): it reads the facts file, refuses facts of another kernel or OS family, puts them over
// the sandbox's own (`puppet facts find` with the compile's settings) and runs the compile
// with Puppet's json facts terminus reading the result.
std::string_view MergeFactsScript();
// Where the script and the facts file's copy go in the work directory's in/ (facts.json, or
// facts.yaml for any other name: the script reads either by its content).
inline constexpr const char* kMergeFactsFile = "merge-facts.rb";
inline constexpr const char* kFactsJsonFile = "facts.json";
inline constexpr const char* kFactsYamlFile = "facts.yaml";
std::string FactsCopyName(std::string_view path);
// The compile's command line with the facts merged: `ruby` runs `script` on `facts` (shown in
// messages as `shown`); the sandbox's facts are found by the facts face with `catalog_argv`'s
// settings (`puppet catalog find --terminus compiler ... NODE`, as the executor builds it).
std::vector<std::string> FactsCompileArgv(const std::string& ruby, const std::string& script,
                                          const std::string& shown, const std::string& facts,
                                          const std::vector<std::string>& catalog_argv);
// The node a facts file is of, when it says (`puppet facts find`'s JSON and a Puppet server's
// yaml cache name it: top-level `name` beside `values`), as a certname Puppet takes; "" else.
std::string FactsFileNode(std::string_view text);
// The Ruby that runs `puppet` (its #! line), else the first `ruby` on the safe PATH.
std::string RubyOf(const std::string& puppet);

}  // namespace fsmove::exec
