#pragma once

// `history trend FIGURE --html FILE`: the trend as a self-contained page (report.html's template
// and chart library; report/html/history.js draws it).

#include <string>

#include "tokenbench/history/trend.h"

namespace tokenbench::history {

std::string render_trend_page(const Trend& trend);

}  // namespace tokenbench::history
