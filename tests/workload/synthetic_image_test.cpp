// Synthetic images: deterministic PNG bytes with the asked size, base64 that decodes back, and
// the chat messages that carry them.

#include "tokenbench/workload/synthetic_image.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tokenbench/workload/workload.h"

namespace tokenbench::workload {
namespace {

std::string base64_decode(const std::string& in) {
  const std::string digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (const char c : in) {
    if (c == '=') break;
    const auto v = digits.find(c);
    if (v == std::string::npos) throw std::runtime_error("not base64");
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

std::uint32_t big_endian(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

TEST(SyntheticImage, SameInputsSameBytesOtherwiseOthers) {
  const ImageSize size{64, 48};
  const std::string a = synthetic_png(7, 3, 0, size);
  EXPECT_EQ(a, synthetic_png(7, 3, 0, size));
  EXPECT_NE(a, synthetic_png(7, 3, 1, size));  // another image of the request
  EXPECT_NE(a, synthetic_png(7, 4, 0, size));  // another request
  EXPECT_NE(a, synthetic_png(8, 3, 0, size));  // another seed
}

TEST(SyntheticImage, PngSignatureAndIhdrSize) {
  const std::string png = synthetic_png(1, 0, 0, {64, 48});
  ASSERT_GT(png.size(), 33u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(big_endian(png, 8), 13u);  // IHDR's length
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(big_endian(png, 16), 64u);
  EXPECT_EQ(big_endian(png, 20), 48u);
  EXPECT_EQ(png[24], 8);  // bit depth
  EXPECT_EQ(png[25], 2);  // RGB
  EXPECT_EQ(png.substr(png.size() - 8, 4), "IEND");
  // A picture, not a blank: neither tiny nor raw-sized.
  const std::string big = synthetic_png(1, 0, 0, {512, 512});
  EXPECT_GT(big.size(), 20'000u);
  EXPECT_LT(big.size(), 400'000u);
}

TEST(SyntheticImage, Base64KnownVectorsAndRoundTrip) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode(std::string("\xff\xfe\x00", 3)), "//4A");
  const std::string png = synthetic_png(2, 5, 1, {33, 17});
  EXPECT_EQ(base64_decode(base64_encode(png)), png);
}

TEST(SyntheticImage, ImageSizeParsing) {
  const ImageSize s = parse_image_size("64x48");
  EXPECT_EQ(s.width, 64);
  EXPECT_EQ(s.height, 48);
  for (const char* bad : {"64", "x48", "64x", "0x10", "64x4097", "-1x5", "64X48", "6 4x48", ""}) {
    try {
      parse_image_size(bad);
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--image-size '" + std::string(bad) + "': give WxH"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(SyntheticImage, AttachedAfterTheTextAsDataUrls) {
  core::RequestSpec spec;
  spec.id = 12;
  spec.prompt = "What is in these pictures?";
  attach_images(spec, 4, 2, {64, 48});
  const auto messages = nlohmann::json::parse(spec.messages_json);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0]["role"], "user");
  const auto& content = messages[0]["content"];
  ASSERT_EQ(content.size(), 3u);
  EXPECT_EQ(content[0], (nlohmann::json{{"type", "text"}, {"text", spec.prompt}}));
  for (std::uint32_t i = 0; i < 2; ++i) {
    EXPECT_EQ(content[i + 1]["type"], "image_url");
    const std::string url = content[i + 1]["image_url"]["url"];
    const std::string head = "data:image/png;base64,";
    ASSERT_EQ(url.rfind(head, 0), 0u);
    EXPECT_EQ(base64_decode(url.substr(head.size())), synthetic_png(4, 12, i, {64, 48}));
  }
  // A jsonl request's messages: the last user turn gets them.
  core::RequestSpec chat;
  chat.messages_json =
      R"([{"role":"system","content":"Be brief."},{"role":"user","content":"Describe."}])";
  attach_images(chat, 4, 1, {8, 8});
  const auto m = nlohmann::json::parse(chat.messages_json);
  EXPECT_EQ(m[0]["content"], "Be brief.");
  ASSERT_EQ(m[1]["content"].size(), 2u);
  EXPECT_EQ(m[1]["content"][0]["text"], "Describe.");
  core::RequestSpec no_user;
  no_user.messages_json = R"([{"role":"system","content":"x"}])";
  EXPECT_THROW(attach_images(no_user, 4, 1, {8, 8}), std::runtime_error);
}

TEST(SyntheticImage, EveryRequestOfAWorkloadCarriesItsImages) {
  core::RunConfig c;
  c.num_prompts = 5;
  c.warmup = 1;
  c.input_len = 6;
  c.image_count = 2;
  c.image_size = "64x48";
  const Workload w = build_workload(c);
  ASSERT_EQ(w.measure->size(), 5u);
  for (const auto* phase : {w.warmup.get(), w.measure.get()}) {
    for (const auto& spec : all_prompts(*phase)) {
      const auto content = nlohmann::json::parse(spec.messages_json)[0]["content"];
      ASSERT_EQ(content.size(), 3u);
      EXPECT_EQ(content[0]["text"], spec.prompt);
      const std::string url = content[2]["image_url"]["url"];
      EXPECT_EQ(base64_decode(url.substr(22)), synthetic_png(c.seed, spec.id, 1, {64, 48}));
    }
  }
}

}  // namespace
}  // namespace tokenbench::workload
