"""DP-SGD accounting and calibration with dpx.accounting (dp_accounting-style API).

A model trained for 10 epochs on 60 000 examples with expected batch size 256 (Poisson
sampling, q = 256 / 60000) and noise multiplier 1.1: what (epsilon, delta) does it satisfy, and
what noise gives epsilon = 3?

    python3 examples/python/dp_sgd_accounting.py
"""

import dpx.accounting as acc

N, BATCH, EPOCHS, SIGMA, DELTA = 60_000, 256, 10, 1.1, 1e-5

q = BATCH / N
steps = acc.dp_sgd_steps(N, BATCH, EPOCHS)
step = acc.PoissonSampledDpEvent(q, acc.GaussianDpEvent(SIGMA))

print(f"DP-SGD: q = {q:.5f}, {steps} steps, noise multiplier {SIGMA}, delta = {DELTA:g}")
for accountant in (acc.PLDAccountant(), acc.RDPAccountant()):
    accountant.compose(step, steps)
    print(f"  {accountant.name:>4}: epsilon <= {accountant.get_epsilon(DELTA):.4f}")
    if isinstance(accountant, acc.PLDAccountant):
        lower, upper = accountant.get_epsilon_bracket(DELTA)  # certified: lower <= exact <= upper
        print(f"        the exact epsilon lies in [{lower:.4f}, {upper:.4f}]")

# The one-call shorthand gives the same number as composing the events by hand.
assert acc.dp_sgd_epsilon(SIGMA, N, BATCH, EPOCHS, DELTA) == (
    acc.PLDAccountant().compose(step, steps).get_epsilon(DELTA)
)

target = 3.0
sigma = acc.calibrate_dp_sgd(target, DELTA, N, BATCH, EPOCHS, method="pld")
achieved = acc.dp_sgd_epsilon(sigma, N, BATCH, EPOCHS, DELTA, method="pld")
print(f"noise multiplier for epsilon = {target}: {sigma:.4f} (re-accounted epsilon {achieved:.4f})")
assert achieved <= target

# Opacus' get_noise_multiplier, argument for argument (its accountant="rdp" is available too;
# dpx's default is its certified PLD, and the certified epsilon never exceeds the target).
assert sigma == acc.get_noise_multiplier(target_epsilon=target, target_delta=DELTA, sample_rate=q, epochs=EPOCHS)
