// Server configurations of a server-configuration sweep: the product of --serve-param lists,
// --link's zipped groups, the placeholders they fill, and --gpus as arithmetic.

#include "tokenbench/experiment/serve_configs.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tokenbench::experiment {
namespace {

std::vector<std::string> dirs(const std::vector<ServeConfig>& configs) {
  std::vector<std::string> out;
  for (const auto& c : configs) out.push_back(c.dir);
  return out;
}

TEST(ServeConfigs, ParsesNameAndValues) {
  const ServeParam p = parse_serve_param("max_num_seqs=64,128,256");
  EXPECT_EQ(p.name, "max_num_seqs");
  EXPECT_EQ(p.values, (std::vector<std::string>{"64", "128", "256"}));
  EXPECT_EQ(parse_serve_param("flag=--enable-chunked-prefill").values,
            std::vector<std::string>{"--enable-chunked-prefill"});
  for (const char* bad : {"max_num_seqs", "=1,2", "a-b=1", "a=1,,2", "a="}) {
    EXPECT_THROW(parse_serve_param(bad), std::invalid_argument) << bad;
  }
}

TEST(ServeConfigs, ProductVariesTheFirstParameterSlowest) {
  const auto configs =
      serve_configs({parse_serve_param("seqs=64,128"), parse_serve_param("tokens=2048,8192")}, {});
  EXPECT_EQ(dirs(configs),
            (std::vector<std::string>{"seqs=64,tokens=2048", "seqs=64,tokens=8192",
                                      "seqs=128,tokens=2048", "seqs=128,tokens=8192"}));
  EXPECT_EQ(configs[2].params.at("seqs"), "128");
  EXPECT_EQ(configs[2].params.at("tokens"), "2048");
  EXPECT_EQ(configs[2].label(), "seqs=128, tokens=2048");
}

TEST(ServeConfigs, LinkedParametersTakeTheirValuesTogether) {
  const auto configs = serve_configs({parse_serve_param("tp=1,2,4"), parse_serve_param("dp=4,2,1"),
                                      parse_serve_param("seqs=8,16")},
                                     {"tp,dp"});
  ASSERT_EQ(configs.size(), 6u);  // 3 (tp, dp) pairs x 2 seqs
  EXPECT_EQ(dirs(configs), (std::vector<std::string>{"tp=1,dp=4,seqs=8", "tp=1,dp=4,seqs=16",
                                                     "tp=2,dp=2,seqs=8", "tp=2,dp=2,seqs=16",
                                                     "tp=4,dp=1,seqs=8", "tp=4,dp=1,seqs=16"}));
}

TEST(ServeConfigs, RefusesWhatCannotBeMeant) {
  const ServeParam a = parse_serve_param("a=1,2");
  const ServeParam b = parse_serve_param("b=1,2,3");
  EXPECT_THROW(serve_configs({a, a}, {}), std::invalid_argument);          // given twice
  EXPECT_THROW(serve_configs({a, b}, {"a,b"}), std::invalid_argument);     // lengths differ
  EXPECT_THROW(serve_configs({a, b}, {"a,c"}), std::invalid_argument);     // unknown name
  EXPECT_THROW(serve_configs({a, b}, {"a", "a"}), std::invalid_argument);  // in two links
  EXPECT_THROW(serve_configs({a, b}, {}, 5), std::invalid_argument);       // 6 > 5
  // No parameter: one configuration, for --before-config alone.
  const auto one = serve_configs({}, {});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].dir, "default");
}

TEST(ServeConfigs, DirectoryNamesStaySafeAndDistinct) {
  const auto configs = serve_configs({parse_serve_param("model=org/m a,org/m;b")}, {});
  // '/', ' ' and ';' are not a directory name's: both become '_', so the second is numbered.
  EXPECT_EQ(dirs(configs), (std::vector<std::string>{"model=org_m_a", "model=org_m_b"}));
  EXPECT_EQ(dirs(serve_configs({parse_serve_param("m=a/b,a_b")}, {})),
            (std::vector<std::string>{"m=a_b", "config-2"}));
}

TEST(ServeConfigs, FillsPlaceholders) {
  const std::map<std::string, std::string> v = {{"port", "8123"}, {"max_num_seqs", "64"}};
  EXPECT_EQ(fill_placeholders("vllm serve m --port {port} --max-num-seqs {max_num_seqs}", v, "x"),
            "vllm serve m --port 8123 --max-num-seqs 64");
  // Literal braces, a shell's ${VAR} and a brace that names nothing stay as written.
  EXPECT_EQ(fill_placeholders("echo {{port}} ${HOME} {not a name} {port}", v, "x"),
            "echo {port} ${HOME} {not a name} 8123");
  try {
    fill_placeholders("--tp {tp}", v, "--serve-cmd");
    FAIL() << "an unknown placeholder was filled";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--serve-cmd: {tp} has no value"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(placeholders_in("a {x} {y} {x} ${Z} {{w}}"), (std::vector<std::string>{"x", "y"}));
}

TEST(ServeConfigs, EvaluatesGpusArithmetic) {
  EXPECT_DOUBLE_EQ(evaluate_arithmetic("2*4", "--gpus"), 8);
  EXPECT_DOUBLE_EQ(evaluate_arithmetic(" (1 + 1) * 8 / 4 - 1", "--gpus"), 3);
  EXPECT_DOUBLE_EQ(evaluate_arithmetic("-2*-3", "--gpus"), 6);
  EXPECT_DOUBLE_EQ(evaluate_arithmetic("0.5", "--gpus"), 0.5);
  for (const char* bad : {"", "2*", "(2", "2 3", "tp*2", "1/0"}) {
    EXPECT_THROW(evaluate_arithmetic(bad, "--gpus"), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace tokenbench::experiment
