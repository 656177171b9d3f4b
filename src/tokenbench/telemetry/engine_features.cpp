#include "tokenbench/telemetry/engine_features.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace tokenbench::telemetry {
namespace {

using nlohmann::json;

double grown(double after, double before) { return after >= before ? after - before : after; }

}  // namespace

namespace {

// The mean of the acceptance-length gauge over the scrapes from `start` to `end`; NaN: none.
double gauge_mean(const std::vector<Scrape>& scrapes, const Scrape& start, const Scrape& end) {
  double sum = 0;
  int n = 0;
  for (const auto& scrape : scrapes) {
    if (!scrape.ok || scrape.t < start.t || scrape.t > end.t) continue;
    if (const auto& v = scrape.snapshot.spec_accept_length; v && *v > 0) {
      sum += *v;
      ++n;
    }
  }
  return n > 0 ? sum / n : std::nan("");
}

std::vector<double> grown_each(const std::vector<double>& after,
                               const std::vector<double>& before) {
  std::vector<double> out;
  out.reserve(after.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    out.push_back(grown(after[i], i < before.size() ? before[i] : 0.0));
  }
  return out;
}

}  // namespace

std::optional<SpecDecodeStat> spec_decode_stat(const std::vector<Scrape>& scrapes,
                                               const Scrape& start, const Scrape& end) {
  const auto& b = start.snapshot.spec;
  const auto& e = end.snapshot.spec;
  SpecDecodeStat s;
  if (!b || !e) {
    // SGLang exports only the mean acceptance length of its recent steps: its mean over the phase.
    s.acceptance_length = gauge_mean(scrapes, start, end);
    if (!std::isfinite(s.acceptance_length)) return std::nullopt;
    s.source = "gauge";
    s.drafts = s.draft_tokens = s.accepted = s.acceptance_rate = std::nan("");
    return s;
  }
  s.source = "counters";
  s.drafts = grown(e->drafts, b->drafts);
  s.draft_tokens = grown(e->draft_tokens, b->draft_tokens);
  s.accepted = grown(e->accepted, b->accepted);
  if (s.draft_tokens <= 0) return std::nullopt;
  s.acceptance_rate = s.accepted / s.draft_tokens;
  const std::vector<double> accepted =
      grown_each(e->accepted_per_position, b->accepted_per_position);
  if (s.drafts > 0) {  // vLLM: every draft proposes every position
    s.acceptance_length = 1 + s.accepted / s.drafts;
    for (const double a : accepted) s.per_position.push_back(a / s.drafts);
    return s;
  }
  // TensorRT-LLM counts no drafts: the length is its gauge, each position its own ratio.
  s.drafts = std::nan("");
  s.acceptance_length = gauge_mean(scrapes, start, end);
  const std::vector<double> drafted = grown_each(e->drafted_per_position, b->drafted_per_position);
  for (std::size_t i = 0; i < accepted.size() && i < drafted.size(); ++i) {
    s.per_position.push_back(drafted[i] > 0 ? accepted[i] / drafted[i] : 0.0);
  }
  return s;
}

std::optional<LoraStat> lora_stat(const std::vector<Scrape>& scrapes, const Scrape& start,
                                  const Scrape& end) {
  LoraStat l;
  std::set<std::string> seen;
  for (const auto& scrape : scrapes) {
    if (!scrape.ok || scrape.t < start.t || scrape.t > end.t || !scrape.snapshot.lora) continue;
    const LoraInfo& info = *scrape.snapshot.lora;
    seen.insert(info.running.begin(), info.running.end());
    l.max_running = std::max(l.max_running, static_cast<int>(info.running.size()));
    l.max_waiting = std::max(l.max_waiting, static_cast<int>(info.waiting.size()));
    l.max_lora = std::max(l.max_lora, info.max_lora);
    ++l.samples;
  }
  if (l.samples == 0) return std::nullopt;
  l.adapters.assign(seen.begin(), seen.end());
  return l;
}

json spec_decode_to_json(const std::optional<SpecDecodeStat>& s) {
  if (!s) return nullptr;
  const auto number = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  return json{{"source", s->source},
              {"drafts", number(s->drafts)},
              {"draft_tokens", number(s->draft_tokens)},
              {"accepted_tokens", number(s->accepted)},
              {"acceptance_rate", number(s->acceptance_rate)},
              {"acceptance_length", number(s->acceptance_length)},
              {"acceptance_per_position", s->per_position}};
}

json lora_to_json(const std::optional<LoraStat>& l) {
  if (!l) return nullptr;
  return json{{"adapters", l->adapters},
              {"max_running_adapters", l->max_running},
              {"max_waiting_adapters", l->max_waiting},
              {"max_lora", l->max_lora},
              {"samples", l->samples}};
}

std::string render_spec_decode(const std::optional<SpecDecodeStat>& s) {
  if (!s) return "";
  if (s->source == "gauge") {
    return fmt::format(
        "  speculative decoding: mean acceptance length {:.2f} (the server's gauge)\n",
        s->acceptance_length);
  }
  const auto number = [](double v, const char* f) {
    return std::isfinite(v) ? fmt::format(fmt::runtime(f), v) : std::string("-");
  };
  std::string out = fmt::format(
      "  speculative decoding: acceptance rate {:.2f} %, mean acceptance length {} ({} drafts, "
      "{:.0f} draft tokens, {:.0f} accepted)\n",
      100 * s->acceptance_rate, number(s->acceptance_length, "{:.2f}"), number(s->drafts, "{:.0f}"),
      s->draft_tokens, s->accepted);
  if (!s->per_position.empty()) {
    out += "    acceptance by position:";
    for (std::size_t i = 0; i < s->per_position.size(); ++i) {
      out += fmt::format(" {}: {:.3f}", i, s->per_position[i]);
    }
    out += "\n";
  }
  return out;
}

std::string render_lora(const std::optional<LoraStat>& l) {
  if (!l) return "";
  std::string names;
  for (const auto& a : l->adapters) names += (names.empty() ? "" : ", ") + a;
  return fmt::format(
      "  LoRA: {} adapters ran ({}); at most {} running and {} waiting at once (max_lora {:.0f})\n",
      l->adapters.size(), names.empty() ? "-" : names, l->max_running, l->max_waiting, l->max_lora);
}

void features_to_json(const ServerSnapshot& v, json& o) {
  if (v.spec) {
    o["spec_decode"] = {{"drafts", v.spec->drafts},
                        {"draft_tokens", v.spec->draft_tokens},
                        {"accepted", v.spec->accepted},
                        {"accepted_per_position", v.spec->accepted_per_position},
                        {"drafted_per_position", v.spec->drafted_per_position}};
  }
  if (v.spec_accept_length) o["spec_accept_length"] = *v.spec_accept_length;
  if (v.lora) {
    o["lora"] = {
        {"running", v.lora->running}, {"waiting", v.lora->waiting}, {"max_lora", v.lora->max_lora}};
  }
}

void features_from_json(const json& o, ServerSnapshot& v) {
  if (const auto it = o.find("spec_decode"); it != o.end() && it->is_object()) {
    SpecDecodeCounters c;
    c.drafts = it->at("drafts").get<double>();
    c.draft_tokens = it->at("draft_tokens").get<double>();
    c.accepted = it->at("accepted").get<double>();
    c.accepted_per_position = it->value("accepted_per_position", std::vector<double>{});
    c.drafted_per_position = it->value("drafted_per_position", std::vector<double>{});
    v.spec = std::move(c);
  }
  if (const auto it = o.find("spec_accept_length"); it != o.end() && it->is_number()) {
    v.spec_accept_length = it->get<double>();
  }
  if (const auto it = o.find("lora"); it != o.end() && it->is_object()) {
    LoraInfo info;
    info.running = it->value("running", std::vector<std::string>{});
    info.waiting = it->value("waiting", std::vector<std::string>{});
    info.max_lora = it->value("max_lora", 0.0);
    v.lora = std::move(info);
  }
}

}  // namespace tokenbench::telemetry
