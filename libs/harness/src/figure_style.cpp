// Presentation fields of figures.json (figure_style.hpp).
#include "figure_style.hpp"

namespace dpx::harness::detail {

void add_presentation(nlohmann::ordered_json& jf, const figure_spec& f) {
  using json = nlohmann::ordered_json;
  json labels = json::object();
  for (const auto& [k, v] : f.labels) labels[k] = v;
  json marked = json::object();
  for (const auto& [k, v] : f.marked) marked[k] = v;
  jf["labels"] = labels;
  jf["series_order"] = f.series_order;
  jf["marked"] = marked;
  jf["deterministic"] = f.deterministic;
  jf["y_range"] = f.y_range ? json::array({f.y_range->first, f.y_range->second}) : json(nullptr);
  jf["max_series"] = f.max_series;
  jf["style"] = f.style;
}

}  // namespace dpx::harness::detail
