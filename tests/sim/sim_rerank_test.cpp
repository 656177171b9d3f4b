// Rerank (/v1/rerank, /rerank, /v2/rerank) and score (/v1/score, /score): the request parsers,
// the replies' shapes, order and usage, bad bodies, and their cost in the engine model.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "prometheus_text.h"
#include "sim_test_client.h"
#include "tokenbench/sim/engine_params.h"
#include "tokenbench/sim/rerank_request.h"

namespace tokenbench::sim {
namespace {

using nlohmann::json;
using testing::HttpReply;
using testing::TestConnection;

CompletionRequest ok(std::variant<CompletionRequest, RequestError> parsed) {
  if (const auto* err = std::get_if<RequestError>(&parsed)) {
    ADD_FAILURE() << err->message;
    return {};
  }
  return std::get<CompletionRequest>(std::move(parsed));
}

int status_of(const std::variant<CompletionRequest, RequestError>& parsed) {
  const auto* err = std::get_if<RequestError>(&parsed);
  return err == nullptr ? 200 : err->status;
}

TEST(SimRerankTest, RerankCountsEveryPairsTokens) {
  const CompletionRequest r = ok(parse_rerank_request(
      R"({"query":"one two","documents":["a b c","d"],"top_n":1,"return_documents":false})", "m"));
  EXPECT_EQ(r.api, ApiKind::kRerank);
  EXPECT_EQ(r.prompt_tokens, (2 + 3) + (2 + 1));
  EXPECT_EQ(r.input_hashes.size(), 2u);
  EXPECT_EQ(r.documents, (std::vector<std::string>{"a b c", "d"}));
  EXPECT_EQ(r.top_n, 1);
  EXPECT_FALSE(r.return_documents);
  EXPECT_EQ(r.max_tokens, 1);
  // TEI's "texts" names the documents too.
  EXPECT_EQ(ok(parse_rerank_request(R"({"query":"q","texts":["x y"]})", "m")).prompt_tokens, 3);
}

TEST(SimRerankTest, ScorePairsOneWithManyOrElementWise) {
  const CompletionRequest one =
      ok(parse_score_request(R"({"text_1":"a b","text_2":["c","d e"]})", "m"));
  EXPECT_EQ(one.api, ApiKind::kScore);
  EXPECT_EQ(one.prompt_tokens, (2 + 1) + (2 + 2));
  EXPECT_EQ(one.input_hashes.size(), 2u);
  const CompletionRequest pairs =
      ok(parse_score_request(R"({"text_1":["a","b"],"text_2":["c","d"]})", "m"));
  EXPECT_EQ(pairs.prompt_tokens, 4);
  EXPECT_NE(pairs.input_hashes[0], pairs.input_hashes[1]);
  EXPECT_EQ(ok(parse_score_request(R"({"text_1":["a"],"text_2":"c"})", "m")).prompt_tokens, 2);
}

TEST(SimRerankTest, BadBodiesAre400) {
  std::string many = R"({"query":"q","documents":[)";
  for (int i = 0; i < 1001; ++i) many += i > 0 ? ",\"d\"" : "\"d\"";
  many += "]}";
  for (const std::string& body :
       {std::string(R"({"documents":["a"]})"), std::string(R"({"query":"q"})"),
        std::string(R"({"query":"q","documents":[]})"),
        std::string(R"({"query":1,"documents":["a"]})"),
        std::string(R"({"query":"q","documents":"a"})"),
        std::string(R"({"query":"q","documents":["a",2]})"),
        std::string(R"({"query":"q","documents":["a"],"top_n":-1})"),
        std::string(R"({"query":"q","documents":["a"],"return_documents":"yes"})"),
        std::string("[1]"), std::string("{"), many}) {
    EXPECT_EQ(status_of(parse_rerank_request(body, "m")), 400) << body.substr(0, 80);
  }
  for (const char* body :
       {R"({"text_2":"a"})", R"({"text_1":"a"})", R"({"text_1":["a","b"],"text_2":["c"]})",
        R"({"text_1":[],"text_2":["c"]})", R"({"text_1":"a","text_2":[1]})",
        R"({"text_1":{"a":1},"text_2":"b"})"}) {
    EXPECT_EQ(status_of(parse_score_request(body, "m")), 400) << body;
  }
  EXPECT_EQ(status_of(parse_rerank_request(R"({"model":"x","query":"q","documents":["a"]})", "m")),
            404);
}

SimConfig pooling_config(double prefill_us_per_token) {
  SimConfig c;
  c.port = 0;
  c.seed = 21;
  c.mode = TimingMode::kEngine;
  c.engine = *find_engine_preset("zero");
  c.engine.step_overhead_ms = 1;
  c.engine.prefill_us_per_token = prefill_us_per_token;
  return c;
}

json post(TestConnection& conn, const std::string& path, const std::string& body,
          int status = 200) {
  conn.send_request("POST", path, body);
  const HttpReply reply = conn.read_reply();
  EXPECT_EQ(reply.status, status) << path << " " << reply.body;
  return json::parse(reply.body);
}

TEST(SimRerankServerTest, RerankRepliesSortedTruncatedAndDeterministic) {
  auto server = testing::start_server(pooling_config(0));
  TestConnection conn(server->port());
  const std::string docs = R"(["alpha beta","gamma","delta epsilon zeta","eta","theta iota"])";
  const json all = post(conn, "/v1/rerank", R"({"query":"find me","documents":)" + docs + "}");
  EXPECT_TRUE(all["id"].get<std::string>().starts_with("rerank-"));
  EXPECT_EQ(all["model"], "sim-model");
  EXPECT_EQ(all["usage"]["total_tokens"], 5 * 2 + (2 + 1 + 3 + 1 + 2));
  ASSERT_EQ(all["results"].size(), 5u);
  const json input = json::parse(docs);
  for (std::size_t k = 0; k < 5; ++k) {
    const json& r = all["results"][k];
    const double s = r["relevance_score"];
    EXPECT_GE(s, 0.0);
    EXPECT_LE(s, 1.0);
    if (k > 0) {
      EXPECT_GE(all["results"][k - 1]["relevance_score"].get<double>(), s);
    }
    EXPECT_EQ(r["document"]["text"], input[r["index"].get<std::size_t>()]);
  }
  // Another path, top_n and no documents: the first two results, the same scores.
  const json top =
      post(conn, "/rerank",
           R"({"query":"find me","top_n":2,"return_documents":false,"documents":)" + docs + "}");
  ASSERT_EQ(top["results"].size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(top["results"][k]["index"], all["results"][k]["index"]);
    EXPECT_EQ(top["results"][k]["relevance_score"], all["results"][k]["relevance_score"]);
    EXPECT_FALSE(top["results"][k].contains("document"));
  }
  EXPECT_EQ(post(conn, "/v2/rerank", R"({"query":"q","documents":[]})", 400)["error"]["type"],
            "invalid_request_error");
}

TEST(SimRerankServerTest, ScoreRepliesInOrderWithUsage) {
  auto server = testing::start_server(pooling_config(0));
  TestConnection conn(server->port());
  const json j = post(conn, "/v1/score", R"({"text_1":"a b","text_2":["c","d e","f"]})");
  EXPECT_TRUE(j["id"].get<std::string>().starts_with("score-"));
  EXPECT_EQ(j["object"], "list");
  EXPECT_GT(j["created"].get<std::int64_t>(), 1'600'000'000);
  ASSERT_EQ(j["data"].size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(j["data"][i]["index"], i);
    EXPECT_EQ(j["data"][i]["object"], "score");
    EXPECT_GE(j["data"][i]["score"].get<double>(), 0.0);
    EXPECT_LE(j["data"][i]["score"].get<double>(), 1.0);
  }
  EXPECT_EQ(j["usage"]["prompt_tokens"], 3 + 4 + 3);
  EXPECT_EQ(j["usage"]["total_tokens"], 10);
  // The same pair scores the same, element-wise on /score.
  const json again = post(conn, "/score", R"({"text_1":["a b"],"text_2":"d e"})");
  EXPECT_EQ(again["data"][0]["score"], j["data"][1]["score"]);
  post(conn, "/score", R"({"text_1":["a","b"],"text_2":["c","d","e"]})", 400);

  conn.send_request("GET", "/metrics");
  const auto prom = testing::parse_prom_text(conn.read_reply().body);
  const std::string l = "{model_name=\"sim-model\"";
  EXPECT_EQ(prom.at("tokenbench_sim:requests_total" + l + ",api=\"score\"}"), 2);
  EXPECT_EQ(prom.at("tokenbench_sim:requests_total" + l + ",api=\"rerank\"}"), 0);
  EXPECT_EQ(prom.at("vllm:prompt_tokens_total" + l + "}"), 10 + 4);
}

TEST(SimRerankServerTest, MoreDocumentsTakeLongerInTheEngine) {
  // 1 ms per prompt token: a request's one step costs 1 ms plus its pairs' tokens.
  auto server = testing::start_server(pooling_config(1000));
  TestConnection conn(server->port());
  const auto scrape_e2e = [&] {
    conn.send_request("GET", "/metrics");
    return testing::parse_prom_text(conn.read_reply().body)
        .at("vllm:e2e_request_latency_seconds_sum{model_name=\"sim-model\"}");
  };
  post(conn, "/v1/rerank", R"({"query":"a b","documents":["c d","e f"]})");  // 8 tokens
  const double short_e2e = scrape_e2e();
  std::string docs = "[";
  for (int i = 0; i < 40; ++i) docs += i > 0 ? ",\"c d\"" : "\"c d\"";
  docs += "]";
  const auto sent = testing::TestClock::now();
  post(conn, "/v1/rerank", R"({"query":"a b","documents":)" + docs + "}");  // 160 tokens
  EXPECT_GE(testing::TestClock::now() - sent, std::chrono::milliseconds(160));
  const double long_e2e = scrape_e2e() - short_e2e;
  EXPECT_NEAR(short_e2e, 0.009, 0.002);
  EXPECT_NEAR(long_e2e, 0.161, 0.002);
}

}  // namespace
}  // namespace tokenbench::sim
