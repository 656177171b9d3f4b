#pragma once

#include <utility>
#include <vector>

namespace tokenbench::experiment {

/// Which of `points` are on their Pareto front when both coordinates are better larger: a point
/// is on it when no other point is at least as large in both and larger in one. A point with a
/// NaN coordinate is never on it; equal points are on it together. Pure.
std::vector<bool> pareto_front(const std::vector<std::pair<double, double>>& points);

}  // namespace tokenbench::experiment
