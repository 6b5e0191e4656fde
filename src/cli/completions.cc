// Shell completions from the CLI11 app; see completions.h. Hidden options and subcommands
// (group "") stay out of them as they stay out of --help and the man pages.
#include "completions.h"

#include <filesystem>
#include <string_view>
#include <vector>

#include "commands.h"
#include "fmt/format.h"
#include "fsmove/base/output_file.h"
#include "man_pages.h"

namespace fsmove::cli {
namespace {

// What follows an option (or fills a positional) at the cursor.
enum class Arg { kNone, kWord, kFile, kDir };

struct OptionSpec {
  std::vector<std::string> names;  // -e, --execute; empty for a positional
  std::string positional;          // a positional's name (TARGET)
  std::string description;
  std::string type;  // TEXT, FILE, DIR, INT, ... (the type name before any ':' or '=')
  Arg arg = Arg::kNone;
  std::vector<std::string> values;  // a fixed set: {overlay,none}
  bool repeatable = false;
};

struct CommandSpec {
  std::vector<std::string> path;  // fsmove, root, build
  std::string description;
  std::vector<OptionSpec> options;  // the named ones, then the positionals
  std::vector<std::pair<std::string, std::string>> subcommands;  // name, description
};

// CLI11 writes a fixed set's check into the type name: "TEXT:{overlay,none}".
std::vector<std::string> FixedValues(std::string_view type_name) {
  std::vector<std::string> values;
  const size_t open = type_name.find('{');
  const size_t close = type_name.find('}', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return values;
  std::string_view list = type_name.substr(open + 1, close - open - 1);
  for (size_t at = 0; at <= list.size();) {
    size_t comma = list.find(',', at);
    if (comma == std::string_view::npos) comma = list.size();
    if (comma > at) values.emplace_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return values;
}

OptionSpec Describe(const CLI::Option* opt) {
  OptionSpec o;
  for (const std::string& s : opt->get_snames()) o.names.push_back("-" + s);
  for (const std::string& l : opt->get_lnames()) o.names.push_back("--" + l);
  if (!opt->nonpositional()) o.positional = opt->get_name(true);
  o.description = opt->get_description();
  for (char& c : o.description) {
    if (c == '\n') c = ' ';
  }
  o.repeatable = opt->get_expected_max() == CLI::detail::expected_max_vector_size;
  const std::string type_name = opt->get_type_name();
  if (opt->get_type_size() == 0 || type_name.empty()) return o;  // a flag
  o.type = type_name.substr(0, type_name.find_first_of(":="));
  if (o.type.empty()) o.type = "VALUE";
  o.values = FixedValues(type_name);
  if (!o.values.empty()) {
    o.arg = Arg::kWord;
  } else if (o.type.find("DIR") != std::string::npos) {
    o.arg = Arg::kDir;
  } else if (o.type == "FILE" || o.type == "TEXT" || o.type == "OUT" || o.type == "GLOB" ||
             !o.positional.empty()) {
    o.arg = Arg::kFile;
  }  // else a number, a size, a URL, a git ref: nothing to offer
  return o;
}

// `app` and its visible subcommands, depth first, each with its path from fsmove.
void Collect(const CLI::App& app, std::vector<std::string> path, std::vector<CommandSpec>* out) {
  path.push_back(app.get_parent() == nullptr ? "fsmove" : app.get_name());
  CommandSpec c;
  c.path = path;
  c.description = app.get_description();
  std::vector<OptionSpec> positionals;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;
    OptionSpec o = Describe(opt);
    (o.positional.empty() ? c.options : positionals).push_back(std::move(o));
  }
  c.options.insert(c.options.end(), positionals.begin(), positionals.end());
  std::vector<const CLI::App*> subs = VisibleSubcommands(app);
  for (const CLI::App* sub : subs)
    c.subcommands.emplace_back(sub->get_name(), sub->get_description());
  out->push_back(std::move(c));
  for (const CLI::App* sub : subs) Collect(*sub, path, out);
}

std::vector<CommandSpec> Commands(const CLI::App& app) {
  std::vector<CommandSpec> out;
  Collect(app, {}, &out);
  return out;
}

std::string Join(const std::vector<std::string>& words, std::string_view sep) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : std::string(sep)) + w;
  return out;
}

// Text inside a shell's single quotes.
std::string SingleQuoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Text of a zsh _arguments description ([...]: `special` is "[]") or message (:...:, ":"),
// its own escapes first.
std::string ZshText(std::string_view text, std::string_view special) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || special.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string ZshFunction(const std::vector<std::string>& path) {
  std::string name = "_" + Join(path, "_");
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

std::string ZshAction(const OptionSpec& o) {
  switch (o.arg) {
    case Arg::kWord:
      return fmt::format("({})", Join(o.values, " "));
    case Arg::kDir:
      return "_files -/";
    case Arg::kFile:
      return "_files";
    case Arg::kNone:
      break;
  }
  return " ";
}

}  // namespace

std::string BashCompletion(const CLI::App& app) {
  const std::vector<CommandSpec> commands = Commands(app);
  std::vector<std::string> paths;
  for (const CommandSpec& c : commands) {
    if (c.path.size() > 1) paths.push_back(SingleQuoted(Join(c.path, " ")));
  }
  // Each option's value, by the option before the cursor; each command's words.
  std::vector<std::string> words_of, files_of, dirs_of, none_of;
  std::string values_cases, command_cases;
  for (const CommandSpec& c : commands) {
    const std::string command = Join(c.path, " ");
    std::vector<std::string> options, arguments;
    std::string positional;  // what a positional's word is: f, d or ""
    for (const OptionSpec& o : c.options) {
      if (!o.positional.empty()) {
        arguments.insert(arguments.end(), o.values.begin(), o.values.end());
        if (o.arg == Arg::kFile) positional = "f";
        if (o.arg == Arg::kDir) positional = "d";
        continue;
      }
      options.insert(options.end(), o.names.begin(), o.names.end());
      if (o.type.empty()) continue;  // a flag
      for (const std::string& n : o.names) {
        const std::string key = SingleQuoted(fmt::format("{} {}", command, n));
        switch (o.arg) {
          case Arg::kWord:
            values_cases +=
                fmt::format("    {}) COMPREPLY=($(compgen -W {} -- \"$cur\")); return ;;\n", key,
                            SingleQuoted(Join(o.values, " ")));
            break;
          case Arg::kFile:
            files_of.push_back(key);
            break;
          case Arg::kDir:
            dirs_of.push_back(key);
            break;
          case Arg::kNone:
            none_of.push_back(key);
            break;
        }
      }
    }
    for (const auto& [name, description] : c.subcommands) arguments.push_back(name);
    command_cases += fmt::format("    {}) options={} arguments={} positional={} ;;\n",
                                 SingleQuoted(command), SingleQuoted(Join(options, " ")),
                                 SingleQuoted(Join(arguments, " ")), SingleQuoted(positional));
  }
  auto alternatives = [](const std::vector<std::string>& keys, std::string_view indent = "    ") {
    return Join(keys, fmt::format(" | \\\n{}", indent));
  };
  std::string out =
      "# bash completion for fsmove(1).\n"
      "# Written by `fsmove completions` from the CLI's own definitions: do not edit.\n"
      "_fsmove() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
      "  local command=fsmove i\n"
      "  # The subcommand being completed: the longest known path of the words before.\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"$command ${COMP_WORDS[i]}\" in\n";
  out += fmt::format("      {}) command=\"$command ${{COMP_WORDS[i]}}\" ;;\n",
                     alternatives(paths, "      "));
  out +=
      "    esac\n"
      "  done\n"
      "  # The value of the option before the cursor.\n"
      "  case \"$command $prev\" in\n";
  out += values_cases;
  if (!files_of.empty()) {
    out += fmt::format(
        "    {})\n      compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); "
        "return ;;\n",
        alternatives(files_of));
  }
  if (!dirs_of.empty()) {
    out += fmt::format(
        "    {})\n      compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\")); "
        "return ;;\n",
        alternatives(dirs_of));
  }
  if (!none_of.empty())
    out += fmt::format("    {}) COMPREPLY=(); return ;;\n", alternatives(none_of));
  out +=
      "  esac\n"
      "  local options='' arguments='' positional=''\n"
      "  case $command in\n";
  out += command_cases;
  out +=
      "  esac\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  COMPREPLY=($(compgen -W \"$arguments\" -- \"$cur\"))\n"
      "  if [[ -n $positional ]]; then\n"
      "    compopt -o filenames 2>/dev/null\n"
      "    COMPREPLY+=($(compgen -\"$positional\" -- \"$cur\"))\n"
      "  fi\n"
      "}\n"
      "complete -F _fsmove fsmove\n";
  return out;
}

std::string ZshCompletion(const CLI::App& app) {
  const std::vector<CommandSpec> commands = Commands(app);
  std::string out =
      "#compdef fsmove\n"
      "# zsh completion for fsmove(1).\n"
      "# Written by `fsmove completions` from the CLI's own definitions: do not edit.\n";
  // One function per command; all are defined before the last line calls the first.
  for (auto c = commands.begin(); c != commands.end(); ++c) {
    std::vector<std::string> specs;
    int position = 0;
    for (const OptionSpec& o : c->options) {
      const std::string value =
          o.type.empty() ? "" : fmt::format(":{}:{}", ZshText(o.type, ":"), ZshAction(o));
      if (!o.positional.empty()) {
        specs.push_back(
            SingleQuoted(fmt::format("{}:{}:{}", o.repeatable ? "*" : std::to_string(++position),
                                     ZshText(o.positional, ":"), ZshAction(o))));
        continue;
      }
      const std::string description = fmt::format("[{}]{}", ZshText(o.description, "[]"), value);
      if (o.names.size() == 1) {
        specs.push_back((o.repeatable ? "'*'" : "") + SingleQuoted(o.names[0] + description));
        continue;
      }
      const std::string prefix =
          o.repeatable ? "'*'" : SingleQuoted(fmt::format("({})", Join(o.names, " ")));
      specs.push_back(
          fmt::format("{}{{{}}}{}", prefix, Join(o.names, ","), SingleQuoted(description)));
    }
    out += fmt::format("\n{}() {{\n", ZshFunction(c->path));
    if (c->subcommands.empty()) {
      out += "  _arguments -s \\\n    " + Join(specs, " \\\n    ") + "\n}\n";
      continue;
    }
    specs.push_back("'1: :->command'");
    specs.push_back("'*:: :->arguments'");
    out +=
        "  local curcontext=$curcontext state line\n"
        "  typeset -A opt_args\n"
        "  _arguments -C -s \\\n    " +
        Join(specs, " \\\n    ") + "\n";
    std::vector<std::string> described, calls;
    for (const auto& [name, description] : c->subcommands) {
      described.push_back(SingleQuoted(fmt::format("{}:{}", name, description)));
      std::vector<std::string> path = c->path;
      path.push_back(name);
      calls.push_back(fmt::format("        {}) {} ;;", name, ZshFunction(path)));
    }
    out += fmt::format(
        "  case $state in\n"
        "    command)\n"
        "      local -a commands=(\n        {}\n      )\n"
        "      _describe -t commands {} commands ;;\n"
        "    arguments)\n"
        "      case $line[1] in\n{}\n      esac ;;\n"
        "  esac\n}}\n",
        Join(described, "\n        "), SingleQuoted(Join(c->path, " ") + " command"),
        Join(calls, "\n"));
  }
  out += "\n_fsmove \"$@\"\n";
  return out;
}

absl::Status WriteCompletions(const CLI::App& app, const std::string& dir) {
  if (absl::Status st = base::WriteOutputFile(dir + "/fsmove", BashCompletion(app)); !st.ok())
    return st;
  return base::WriteOutputFile(dir + "/_fsmove", ZshCompletion(app));
}

}  // namespace fsmove::cli
