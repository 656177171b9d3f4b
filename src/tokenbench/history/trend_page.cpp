#include "tokenbench/history/trend_page.h"

#include "tokenbench/report/html_report.h"

namespace tokenbench::history {

std::string render_trend_page(const Trend& trend) {
  return report::render_html_report(trend_json(trend));
}

}  // namespace tokenbench::history
