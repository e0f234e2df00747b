// dpx sample --mechanism laplace|gaussian|discrete_laplace|discrete_gaussian|randomized_response
//            (--scale B | --sigma S | --epsilon E [--delta D] [--sensitivity S]
//             [--calibration classical|analytic]) --count N [--seed S] [--float-safe]
//            [--categories K] [--describe]
//
// Prints N noise draws (location 0), one per line, at full round-trip precision (shortest
// std::to_chars form), or with --describe the calibrated parameters as JSON. For inspection,
// teaching and outside checks (e.g. feed the draws to R's ks.test).
//
// Randomness: without --seed, rng::os_random (the CSPRNG a real release must use); with --seed
// S, rng::stream(S, 0, 0, purpose::noise) — for experiments and reproducible checks only (a
// warning on stderr, and "seeded": true with --describe).
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.hpp"
#include "dpx/accounting/zcdp.hpp"
#include "dpx/core/composition.hpp"
#include "dpx/core/error.hpp"
#include "dpx/core/rng.hpp"
#include "dpx/mechanisms/discrete.hpp"
#include "dpx/mechanisms/float_safe.hpp"
#include "dpx/mechanisms/gaussian.hpp"
#include "dpx/mechanisms/laplace.hpp"
#include "dpx/mechanisms/randomized_response.hpp"
#include "json_output.hpp"
#include "strict.hpp"

namespace dpx::cli::cmd_sample {
namespace {

using json = nlohmann::ordered_json;
namespace core = dpx::core;
namespace mech = dpx::mechanisms;
namespace rng = dpx::rng;

constexpr const char* kFn = "sample";

struct sample_options {
  std::string mechanism;
  std::optional<double> scale, sigma, epsilon, delta, sensitivity;
  std::optional<std::string> calibration;  // gaussian with --epsilon only; default analytic
  std::optional<long long> count;
  std::optional<std::uint64_t> seed;
  bool float_safe = false;
  bool describe = false;
  std::optional<long long> categories;  // randomized_response only; default 2
};

// Buffered line writer with shortest round-trip formatting.
class writer {
 public:
  ~writer() { flush(); }
  void put(double x) {
    // Every draw printed is finite (scales are bounded in run(); this is the last guard).
    if (!std::isfinite(x))
      throw std::invalid_argument("a draw overflowed (the noise scale is too large)");
    reserve();
    auto r = std::to_chars(buf_.data() + used_, buf_.data() + buf_.size(), x);
    used_ = static_cast<std::size_t>(r.ptr - buf_.data());
    buf_[used_++] = '\n';
  }
  void put(std::int64_t x) {
    reserve();
    auto r = std::to_chars(buf_.data() + used_, buf_.data() + buf_.size(), x);
    used_ = static_cast<std::size_t>(r.ptr - buf_.data());
    buf_[used_++] = '\n';
  }
  void flush() {
    std::fwrite(buf_.data(), 1, used_, stdout);
    used_ = 0;
  }

 private:
  void reserve() {
    if (used_ + 64 > buf_.size()) flush();
  }
  std::vector<char> buf_ = std::vector<char>(1 << 16);
  std::size_t used_ = 0;
};

void forbid(const std::optional<double>& v, const char* flag, const std::string& mech_name) {
  if (v) core::throw_invalid(kFn, flag, *v, "is not a parameter of --mechanism " + mech_name);
}

// Flags that only some mechanisms use are rejected elsewhere rather than silently ignored.
void forbid_calibration(const sample_options& o, const std::string& why) {
  if (o.calibration) core::throw_invalid(kFn, "--calibration", *o.calibration, why);
}
void forbid_categories(const sample_options& o, const std::string& mech_name) {
  if (o.categories)
    core::throw_invalid(kFn,
                        "--categories",
                        static_cast<double>(*o.categories),
                        "is not a parameter of --mechanism " + mech_name);
}
void forbid_float_safe(const sample_options& o, const std::string& mech_name) {
  if (o.float_safe)
    core::throw_invalid(kFn,
                        "--float-safe",
                        "set",
                        "applies only to laplace and gaussian; " + mech_name +
                            " output is integer-valued and sampled exactly already");
}

// Draws are scale times a variate of magnitude below ~40 (64-bit generator); a scale above
// 1e300 could print inf. The flag that led to the scale is named.
void check_drawable(const char* flag, double scale) {
  if (!(scale <= 1e300))
    throw std::invalid_argument(std::string(flag) + ": gives a noise scale of " +
                                core::format_double(scale) +
                                ", above 1e300 (draws would overflow to infinity)");
}

// The seeded Philox stream or the CSPRNG (the samplers are templates over the generator).
using generator = std::variant<rng::philox4x32, rng::os_random>;

template <class Mechanism, class Draw>
void emit(long long count, generator& gen, const Mechanism& m, Draw draw) {
  std::visit(
      [&](auto& g) {
        writer w;
        constexpr long long chunk = 4096;
        std::vector<double> buf;
        for (long long done = 0; done < count; done += chunk) {
          const long long k = std::min(chunk, count - done);
          draw(m, g, k, w, buf);
        }
      },
      gen);
}

int run(const sample_options& o) {
  const std::string& m = o.mechanism;
  if (!o.describe && !o.count)
    core::throw_invalid(kFn, "--count", "missing", "is required (or use --describe)");
  const long long count = o.count.value_or(0);
  if (o.count) core::check_at_least(kFn, "--count", count, 0);
  if (o.count)
    dpx::cli::check_bound("--count", count, dpx::cli::max_sample_count, "output size cap");
  const double sens = o.sensitivity.value_or(1.0);
  nlohmann::ordered_json d;
  d["schema_version"] = 1;
  d["mechanism"] = m;

  generator g{std::in_place_index<1>};  // rng::os_random
  if (o.seed) g = rng::stream(*o.seed, 0, 0, rng::purpose::noise);
  auto fill_doubles =
      [](const auto& mm, auto& gg, long long k, writer& w, std::vector<double>& buf) {
        buf.resize(static_cast<std::size_t>(k));
        mm.fill(std::span<double>(buf), gg);
        for (double x : buf) w.put(x);
      };
  auto fill_ints = [](const auto& mm, auto& gg, long long k, writer& w, std::vector<double>&) {
    std::vector<std::int64_t> buf(static_cast<std::size_t>(k));
    mm.fill(std::span<std::int64_t>(buf), gg);
    for (auto x : buf) w.put(x);
  };

  if (m == "laplace") {
    forbid_calibration(o,
                       "only applies to --mechanism gaussian (Laplace: b = sensitivity / epsilon)");
    forbid_categories(o, m);
    forbid(o.sigma, "--sigma", m);
    forbid(o.delta, "--delta", m);
    if (o.scale && o.epsilon)
      core::throw_invalid(kFn, "--scale", *o.scale, "cannot be combined with --epsilon");
    if (!o.scale && !o.epsilon)
      core::throw_invalid(kFn, "--scale", "missing", "laplace needs --scale or --epsilon");
    const auto lap = o.scale ? mech::laplace::from_scale(*o.scale, sens)
                             : mech::laplace::calibrate(*o.epsilon, sens);
    check_drawable(o.scale ? "--scale" : "--epsilon", lap.scale());
    if (o.float_safe) {
      const auto fs = lap.float_safe();
      d["scale"] = fs.scale();
      d["epsilon"] = fs.epsilon();
      d["sensitivity"] = sens;
      d["float_safe"] = true;
      d["granularity"] = fs.granularity();
      d["requested_scale"] = lap.scale();
      if (!o.describe) emit(count, g, fs, fill_doubles);
    } else {
      d["scale"] = lap.scale();
      d["epsilon"] = lap.epsilon();
      d["sensitivity"] = sens;
      d["float_safe"] = false;
      if (!o.describe) emit(count, g, lap, fill_doubles);
    }
  } else if (m == "gaussian") {
    forbid_categories(o, m);
    forbid(o.scale, "--scale", m);
    if (o.sigma && o.epsilon)
      core::throw_invalid(kFn, "--sigma", *o.sigma, "cannot be combined with --epsilon");
    if (!o.sigma && !o.epsilon)
      core::throw_invalid(
          kFn, "--sigma", "missing", "gaussian needs --sigma or --epsilon and --delta");
    if (o.sigma && o.delta)
      core::throw_invalid(kFn, "--delta", *o.delta, "is only used with --epsilon");
    const std::string calibration = o.calibration.value_or("analytic");
    core::parse_noise_calibration(
        calibration,
        {core::noise_calibration::classical, core::noise_calibration::analytic},
        kFn,
        "--calibration");  // the one parser: validates the name
    std::optional<mech::gaussian> ga;
    if (o.sigma) {
      forbid_calibration(o, "is only used with --epsilon (--sigma gives the noise directly)");
      ga = mech::gaussian::from_sigma(*o.sigma, sens);
    } else {
      if (!o.delta) core::throw_invalid(kFn, "--delta", "missing", "is required with --epsilon");
      ga = calibration == "classical"
               ? mech::gaussian::calibrate_classical(*o.epsilon, *o.delta, sens)
               : mech::gaussian::calibrate_analytic(*o.epsilon, *o.delta, sens);
      d["calibration"] = calibration;
      d["epsilon"] = *o.epsilon;
      d["delta"] = *o.delta;
    }
    check_drawable(o.sigma ? "--sigma" : "--epsilon", ga->sigma());
    d["sigma"] = ga->sigma();
    d["sensitivity"] = sens;
    d["noise_multiplier"] = ga->noise_multiplier();
    if (o.float_safe) {
      const auto fs = ga->float_safe();
      d["float_safe"] = true;
      d["granularity"] = fs.granularity();
      d["rho"] = fs.rho();
      if (o.epsilon) {
        // The float-safe release is proven rho-zCDP (same rho as the continuous Gaussian), not
        // (eps, delta) on the continuous curve: report the epsilon that rho gives at this delta
        // (Canonne-Kamath-Steinke conversion), keeping the calibration target separately.
        d["epsilon_calibrated"] = d["epsilon"];
        d["epsilon"] = dpx::accounting::zcdp_epsilon(fs.rho(), *o.delta);
      }
      if (!o.describe) emit(count, g, fs, fill_doubles);
    } else {
      d["float_safe"] = false;
      if (!o.describe) emit(count, g, *ga, fill_doubles);
    }
  } else if (m == "discrete_laplace") {
    forbid_float_safe(o, m);
    forbid_calibration(o, "applies only to --mechanism gaussian");
    forbid_categories(o, m);
    forbid(o.sigma, "--sigma", m);
    forbid(o.delta, "--delta", m);
    if (o.scale && o.epsilon)
      core::throw_invalid(kFn, "--scale", *o.scale, "cannot be combined with --epsilon");
    if (!o.scale && !o.epsilon)
      core::throw_invalid(kFn, "--scale", "missing", "discrete_laplace needs --scale or --epsilon");
    if (sens != std::floor(sens) || sens < 1 || sens > 0x1p53)
      core::throw_invalid(
          kFn, "--sensitivity", sens, "must be a positive integer for discrete_laplace");
    const auto isens = static_cast<std::int64_t>(sens);
    const auto dl = o.scale ? mech::discrete_laplace::from_scale(*o.scale, isens)
                            : mech::discrete_laplace::calibrate(*o.epsilon, isens);
    d["scale"] = dl.scale();
    d["scale_rational"] = {dl.scale_numerator(), dl.scale_denominator()};
    d["epsilon"] = dl.epsilon();
    d["sensitivity"] = isens;
    d["float_safe"] = true;
    if (!o.describe) emit(count, g, dl, fill_ints);
  } else if (m == "discrete_gaussian") {
    forbid_float_safe(o, m);
    forbid_calibration(o, "applies only to --mechanism gaussian");
    forbid_categories(o, m);
    forbid(o.scale, "--scale", m);
    forbid(o.epsilon, "--epsilon", m);
    forbid(o.delta, "--delta", m);
    if (!o.sigma) core::throw_invalid(kFn, "--sigma", "missing", "discrete_gaussian needs --sigma");
    const auto dg = mech::discrete_gaussian::from_sigma(*o.sigma, sens);
    d["sigma"] = dg.sigma();
    d["sigma2_rational"] = {dg.variance_numerator(), dg.variance_denominator()};
    d["sensitivity"] = sens;
    d["rho"] = dg.rho();
    d["float_safe"] = true;
    if (!o.describe) emit(count, g, dg, fill_ints);
  } else if (m == "randomized_response") {
    forbid_float_safe(o, m);
    forbid_calibration(o, "applies only to --mechanism gaussian");
    forbid(o.scale, "--scale", m);
    forbid(o.sigma, "--sigma", m);
    forbid(o.delta, "--delta", m);
    forbid(o.sensitivity, "--sensitivity", m);
    if (!o.epsilon)
      core::throw_invalid(kFn, "--epsilon", "missing", "randomized_response needs --epsilon");
    const auto rr = mech::randomized_response::calibrate(*o.epsilon, o.categories.value_or(2));
    d["epsilon"] = rr.epsilon();
    d["categories"] = rr.categories();
    d["truth_probability"] = rr.truth_probability();
    d["other_probability"] = rr.other_probability();
    if (!o.describe) {
      std::visit(
          [&](auto& gg) {
            writer w;
            for (long long i = 0; i < count; ++i)
              w.put(static_cast<std::int64_t>(rr.randomize(0, gg)));
          },
          g);
    }
  } else {
    core::throw_invalid(kFn,
                        "--mechanism",
                        m,
                        "must be laplace, gaussian, discrete_laplace, discrete_gaussian or "
                        "randomized_response");
  }
  if (o.describe) {
    d["seeded"] = o.seed.has_value();
    dpx::cli::emit_json(d);
  } else if (o.seed) {
    dpx::cli::warn_seeded("sample");  // after the draws: an error stays one line
  }
  return dpx::cli::exit_ok;
}

const bool registered = dpx::cli::register_command(
    "sample",
    "Print noise draws from a mechanism (or its calibration with --describe)",
    [](CLI::App& sub) {
      auto o = std::make_shared<sample_options>();
      dpx::cli::add_pretty_flag(sub);
      sub.add_option("--mechanism",
                     o->mechanism,
                     "laplace | gaussian | discrete_laplace | discrete_gaussian | "
                     "randomized_response")
          ->required();
      sub.add_option("--scale", o->scale, "Laplace scale b (noise given directly)");
      sub.add_option("--sigma", o->sigma, "Gaussian standard deviation (noise given directly)");
      sub.add_option("--epsilon", o->epsilon, "privacy parameter epsilon > 0 (calibrate)");
      sub.add_option("--delta", o->delta, "privacy parameter delta in (0,1) (Gaussian)");
      sub.add_option(
          "--sensitivity", o->sensitivity, "L1 (Laplace) or L2 (Gaussian) sensitivity; default 1");
      sub.add_option("--calibration",
                     o->calibration,
                     "Gaussian calibration: analytic (Balle & Wang 2018, default) or classical "
                     "(Dwork & Roth Thm A.1, epsilon < 1)");
      sub.add_option(
          "--categories", o->categories, "randomized_response: number of categories k (default 2)");
      sub.add_option("--count", o->count, "number of draws N");
      sub.add_option("--seed",
                     o->seed,
                     "base seed: rng::stream(S, 0, 0, noise). Fixed seeds are for experiments "
                     "and checks ONLY; without --seed the draws come from the CSPRNG "
                     "rng::os_random");
      sub.add_flag("--float-safe",
                   o->float_safe,
                   "exact discrete noise on a power-of-two grid (immune to Mironov's attack)");
      sub.add_flag("--describe", o->describe, "print the calibrated parameters as JSON instead");
      sub.footer(
          "Draws are noise at location 0, one per line, shortest round-trip decimal. "
          "laplace/gaussian without --float-safe are research-grade doubles.");
      return [o]() -> int { return run(*o); };
    });

}  // namespace
}  // namespace dpx::cli::cmd_sample
