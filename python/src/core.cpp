// dpx.Philox, dpx.OsRandom and the stream-key helpers (dpx::rng, dpx::core::stable_hash).
#include <pybind11/stl.h>

#include <array>
#include <string>

#include "common.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/hash.hpp"
#include "dpx/core/output_contract.hpp"

namespace dpx::python {
namespace {

rng::purpose parse_purpose(const std::string& s) {
  static const std::pair<const char*, rng::purpose> names[] = {
      {"data", rng::purpose::data},
      {"noise", rng::purpose::noise},
      {"init", rng::purpose::init},
      {"subsample", rng::purpose::subsample},
      {"bootstrap", rng::purpose::bootstrap},
      {"audit", rng::purpose::audit},
      {"aux", rng::purpose::aux}};
  for (const auto& [n, p] : names)
    if (s == n) return p;
  core::throw_invalid(
      "Philox", "purpose", s, "must be data, noise, init, subsample, bootstrap, audit or aux");
}

}  // namespace

void init_core(py::module_& m) {
  py::class_<philox_gen>(m, "Philox", R"doc(
Philox4x32-10 counter-based generator (Random123), keyed like dpx's experiment streams.

Philox(seed, cell=0, replication=0, purpose="noise") is the C++ rng::stream(seed, cell,
replication, purpose): key64 = splitmix64(splitmix64(seed) ^ cell), counter = {block,
replication, purpose}. With the defaults it is the stream `dpx sample --seed SEED` uses, so
the same seed gives bit-identical draws in C++, the CLI and Python.

Philox is fast and statistically excellent but not a cryptographic generator, and a fixed seed
is for experiments only: anyone who knows the seed knows the noise. Real releases draw from
dpx.os_random(), a CSPRNG.)doc")
      .def(py::init([](std::uint64_t seed,
                       std::uint64_t cell,
                       std::uint32_t replication,
                       const std::string& purpose) {
             return new philox_gen(rng::stream(seed, cell, replication, parse_purpose(purpose)));
           }),
           py::arg("seed"),
           py::arg("cell") = 0,
           py::arg("replication") = 0,
           py::arg("purpose") = "noise")
      .def_static(
          "from_key",
          [](std::array<std::uint32_t, 2> key, std::array<std::uint32_t, 4> counter) {
            return new philox_gen(rng::philox4x32(key, counter));
          },
          py::arg("key"),
          py::arg("counter") = std::array<std::uint32_t, 4>{0, 0, 0, 0},
          "Raw Philox with an explicit 2-word key and 4-word starting counter.")
      .def_property_readonly(
          "key",
          [](philox_gen& g) {
            const auto k = g.engine.key();
            return py::make_tuple(k[0], k[1]);
          },
          "The 2-word key (a tuple).")
      .def_property_readonly(
          "counter",
          [](philox_gen& g) {
            const auto c = g.engine.counter();
            return py::make_tuple(c[0], c[1], c[2], c[3]);
          },
          "Counter of the next block to be generated (a 4-tuple).")
      .def(
          "random_raw",
          [](philox_gen& g, const py::object& size) -> py::object {
            if (size.is_none()) return py::int_(with_engine(g, 1, [](auto& e) { return e(); }));
            py::array_t<std::uint32_t> out(size.cast<py::ssize_t>());
            std::span<std::uint32_t> s(out.mutable_data(), static_cast<std::size_t>(out.size()));
            with_engine(g, s.size(), [&](auto& e) { e.fill(s); });
            return out;
          },
          py::arg("size") = py::none(),
          "Raw 32-bit outputs (an int, or a uint32 array of length size).")
      .def(
          "uniform",
          [](philox_gen& g, const py::object& size) -> py::object {
            if (size.is_none())
              return py::float_(with_engine(g, 1, [](auto& e) { return e.uniform01(); }));
            py::array_t<double> out(size.cast<py::ssize_t>());
            std::span<double> s(out.mutable_data(), static_cast<std::size_t>(out.size()));
            with_engine(g, s.size(), [&](auto& e) { e.fill_uniform01(s); });
            return out;
          },
          py::arg("size") = py::none(),
          "Uniform on [0, 1) with 53 random bits (a float, or an array of length size).")
      .def(
          "discard",
          [](philox_gen& g, unsigned long long n) {
            with_engine(g, 1, [&](auto& e) { e.discard(n); });
          },
          py::arg("n"),
          "Skips n 32-bit outputs.")
      .def(
          "copy",
          [](philox_gen& g) {
            return new philox_gen(with_engine(g, 1, [](auto& e) { return e; }));
          },
          "An independent copy in the same state (it will produce the same draws).")
      .def("__copy__", [](philox_gen& g) { return new philox_gen(g.engine); })
      .def("__eq__", [](philox_gen& a, philox_gen& b) { return a.engine == b.engine; })
      .def("__repr__", [](philox_gen& g) {
        const auto k = g.engine.key();
        const auto c = g.engine.counter();
        return "dpx.Philox.from_key((" + std::to_string(k[0]) + ", " + std::to_string(k[1]) +
               "), (" + std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " +
               std::to_string(c[2]) + ", " + std::to_string(c[3]) + "))";
      });

  py::class_<os_gen>(m, "OsRandom", R"doc(
The generator for real data releases: a cryptographically secure generator, OpenSSL's
RAND_priv_bytes (NIST SP 800-90A CTR-DRBG, AES-256, seeded by the operating system), buffered.
Not reproducible by design; safe to share between threads (calls are serialised) and across
os.fork() (a child never reuses the parent's buffered bytes). Create it with dpx.os_random().)doc")
      .def(
          "random_raw",
          [](os_gen& g, const py::object& size) -> py::object {
            if (size.is_none()) return py::int_(with_engine(g, 1, [](auto& e) { return e(); }));
            py::array_t<std::uint64_t> out(size.cast<py::ssize_t>());
            auto* p = out.mutable_data();
            const auto n = static_cast<std::size_t>(out.size());
            with_engine(g, n, [&](auto& e) {
              for (std::size_t i = 0; i < n; ++i) p[i] = e();
            });
            return out;
          },
          py::arg("size") = py::none(),
          "Raw 64-bit outputs (an int, or a uint64 array of length size).")
      .def("__repr__", [](os_gen&) { return std::string("dpx.os_random()"); });

  m.def(
      "os_random",
      [] { return new os_gen(); },
      "The CSPRNG (OpenSSL RAND_priv_bytes) for real releases: a dpx.OsRandom.");
  m.def(
      "stable_hash",
      [](const std::string& s) { return core::stable_hash(s); },
      py::arg("text"),
      "dpx's stable 64-bit hash (FNV-1a 64 + SplitMix64 finaliser) used for cell ids and stream "
      "keys; e.g. Philox(seed, stable_hash('dpx generate ar1'), 0, 'data') is the stream of "
      "`dpx generate ar1 --seed seed`.");
  m.attr("stream_derivation") = std::string(rng::stream_derivation);
  m.def(
      "output_contract",
      [] {
        py::list out;
        for (const auto& f : core::output_contract())
          out.append(py::make_tuple(
              std::string(f.surface), std::string(f.field), std::string(core::to_string(f.kind))));
        return out;
      },
      "The output contract (docs/cli.md, \"Output contract\"): (surface, field, class) for "
      "every output of the private commands and result types; class is 'release', 'public "
      "input' or 'non-private diagnostic'.");
}

}  // namespace dpx::python
