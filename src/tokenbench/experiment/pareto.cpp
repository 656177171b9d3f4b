#include "tokenbench/experiment/pareto.h"

#include <cmath>

namespace tokenbench::experiment {

std::vector<bool> pareto_front(const std::vector<std::pair<double, double>>& points) {
  const auto usable = [](const std::pair<double, double>& p) {
    return !std::isnan(p.first) && !std::isnan(p.second);
  };
  std::vector<bool> front(points.size(), false);
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!usable(points[i])) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < points.size() && !dominated; ++j) {
      const auto& [x, y] = points[j];
      dominated = j != i && usable(points[j]) && x >= points[i].first && y >= points[i].second &&
                  (x > points[i].first || y > points[i].second);
    }
    front[i] = !dominated;
  }
  return front;
}

}  // namespace tokenbench::experiment
