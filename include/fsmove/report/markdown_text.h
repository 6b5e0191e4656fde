// Untrusted text (titles, paths, Puppet's messages, module code) inside GitHub-flavoured
// Markdown, inert: it cannot open HTML, links, emphasis, headings or tables, mention a user
// or reference an issue, nor close the code span or fence it sits in.
#pragma once

#include <string>
#include <string_view>

namespace fsmove::report {

// Prose inside a line: control characters made visible (TerminalSafe, so no line break),
// every character that can start inline markup backslash-escaped (CommonMark), and a
// zero-width space after '@' and '#' so that neither a mention nor an issue reference forms.
std::string MarkdownText(std::string_view text);

// An inline code span: the text with control characters made visible, between backtick runs
// one longer than any run inside (padded with spaces when it starts or ends with a backtick).
// Nothing inside a code span is Markdown or HTML, nor a mention.
std::string MarkdownCode(std::string_view text);

// Prose whose backtick-quoted parts are code, as fsmove's fix sentences quote Puppet code
// ("add `require => File['/x']` to Exec['y']"): each pair's text as MarkdownCode, the rest as
// MarkdownText. With an odd number of backticks (a title holding one), all of it as prose.
std::string MarkdownTextWithCode(std::string_view text);

// A fenced code block ending in a newline: a fence of backticks longer than any run of
// backticks in `text` (at least three), the info string (e.g. "diff", "mermaid"), the text.
std::string MarkdownFence(std::string_view text, std::string_view info);

}  // namespace fsmove::report
