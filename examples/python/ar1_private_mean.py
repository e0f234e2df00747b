"""Private mean of an AR(1) series, against its exact theory.

X_t = phi X_{t-1} + e_t (stationary, phi = 0.6). The mean of n values clipped to [-B, B] has
sensitivity 2B / n under replace-one neighbours (one value changed), so adding Laplace noise of
scale 2B / (n epsilon) gives epsilon-DP for the release. Its mean squared error is
Var(mean) + 2 b^2 (+ a clipping bias, negligible here with B = 6 stationary sd), and Var(mean)
of a dependent series is mean_variance_constant / n, not gamma(0) / n: dependence inflates it
by (1 + phi) / (1 - phi) = 4 for large n.

    python3 examples/python/ar1_private_mean.py
"""

import math

import numpy as np

import dpx

PHI, N, EPS, REPS = 0.6, 10_000, 0.5, 400

model = dpx.data.AR1(phi=PHI)
theory = model.theory(N)
B = 6 * math.sqrt(theory["variance"])
laplace = dpx.mechanisms.Laplace.calibrate(EPS, l1_sensitivity=2 * B / N)

data_rng = dpx.Philox(2026, purpose="data")  # experiments only: a real release uses dpx.os_random()
noise_rng = dpx.Philox(2026, purpose="noise")
paths = np.stack([model.sample(N, data_rng) for _ in range(REPS)])
means = np.clip(paths, -B, B).mean(axis=1)
released = laplace.release(means, noise_rng)  # one vectorised call for all replications

mse = np.mean((released - theory["mean"]) ** 2)
predicted = theory["mean_variance_constant"] / N + laplace.variance
iid_prediction = theory["variance"] / N + laplace.variance
se = np.std((released - theory["mean"]) ** 2) / math.sqrt(REPS)

print(f"AR(1) phi = {PHI}, n = {N}, epsilon = {EPS}, {REPS} replications")
print(f"  theory: gamma(0) = {theory['variance']:.4f}, n Var(mean) = {theory['mean_variance_constant']:.4f}, "
      f"long-run variance = {theory['long_run_variance']:.4f}")
print(f"  MSE of the private mean: {mse:.3e} +- {se:.1e}")
print(f"  predicted (dependent):   {predicted:.3e}")
print(f"  predicted if i.i.d.:     {iid_prediction:.3e}")
print(f"  privacy event: {laplace.event}")
assert abs(mse - predicted) < 5 * se, "the MSE disagrees with the AR(1) theory"
