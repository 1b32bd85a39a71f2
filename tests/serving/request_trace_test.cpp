#include "sim/serving/request_trace.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "sim/core/error.hpp"
#include "temp_path.hpp"

namespace cs {
namespace {

std::string trace_error(const std::string& text) {
  try {
    (void)parse_request_trace(text, "t.csv");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(RequestTrace, ReadsSecondsAndTokens) {
  const auto t = parse_request_trace("# made by hand\narrival_s,prompt_tokens,output_tokens\n0,10,1\n0.25,2048,300\n\n"
                                     "1.5, 7 ,8\n",
                                     "t.csv");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[1].arrival, Time::ms(250));
  EXPECT_EQ(t[1].prompt, 2048);
  EXPECT_EQ(t[1].output, 300);
  EXPECT_EQ(t[2].arrival, Time::ms(1500));
  EXPECT_EQ(t[2].prompt, 7);
}

TEST(RequestTrace, ReadsTheAzureLayoutFromAFile) {
  // AzurePublicDataset's AzureLLMInferenceTrace_conv.csv layout: wall-clock times with 7 fractional digits,
  // the first row at time zero; the columns may come in another order and with extra ones.
  const auto path = testing::temp_file("azure_trace", ".csv");
  {
    std::ofstream out(path);
    out << "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
           "2023-11-16 18:15:46.6805900,374,44\r\n"
           "2023-11-16 18:15:50.9951690,396,109\r\n"
           "2023-11-17 00:00:00.0000000,879,2\r\n";
  }
  const auto t = load_request_trace(path.string());
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].arrival, Time::zero());
  EXPECT_EQ(t[1].arrival, Time::ns(4'314'579'000));  // 50.9951690 - 46.6805900 s
  EXPECT_EQ(t[2].arrival, Time::ns((5LL * 3600 + 44 * 60 + 13) * 1'000'000'000LL + 319'410'000));
  EXPECT_EQ(t[1].prompt, 396);
  EXPECT_EQ(t[1].output, 109);
  const auto reordered = parse_request_trace("GeneratedTokens,Model,TIMESTAMP,ContextTokens\n5,x,2024-05-10 00:00:01,9\n",
                                             "r.csv");
  EXPECT_EQ(reordered[0].prompt, 9);
  EXPECT_EQ(reordered[0].output, 5);
}

TEST(RequestTrace, ABadRowNamesFileLineAndColumn) {
  const std::string head = "arrival_s,prompt_tokens,output_tokens\n";
  EXPECT_EQ(trace_error(head + "0,10,1\n0.5,-3,4\n"),
            "t.csv:3:5: serving.load.trace: prompt_tokens must be at least 1, got -3");
  EXPECT_EQ(trace_error(head + "0,10,1\n1.0,10,0\n"),
            "t.csv:3:8: serving.load.trace: output_tokens must be at least 1, got 0");
  EXPECT_EQ(trace_error(head + "1.0,10,1\n0.5,10,1\n"),
            "t.csv:3:1: serving.load.trace: arrival goes backwards in time (500 ms after 1 s on the row before)");
  EXPECT_EQ(trace_error(head + "0,10\n"), "t.csv:2:5: serving.load.trace: missing output_tokens (column 3 of the header)");
  EXPECT_EQ(trace_error(head + "0,ten,1\n"), "t.csv:2:3: serving.load.trace: prompt_tokens \"ten\" is not a whole number");
  EXPECT_EQ(trace_error("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-13-01 00:00:00,1,1\n"),
            "t.csv:2:1: serving.load.trace: TIMESTAMP \"2023-13-01 00:00:00\" is not a date and time "
            "YYYY-MM-DD HH:MM:SS.fffffff");
  EXPECT_NE(trace_error("time,in,out\n0,1,1\n").find("t.csv:1:1: serving.load.trace: unknown trace header"),
            std::string::npos);
  EXPECT_EQ(trace_error("arrival_s,prompt_tokens\n0,1\n"), "t.csv:1:1: serving.load.trace: the header has no column output_tokens");
  EXPECT_NE(trace_error(head).find("no requests"), std::string::npos);
  EXPECT_NE(trace_error("").find("empty"), std::string::npos);
}

TEST(RequestTrace, AMissingFileSaysSo) {
  try {
    (void)load_request_trace("/nonexistent/trace.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/trace.csv"), std::string::npos);
  }
}

}  // namespace
}  // namespace cs
