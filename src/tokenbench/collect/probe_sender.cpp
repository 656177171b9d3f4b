#include "tokenbench/collect/probe_sender.h"

#include <curl/curl.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace tokenbench::collect {

namespace {

// One probe in flight.
struct Transfer {
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::size_t index = 0;  // into samples_
  std::string seen;       // the body so far, up to the first token
  const core::RunClock* clock = nullptr;
  telemetry::ProbeSample* sample = nullptr;
};

// True once `body` holds a non-empty "content" or "text" value: the first token's bytes.
bool has_first_token(const std::string& body) {
  for (const char* key : {"\"content\":\"", "\"text\":\"", "\"reasoning_content\":\""}) {
    for (std::size_t at = body.find(key); at != std::string::npos; at = body.find(key, at + 1)) {
      const std::size_t v = at + std::char_traits<char>::length(key);
      if (v < body.size() && body[v] != '"') return true;
    }
  }
  return false;
}

extern "C" std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t bytes = size * n;
  if (t->sample->first_token == core::kNever) {
    const core::Nanos now = t->clock->now();
    t->seen.append(data, std::min<std::size_t>(bytes, 1 << 16));
    if (has_first_token(t->seen)) {
      t->sample->first_token = now;
      t->seen.clear();
    } else if (t->seen.size() > (1 << 16)) {
      t->seen.erase(0, t->seen.size() - 256);  // keep a key that spans two reads
    }
  }
  return bytes;
}

}  // namespace

ProbeSender::ProbeSender(std::string url, std::vector<std::string> headers, std::string body,
                         double rate, const core::RunClock& clock, client::TlsOptions tls)
    : url_(std::move(url)),
      headers_(std::move(headers)),
      body_(std::move(body)),
      interval_(static_cast<core::Nanos>(1e9 / rate)),
      clock_(clock),
      tls_(std::move(tls)) {
  client::ensure_curl_initialized();
}

ProbeSender::~ProbeSender() { stop(std::chrono::milliseconds(0)); }

void ProbeSender::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

std::vector<telemetry::ProbeSample> ProbeSender::stop(std::chrono::milliseconds grace) {
  grace_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(grace).count();
  stopping_.store(true);
  if (thread_.joinable()) thread_.join();
  return samples_;
}

void ProbeSender::run() {
  CURLM* multi = curl_multi_init();
  // Probes are added as they are due; samples_ never reallocates under a running transfer's
  // pointer because each transfer keeps an index and the pointer is refreshed on growth.
  samples_.reserve(4096);
  std::vector<std::unique_ptr<Transfer>> running;
  core::Nanos due = clock_.now();
  core::Nanos stop_at = core::kNever;
  const auto refresh = [&] {
    for (auto& t : running) t->sample = &samples_[t->index];
  };
  while (true) {
    const core::Nanos now = clock_.now();
    if (stop_at == core::kNever && stopping_.load()) stop_at = now + grace_ns_;
    if (stop_at == core::kNever && now >= due) {
      auto t = std::make_unique<Transfer>();
      t->clock = &clock_;
      const bool grew = samples_.size() == samples_.capacity();
      samples_.push_back({});
      if (grew) refresh();
      t->index = samples_.size() - 1;
      t->sample = &samples_.back();
      t->sample->scheduled = due;
      t->easy = curl_easy_init();
      for (const auto& h : headers_) t->headers = curl_slist_append(t->headers, h.c_str());
      t->headers = curl_slist_append(t->headers, "Content-Type: application/json");
      curl_easy_setopt(t->easy, CURLOPT_URL, url_.c_str());
      curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
      curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, body_.c_str());
      curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(body_.size()));
      curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, on_body);
      curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t.get());
      curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
      curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS, 600'000L);
      client::apply_tls_options(t->easy, tls_);
      t->sample->sent = clock_.now();
      curl_multi_add_handle(multi, t->easy);
      running.push_back(std::move(t));
      due += interval_;
    }
    int still = 0;
    curl_multi_perform(multi, &still);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      const auto it = std::find_if(running.begin(), running.end(),
                                   [&](const auto& t) { return t->easy == msg->easy_handle; });
      if (it == running.end()) continue;
      Transfer& t = **it;
      t.sample->done = clock_.now();
      curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &t.sample->status);
      if (msg->data.result != CURLE_OK) {
        t.sample->error = curl_easy_strerror(msg->data.result);
      } else if (t.sample->status >= 400) {
        t.sample->error = "HTTP " + std::to_string(t.sample->status);
      }
      curl_multi_remove_handle(multi, t.easy);
      curl_easy_cleanup(t.easy);
      curl_slist_free_all(t.headers);
      running.erase(it);
    }
    if (stop_at != core::kNever && (running.empty() || clock_.now() >= stop_at)) break;
    const core::Nanos wait =
        stop_at != core::kNever ? 10'000'000 : std::max<core::Nanos>(0, due - clock_.now());
    curl_multi_poll(multi, nullptr, 0,
                    static_cast<int>(std::min<core::Nanos>(wait, 10'000'000) / 1'000'000), nullptr);
  }
  for (auto& t : running) {  // not answered in time
    t->sample->error = "not answered before the measure phase ended";
    curl_multi_remove_handle(multi, t->easy);
    curl_easy_cleanup(t->easy);
    curl_slist_free_all(t->headers);
  }
  curl_multi_cleanup(multi);
}

std::string probe_body(const std::string& api, const std::string& model) {
  nlohmann::json body = {{"model", model}, {"max_tokens", 1}, {"stream", true}};
  if (api == "openai-chat") {
    body["messages"] = {{{"role", "user"}, {"content", "Hi"}}};
  } else if (api == "openai") {
    body["prompt"] = "Hi";
  } else {
    return "";
  }
  return body.dump();
}

}  // namespace tokenbench::collect
