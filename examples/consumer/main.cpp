// Releases a private mean of values in [0, 1] with the Laplace mechanism, the way an outside
// project would: dpx::mechanisms only, noise from the CSPRNG of real releases (rng::os_random).
#include <dpx/core/rng.hpp>
#include <dpx/mechanisms/laplace.hpp>

#include <cstdio>
#include <vector>

int main() {
  const std::vector<double> data{0.2, 0.4, 0.9, 0.7, 0.1};
  double mean = 0;
  for (double x : data) mean += x;
  mean /= static_cast<double>(data.size());
  // Replace-one neighbours: one value changes the mean by at most 1/n.
  const auto mech =
      dpx::mechanisms::laplace::calibrate(/*epsilon=*/1.0, 1.0 / static_cast<double>(data.size()));
  dpx::rng::os_random rng;
  std::printf("scale %.17g release %.17g\n", mech.scale(), mech.release(mean, rng));
  return mech.scale() == 0.2 ? 0 : 1;
}
