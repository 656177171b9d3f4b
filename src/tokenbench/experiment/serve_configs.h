#pragma once

// The server configurations of a server-configuration sweep (`run --serve-cmd`): each
// --serve-param's values, combined (the product, or zipped with --link), and the placeholders
// `{name}` they fill in the server's command, the hooks and --gpus.

#include <map>
#include <string>
#include <vector>

namespace tokenbench::experiment {

/// One --serve-param: a name and its values ("max_num_seqs=64,128,256").
struct ServeParam {
  std::string name;
  std::vector<std::string> values;
};

/// One server configuration: a value per parameter, and the directory its results go to.
struct ServeConfig {
  std::map<std::string, std::string> params;
  std::vector<std::string> order;  ///< the parameters' names in the order given
  std::string dir;                 ///< "max_num_seqs=64,max_num_batched_tokens=2048"
  /// "max_num_seqs=64, max_num_batched_tokens=2048" (or "default" without parameters).
  std::string label() const;
};

/// Parses "NAME=V1,V2,...". A name is letters, digits and _ (as a placeholder's); a value is
/// anything but a comma, never empty. Throws std::invalid_argument naming --serve-param.
ServeParam parse_serve_param(const std::string& text);

/// The configurations: the product of the parameters' values (the first parameter varies
/// slowest), except that each --link group ("a,b": names of parameters given) is zipped: its
/// parameters take their i-th values together, so they must have as many values. Without any
/// parameter: one configuration with none. Throws std::invalid_argument (a name given twice, a
/// link naming an unknown parameter or one in two links, lengths that differ) and when there
/// would be more than `max_configs`.
std::vector<ServeConfig> serve_configs(const std::vector<ServeParam>& params,
                                       const std::vector<std::string>& links,
                                       std::size_t max_configs = 1000);

/// `text` with each {name} replaced by values.at(name); "{{" and "}}" are literal braces, and
/// so is a shell's ${NAME}.
/// Throws std::invalid_argument naming `what` and the placeholder when a name has no value.
std::string fill_placeholders(const std::string& text,
                              const std::map<std::string, std::string>& values,
                              const std::string& what);

/// The placeholder names `text` uses ({name}), in order of first use.
std::vector<std::string> placeholders_in(const std::string& text);

/// Evaluates an arithmetic expression of numbers, + - * / and parentheses ("2*4", "(1+1)*8").
/// Throws std::invalid_argument naming `what` when it is not one or is not finite.
double evaluate_arithmetic(const std::string& text, const std::string& what);

}  // namespace tokenbench::experiment
