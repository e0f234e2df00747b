// Helpers shared by the registered models' writers (models.hpp).
#include "models.hpp"

namespace dpx::data::model_defs {

void write_series(table_sink& w, const xt::xtensor<double, 1>& x) {
  w.header({"x"});
  for (double v : x) {
    w.real(v);
    w.end_row();
  }
}

void write_panel(table_sink& w, const panel& y, const std::string& col) {
  w.header({"user", "t", col});
  for (std::size_t u = 0; u < y.users(); ++u)
    for (std::size_t t = 0; t < y.times(); ++t) {
      w.index(u);
      w.index(t);
      w.real(y(u, t));
      w.end_row();
    }
}

}  // namespace dpx::data::model_defs
