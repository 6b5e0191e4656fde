// The checker's rules by id: one table (src/checker/rules/registry.cc), which the driver walks
// in order and which names each rule in CheckStats. Adding a rule: a class in
// src/checker/rules/ID.cc, its factory in rule_factories.h, a row in the table, a test in
// tests/checker/rules/ID_test.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "fsmove/checker/rules/rule.h"

namespace fsmove::checker {

struct RegisteredRule {
  std::string_view id;       // kebab-case, stable: it names the rule in stats and docs
  std::string_view summary;  // one line: what the rule drops or weakens, and why
  uint8_t judges = 0;        // the Judged kinds it is asked about
  std::unique_ptr<const Rule> rule;

  bool Judges(Judged kind) const { return (judges & kind) != 0; }
};

// Every rule, in the order the driver asks them: the first that drops a pair or a piece of
// evidence is the one counted for it.
std::span<const RegisteredRule> Rules();

// The rule of that id, or null.
const RegisteredRule* FindRule(std::string_view id);

}  // namespace fsmove::checker
