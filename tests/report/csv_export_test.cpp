#include "tokenbench/report/csv_export.h"

#include <gtest/gtest.h>

#include "../metrics/test_records.h"
#include "tokenbench/core/run_config.h"

namespace tokenbench::report {
namespace {

using test_records::failed_record;
using test_records::streamed_record;

const std::string kHeader =
    "id,phase,streamed,endpoint,attempt,retried,nonstream_sample,scheduled_ms,sent_ms,headers_ms,"
    "first_token_ms,last_token_ms,done_ms,ttft_ms,tpot_ms,e2el_ms,itl_mean_ms,chunks,decode_tps,"
    "output_tps,prompt_tokens,prompt_source,output_tokens,output_source,http_status,error,"
    "error_message,finish_reason,request_id,response_id\r\n";

TEST(CsvExport, TextFieldQuotesPerRfc4180) {
  EXPECT_EQ(csv_text_field("plain"), "plain");
  EXPECT_EQ(csv_text_field(""), "");
  EXPECT_EQ(csv_text_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_text_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_text_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_text_field("cr\r"), "\"cr\r\"");
}

TEST(CsvExport, TextFieldNeutralisesFormulas) {
  EXPECT_EQ(csv_text_field("=1+1"), "'=1+1");
  EXPECT_EQ(csv_text_field("+1"), "'+1");
  EXPECT_EQ(csv_text_field("-1"), "'-1");
  EXPECT_EQ(csv_text_field("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_text_field("\tx"), "'\tx");
  EXPECT_EQ(csv_text_field("=HYPERLINK(\"u\",\"x\")"), "\"'=HYPERLINK(\"\"u\"\",\"\"x\"\")\"");
  EXPECT_EQ(csv_text_field("a=b"), "a=b");  // only a leading sign is a formula
}

TEST(CsvExport, HeaderOnlyWithoutRecords) { EXPECT_EQ(requests_to_csv({}), kHeader); }

TEST(CsvExport, RequestsGolden) {
  core::RequestRecord ok = streamed_record(1, 0, 2, {{102, 1}, {112, 1}, {122, 1}}, 125, 10);
  ok.request_id = "req-1";
  ok.response_id = "chatcmpl-1";
  core::RequestRecord bad =
      failed_record(2, 5, 9.5, core::ErrorClass::kHttp5xx, 503, "=HYPERLINK(\"x\"), bad\nline");
  bad.request_id = "-x";
  bad.attempt = 1;
  core::RequestRecord warm = streamed_record(0, 0, 0, {{5, 2}}, 6, 4);
  warm.phase = core::Phase::kWarmup;
  warm.endpoint = 2;
  warm.streamed = false;
  warm.finish_reason = "stop";
  const std::string expected =
      kHeader +
      "1,measure,true,0,0,false,false,0.000000,2.000000,3.000000,102.000000,122.000000,"
      "125.000000,100.000,10.000,120.000,10.000,3,100.000,25.000,10,usage,3,usage,200,none,,"
      "length,req-1,chatcmpl-1\r\n"
      "2,measure,true,0,1,false,false,5.000000,5.000000,,,,9.500000,,,,,0,,,0,unknown,0,"
      "unknown,503,http_5xx,\"'=HYPERLINK(\"\"x\"\"), bad\nline\",,'-x,\r\n"
      "0,warmup,false,2,0,false,false,0.000000,0.000000,1.000000,5.000000,5.000000,6.000000,,,"
      "6.000,,1,,333.333,4,usage,2,usage,200,none,,stop,,\r\n";
  EXPECT_EQ(requests_to_csv({ok, bad, warm}), expected);
}

TEST(CsvExport, LevelsGolden) {
  const auto sweep = nlohmann::json::parse(R"({"levels": [
    {"dir": "c1", "max_concurrency": 1, "request_rate": "inf", "complete": true,
     "completed": 10, "failed": 0, "duration": 2.5, "request_throughput": 4.0,
     "output_throughput": 400.125, "total_token_throughput": 800.0, "request_goodput": null,
     "mean_ttft_ms": 10.0, "p50_ttft_ms": 9.5, "p90_ttft_ms": 12.0, "p95_ttft_ms": 13.0,
     "p99_ttft_ms": 14.0, "mean_e2el_ms": 100.0},
    {"dir": "c8,x", "max_concurrency": 8, "request_rate": 2.5, "complete": false,
     "completed": 3, "failed": 1, "request_goodput": 1.25}]})");
  const std::string header =
      "dir,max_concurrency,request_rate,complete,completed,failed,duration,request_throughput,"
      "output_throughput,total_token_throughput,request_goodput,mean_ttft_ms,p50_ttft_ms,"
      "p90_ttft_ms,p95_ttft_ms,p99_ttft_ms,mean_tpot_ms,p50_tpot_ms,p90_tpot_ms,p95_tpot_ms,"
      "p99_tpot_ms,mean_itl_ms,p50_itl_ms,p90_itl_ms,p95_itl_ms,p99_itl_ms,mean_e2el_ms,"
      "p50_e2el_ms,p90_e2el_ms,p95_e2el_ms,p99_e2el_ms\r\n";
  const std::string expected =
      header +
      "c1,1,inf,true,10,0,2.500,4.000,400.125,800.000,,10.000,9.500,12.000,13.000,14.000,,,,,,"
      ",,,,,100.000,,,,\r\n"
      "\"c8,x\",8,2.500,false,3,1,,,,,1.250,,,,,,,,,,,,,,,,,,,,\r\n";
  EXPECT_EQ(levels_to_csv(sweep), expected);
  EXPECT_EQ(levels_to_csv(nlohmann::json::object()), header);
}

TEST(CsvExport, ExportFormats) {
  EXPECT_FALSE(wants_csv_export({}));
  EXPECT_TRUE(wants_csv_export({"csv"}));
  EXPECT_THROW(wants_csv_export({"xlsx"}), std::invalid_argument);
}

TEST(CsvExport, ConfigKeepsTheExports) {
  core::RunConfig c;
  c.exports = {"csv"};
  const std::string yaml = core::to_yaml(c);
  EXPECT_NE(yaml.find("exports: [csv]"), std::string::npos) << yaml;
  EXPECT_EQ(core::run_config_from_yaml(yaml).exports, std::vector<std::string>{"csv"});
  EXPECT_TRUE(core::run_config_from_yaml(core::to_yaml(core::RunConfig{})).exports.empty());
}

}  // namespace
}  // namespace tokenbench::report
